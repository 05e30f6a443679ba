import { randomUUID } from 'node:crypto';
import { isTerminalState, MemoryTaskStore, TaskNotFoundError, type A2AClient, type SendResult } from '@a2a-tether/node';
import { openClient } from '../agent/open-client.js';
import { classify } from '../errors/envelope.js';
import { field } from '../output/text.js';
import type { RunContext } from './context.js';
import { validateCard } from './validate-card.js';

/** One check's result. `required` checks decide the exit status; a skipped check says why. */
export interface CheckResult {
  name: string;
  required: boolean;
  status: 'pass' | 'fail' | 'skip';
  reason: string;
}

/** The flags of `conformance`. */
export interface ConformanceFlags {
  text?: string | undefined;
  slowText?: string | undefined;
}

/** Passed to `check()`: a failure with a reason, or a skip. */
class Outcome extends Error {
  constructor(
    readonly status: 'fail' | 'skip',
    reason: string,
  ) {
    super(reason);
  }
}

const fail = (reason: string): never => {
  throw new Outcome('fail', reason);
};
const skip = (reason: string): never => {
  throw new Outcome('skip', reason);
};

const CALL = { timeoutMs: 15_000 };

/** Expects `call` to fail with TaskNotFoundError. */
async function expectNotFound(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (error) {
    if (error instanceof TaskNotFoundError) return `TaskNotFoundError (${error.a2aCode})`;
    return fail(`expected TaskNotFoundError, got ${classify(error, { hasCredentials: false }).envelope.error.code}: ${(error as Error).message}`);
  }
  return fail('expected TaskNotFoundError, the call succeeded');
}

/** A task that is still running: sent without waiting; `undefined` when the agent finished (or answered) at once. */
async function runningTask(client: A2AClient, text: string): Promise<SendResult & { kind: 'task' } | undefined> {
  const result = await client.sendMessage(text, { returnImmediately: true, ...CALL });
  return result.kind === 'task' && !isTerminalState(result.status.state) ? result : undefined;
}

/**
 * The checks, in order, against a live agent (a smoke test, not the A2A TCK): the card, a send, GetTask,
 * ListTasks (v1.0), CancelTask of a running task, streaming and SubscribeToTask where the card offers
 * them, push configs where offered, and TaskNotFoundError for a task id the agent never issued.
 */
async function runChecks(context: RunContext, flags: ConformanceFlags): Promise<{ checks: CheckResult[]; client: A2AClient | undefined }> {
  const checks: CheckResult[] = [];
  const check = async (name: string, required: boolean, body: () => Promise<string>): Promise<void> => {
    try {
      checks.push({ name, required, status: 'pass', reason: await body() });
    } catch (error) {
      if (error instanceof Outcome) checks.push({ name, required, status: error.status, reason: error.message });
      else {
        const { envelope } = classify(error, { hasCredentials: context.globals.bearer !== undefined || context.globals.apiKey !== undefined });
        checks.push({ name, required, status: 'fail', reason: `${envelope.error.code}: ${envelope.error.message}` });
      }
    }
  };
  let client: A2AClient | undefined;
  await check('card.fetch', true, async () => {
    client = await openClient(context, { store: new MemoryTaskStore() });
    const i = client.interface;
    return `${client.cardUrl}; interface ${i.binding} v${i.protocolVersion}`;
  });
  if (!client) return { checks, client };
  const agent: A2AClient = client;
  const v1 = agent.interface.protocolVersion === '1.0';
  const caps = agent.card.capabilities;
  await check('card.valid', true, async () => {
    const problems = validateCard(agent.card.raw);
    return problems.length === 0 ? 'the required fields are present' : fail(problems.join('; '));
  });
  const text = flags.text ?? 'hello';
  let created: string | undefined;
  await check('send.message', true, async () => {
    const result = await agent.sendMessage(text, CALL);
    if (result.kind === 'task') {
      if (!result.id || !result.contextId) fail('the task has no id or context id');
      created = result.id;
      return `a Task (${result.status.state})`;
    }
    return result.parts.length > 0 ? 'a Message' : fail('a Message without parts');
  });
  const slowText = flags.slowText ?? 'slow steps=40 delayMs=100';
  await check('task.get', true, async () => {
    // The quick send's task, or else a long one started for this check (and canceled after it).
    const running = created === undefined ? await runningTask(agent, slowText) : undefined;
    const id = created ?? running?.id;
    if (id === undefined) return skip(`neither "${text}" nor "${slowText}" created a task`);
    try {
      const task = await agent.getTask(id, CALL);
      return task.id === id ? `state ${task.status.state}` : fail(`asked for ${id}, got ${task.id}`);
    } finally {
      if (running) await agent.cancelTask(running.id, CALL).catch(() => undefined);
    }
  });
  await check('task.get.unknown', true, () => expectNotFound(() => agent.getTask(randomUUID(), CALL)));
  await check('task.list', v1, async () => {
    if (!v1) return skip('ListTasks is a v1.0 operation');
    const page = await agent.listTasks({ pageSize: 5 }, CALL);
    return Array.isArray(page.tasks) ? `${page.tasks.length} task(s) on the first page` : fail('no tasks array');
  });
  await check('task.cancel', true, async () => {
    const task = await runningTask(agent, slowText);
    if (!task) return skip(`"${slowText}" did not leave a task running (--slow-text sets the prompt of a long task)`);
    const after = await agent.cancelTask(task.id, CALL);
    if (after.status.state === 'canceled') return 'canceled';
    const later = await agent.getTask(task.id, CALL);
    return later.status.state === 'canceled' ? 'canceled (confirmed by GetTask)' : fail(`still ${later.status.state} after the cancel`);
  });
  await check('task.cancel.unknown', true, () => expectNotFound(() => agent.cancelTask(randomUUID(), CALL)));
  await check('stream.message', caps.streaming === true, async () => {
    if (!caps.streaming) return skip('the card does not advertise streaming');
    let first: string | undefined;
    let count = 0;
    for await (const event of agent.streamMessage(text, CALL)) {
      first ??= event.kind;
      count++;
    }
    if (first !== 'task' && first !== 'message') fail(`the first event is a ${first ?? 'nothing'}, not a Task or Message`);
    return `${count} event(s), first a ${first}`;
  });
  await check('task.subscribe', caps.streaming === true, async () => {
    if (!caps.streaming) return skip('the card does not advertise streaming');
    const task = await runningTask(agent, slowText);
    if (!task) return skip(`"${slowText}" did not leave a task running`);
    let first: string | undefined;
    try {
      for await (const event of agent.subscribe(task.id, CALL)) {
        first = event.kind;
        const of = event.kind === 'task' ? event.id : event.kind === 'message' ? event.taskId : event.taskId;
        if (of !== undefined && of !== task.id) fail(`an event of task ${of} in the subscription of ${task.id}`);
        break;
      }
    } finally {
      await agent.cancelTask(task.id, CALL).catch(() => undefined);
    }
    if (first === undefined) fail('the subscription ended without an event');
    if (v1 && first !== 'task') fail(`v1.0: the first event of a subscription must be the Task, got ${first}`);
    return `first event: ${first}`;
  });
  await check('task.subscribe.unknown', caps.streaming === true, async () => {
    if (!caps.streaming) return skip('the card does not advertise streaming');
    return expectNotFound(async () => {
      for await (const _event of agent.subscribe(randomUUID(), CALL)) break;
    });
  });
  await check('push-config', false, async () => {
    if (!caps.pushNotifications) return skip('the card does not advertise push notifications');
    const task = await runningTask(agent, slowText);
    if (!task) return skip(`"${slowText}" did not leave a task running`);
    try {
      const config = await agent.createPushConfig({ taskId: task.id, url: 'https://example.invalid/tether-conformance' }, CALL);
      const id = config.id ?? '';
      const listed = await agent.listPushConfigs(task.id, CALL);
      if (!listed.some((c) => c.url === config.url)) fail('the created config is not listed');
      if (id) await agent.deletePushConfig(task.id, id, CALL);
      return 'create, list, delete';
    } finally {
      await agent.cancelTask(task.id, CALL).catch(() => undefined);
    }
  });
  return { checks, client };
}

/** `conformance`: the report (one line per check), exit 0 when every required check passed, else 1. */
export async function conformance(context: RunContext, flags: ConformanceFlags): Promise<number> {
  const { io, globals } = context;
  const { checks, client } = await runChecks(context, flags);
  const failed = checks.filter((c) => c.required && c.status === 'fail');
  const passed = failed.length === 0 && checks.some((c) => c.name === 'card.fetch' && c.status === 'pass');
  if (globals.output === 'json') {
    const report = {
      agent: client?.cardUrl ?? globals.agentCard ?? null,
      interface: client ? client.interface : null,
      passed,
      checks,
    };
    io.out(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    let out = field('Agent', client?.cardUrl ?? globals.agentCard ?? '');
    if (client) out += field('Interface', `${client.interface.binding} ${client.interface.protocolVersion} ${client.interface.url}`);
    for (const c of checks) out += field(c.name, `${c.status}${c.required ? '' : ' (optional)'} — ${c.reason}`);
    out += field('Result', passed ? `pass (${checks.filter((c) => c.status === 'pass').length} of ${checks.length} checks passed)` : `fail (${failed.map((c) => c.name).join(', ') || 'card.fetch'})`);
    io.out(out);
  }
  return passed ? 0 : 1;
}
