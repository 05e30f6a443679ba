import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_KEY_METADATA,
  REVISION_METADATA,
  actionScenario,
  lateScenario,
  startActionService,
  startTestAgent,
} from '../src/index.js';
import type { ActionService, TestAgent, TestAgentOptions } from '../src/index.js';
import { rpc, until, v1Message } from './helpers.js';
import type { Json } from './helpers.js';

// The action scenarios driven over raw v1 JSON-RPC, against a real action service.

let agent: TestAgent | undefined;
let service: ActionService | undefined;

afterEach(async () => {
  await agent?.close();
  await service?.close();
  agent = undefined;
  service = undefined;
});

async function start(scenarios: (s: ActionService) => TestAgentOptions['scenarios'], cancelWaitMs?: number): Promise<{ a: TestAgent; s: ActionService }> {
  service = await startActionService();
  agent = await startTestAgent({ scenarios: scenarios(service), ...(cancelWaitMs === undefined ? {} : { cancelWaitMs }) });
  return { a: agent, s: service };
}

/** SendMessage; `wait: false` asks for the task at once (returnImmediately). */
async function send(a: TestAgent, text: string, metadata?: Json, wait = true): Promise<Json> {
  const message = v1Message(text, metadata === undefined ? {} : { metadata });
  const configuration = wait ? {} : { returnImmediately: true };
  const answer = await rpc(a, 'SendMessage', { message, configuration }, { version: '1.0' });
  expect(answer.body['error']).toBeUndefined();
  return answer.body['result']['task'] as Json;
}

async function cancel(a: TestAgent, id: string): Promise<Json> {
  const answer = await rpc(a, 'CancelTask', { id }, { version: '1.0' });
  expect(answer.body['error']).toBeUndefined();
  return answer.body['result'] as Json;
}

describe('actionScenario', () => {
  it('performs once under the idempotency key and echoes revision and cost', async () => {
    const { a, s } = await start((svc) => ({ pay: actionScenario(svc, { operation: 'pay', cost: { amount: 3, unit: 'USD' } }) }));
    const task = await send(a, 'pay amount=5', { [IDEMPOTENCY_KEY_METADATA]: 'order-1', [REVISION_METADATA]: 7 });
    expect(task['status'].state).toBe('TASK_STATE_COMPLETED');
    expect(task['status'].message.metadata).toEqual({ cost: { amount: 3, unit: 'USD' } });
    expect(task['artifacts']).toEqual([
      { artifactId: 'receipt', name: 'receipt', parts: [{ text: 'done pay order-1' }], metadata: { [REVISION_METADATA]: 7 } },
    ]);
    expect(s.effects).toMatchObject([{ seq: 1, key: 'order-1', operation: 'pay', input: 'pay amount=5' }]);
    expect(s.count('order-1')).toBe(1);
  });

  it('keys by messageId without the metadata, and adds no revision or cost', async () => {
    const { a, s } = await start((svc) => ({ mail: actionScenario(svc, { operation: 'mail' }) }));
    const task = await send(a, 'mail to=bob');
    const messageId = (task['history'] as Json[])[0]!['messageId'] as string;
    expect(s.count(messageId)).toBe(1);
    expect(task['artifacts'][0].metadata).toBeUndefined();
    expect(task['artifacts'][0].parts).toEqual([{ text: `done mail ${messageId}` }]);
    expect(task['status'].message.metadata).toBeUndefined();
  });

  it('a retry with the same key reaches the service but is deduplicated', async () => {
    const { a, s } = await start((svc) => ({ pay: actionScenario(svc, { operation: 'pay' }) }));
    await send(a, 'pay', { [IDEMPOTENCY_KEY_METADATA]: 'order-2' });
    await send(a, 'pay', { [IDEMPOTENCY_KEY_METADATA]: 'order-2' });
    expect(s.count('order-2')).toBe(1);
    expect(s.calls.map((call) => call.duplicateOf)).toEqual([undefined, 1]);
  });

  it('a cancel during the delay ends the task canceled, after the effect was performed', async () => {
    const { a, s } = await start((svc) => ({ pay: actionScenario(svc, { operation: 'pay', delayMs: 5 }) }));
    const task = await send(a, 'pay delay=5000', { [IDEMPOTENCY_KEY_METADATA]: 'order-3' }, false);
    await until(() => s.count('order-3') === 1);
    const canceled = await cancel(a, task['id'] as string);
    expect(canceled['status'].state).toBe('TASK_STATE_CANCELED');
    expect(a.tasks.get(task['id'] as string)?.artifacts).toEqual([]);
    expect(s.lookup('order-3')).toMatchObject({ operation: 'pay' });
  });

  it('the delayMs option delays the answer', async () => {
    const { a } = await start((svc) => ({ pay: actionScenario(svc, { operation: 'pay', delayMs: 120 }) }));
    const started = Date.now();
    await send(a, 'pay');
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('a malformed delay parameter fails the task without performing', async () => {
    const { a, s } = await start((svc) => ({ pay: actionScenario(svc, { operation: 'pay' }) }));
    const answer = await rpc(a, 'SendMessage', { message: v1Message('pay delay=soon') }, { version: '1.0' });
    expect(answer.body['error']).toBeDefined();
    expect(s.effects).toEqual([]);
  });
});

describe('lateScenario', () => {
  it('ignores a cancel: CancelTask answers working, and the task completes later', async () => {
    const { a } = await start(() => ({ late: lateScenario({ delayMs: 200, label: 'report', cost: { amount: 1, unit: 'tokens' } }) }), 20);
    const task = await send(a, 'late topic=x', { [REVISION_METADATA]: 'r2' }, false);
    const id = task['id'] as string;
    const started = Date.now();
    const answer = await cancel(a, id);
    expect(Date.now() - started).toBeLessThan(200);
    expect(answer['status'].state).toBe('TASK_STATE_WORKING');
    expect(a.tasks.get(id)?.state).toBe('working');
    await until(() => a.tasks.get(id)?.state === 'completed', 3000);
    const done = a.tasks.get(id)!;
    expect(done.states).not.toContain('canceled');
    expect(done.artifacts).toEqual([
      { artifactId: 'result', name: 'result', parts: [{ kind: 'text', text: 'report for: late topic=x' }], metadata: { [REVISION_METADATA]: 'r2' } },
    ]);
    expect(done.statusMessage?.metadata).toEqual({ cost: { amount: 1, unit: 'tokens' } });
    const fetched = await rpc(a, 'GetTask', { id }, { version: '1.0' });
    expect(fetched.body['result']['status'].state).toBe('TASK_STATE_COMPLETED');
  });

  it('without a cancel, a blocking send waits for it; label defaults to "late"', async () => {
    const { a } = await start(() => ({ late: lateScenario({ delayMs: 10 }) }));
    const task = await send(a, 'late delay=30');
    expect(task['status'].state).toBe('TASK_STATE_COMPLETED');
    expect(task['artifacts'][0].parts).toEqual([{ text: 'late for: late delay=30' }]);
    expect(task['artifacts'][0].metadata).toBeUndefined();
  });

  it('closing the agent while it works leaves nothing behind', async () => {
    const { a } = await start(() => ({ late: lateScenario({ delayMs: 30 }) }));
    const task = await send(a, 'late', undefined, false);
    await a.close();
    await sleep(60);
    expect(a.tasks.get(task['id'] as string)?.state).toBe('working');
  });
});
