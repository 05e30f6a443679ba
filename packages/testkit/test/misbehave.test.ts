import { afterEach, describe, expect, it } from 'vitest';
import { MISBEHAVIOUR_NAMES, startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { COMBOS, V1_HEADERS, kebab, rest, rpc, until, v03JsonRpc, v03Message, v03Rest, v03RestMessage, v1JsonRpc, v1Message, v1Rest } from './helpers.js';
import type { Combo, Event, Json } from './helpers.js';

// Every misbehaviour checked on the wire with plain fetch, independently of any Tether client code.

const agents: TestAgent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  const agent = await startTestAgent(options);
  agents.push(agent);
  return agent;
}

const RS = '\u001e';

/** One SSE frame as written: the raw data line, whether it began with RS, and its JSON. */
interface RawFrame {
  event?: string;
  rs: boolean;
  data: Json;
}

/** Splits an SSE body into frames, tolerating (and recording) a record separator before the JSON. */
function parseFrames(text: string): RawFrame[] {
  const frames: RawFrame[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    const frame: Partial<RawFrame> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) frame.event = line.slice('event: '.length);
      if (line.startsWith('data: ')) {
        const value = line.slice('data: '.length);
        frame.rs = value.startsWith(RS);
        frame.data = JSON.parse(frame.rs ? value.slice(1) : value) as Json;
      }
    }
    frames.push(frame as RawFrame);
  }
  return frames;
}

interface RawStream {
  status: number;
  contentType: string;
  text: string;
  frames: RawFrame[];
}

async function readStream(response: Response): Promise<RawStream> {
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, contentType, text, frames: contentType.includes('text/event-stream') ? parseFrames(text) : [] };
}

/** SendStreamingMessage / message/stream in the combo's dialect. */
async function openStream(combo: Combo, agent: TestAgent, text: string, ids: { taskId?: string; contextId?: string } = {}): Promise<RawStream> {
  const json = { 'Content-Type': 'application/json' };
  let response: Response;
  if (combo.binding === 'JSONRPC') {
    const v1 = combo.version === '1.0';
    response = await fetch(agent.jsonRpcUrl, {
      method: 'POST',
      headers: v1 ? { ...json, ...V1_HEADERS } : json,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: v1 ? 'SendStreamingMessage' : 'message/stream',
        params: { message: v1 ? v1Message(text, ids) : v03Message(text, ids) },
      }),
    });
  } else if (combo.version === '1.0') {
    response = await fetch(`${agent.restUrl}/message:stream`, {
      method: 'POST',
      headers: { ...json, ...V1_HEADERS },
      body: JSON.stringify({ message: v1Message(text, ids) }),
    });
  } else {
    response = await fetch(`${agent.restUrl}/v1/message:stream`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ message: v03RestMessage(text, ids) }),
    });
  }
  return readStream(response);
}

/** The combo's normalized view of a success frame. */
function eventOf(combo: Combo, frame: RawFrame): Event {
  return combo.event({ data: frame.data });
}

/** The task id a success frame is about (`id` of a Task, `taskId` of an update). */
function taskIdOf(event: Event): string {
  return (event.kind === 'task' ? event.raw['id'] : event.raw['taskId']) as string;
}

function timestampOf(event: Event): string {
  return event.raw['status'].timestamp as string;
}

/** The task id in the first frame of a stream that created a task. */
function createdTaskId(combo: Combo, stream: RawStream): string {
  const first = stream.frames[0];
  if (first === undefined) throw new Error(`empty stream: ${stream.text}`);
  return taskIdOf(eventOf(combo, first));
}

function describeAll(combo: Combo, stream: RawStream): string[] {
  return stream.frames.map((frame) => {
    if (frame.event === 'error') return 'error';
    const event = eventOf(combo, frame);
    return `${event.kind}${event.state === undefined ? '' : ` ${event.state}`}${event.text === undefined ? '' : ` ${event.text}`}`;
  });
}

/** Start a task without waiting for it (returnImmediately / blocking: false); resolves with its id. */
async function startTask(agent: TestAgent, text: string): Promise<string> {
  const { result } = await v1JsonRpc.send(agent, text, { blocking: false });
  return result!['task'].id as string;
}

async function settled(agent: TestAgent, id: string): Promise<void> {
  await until(() => ['completed', 'failed', 'canceled', 'rejected'].includes(agent.tasks.get(id)?.state ?? ''), 5_000);
}

describe('rs: a record separator before every SSE payload', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: every data payload starts with 0x1E; a task without it has none', async (_, combo) => {
    const agent = await start();
    const [odd, plain] = await Promise.all([
      openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=rs'),
      openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1'),
    ]);
    expect(odd.frames).toHaveLength(6);
    expect(odd.text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.charCodeAt('data: '.length))).toEqual(Array(6).fill(0x1e));
    expect(eventOf(combo, odd.frames.at(-1)!).state).toBe('completed');
    expect(plain.frames).toHaveLength(6);
    expect(plain.text.includes(RS)).toBe(false);
  });

  it('agent-wide through behaviour, also on a Message reply; setBehaviour turns it off live', async () => {
    const agent = await start({ behaviour: { misbehave: ['rs'] } });
    const echoed = await openStream(v03JsonRpc, agent, 'hello');
    expect(echoed.frames.map((f) => f.rs)).toEqual([true]);
    agent.setBehaviour({ misbehave: undefined });
    const plain = await openStream(v03JsonRpc, agent, 'hello');
    expect(plain.frames.map((f) => f.rs)).toEqual([false]);
  });
});

describe('replayClose: a subscription is one snapshot, then the end', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: one Task frame of the current state; the task runs on; GetTask is truthful', async (_, combo) => {
    const agent = await start();
    const id = await startTask(agent, 'slow steps=10 delayMs=30 misbehave=replayClose');
    await until(() => (agent.tasks.get(id)?.eventCount ?? 0) >= 4);
    const sub = await readStream(await combo.subscribe(agent, id));
    expect(sub.status).toBe(200);
    expect(sub.frames).toHaveLength(1);
    const snapshot = eventOf(combo, sub.frames[0]!);
    // The body ended although the task it showed was still working.
    expect(snapshot).toMatchObject({ kind: 'task', state: 'working' });
    expect(taskIdOf(snapshot)).toBe(id);
    const shownParts = (snapshot.raw['artifacts']?.[0]?.parts as Json[] | undefined)?.length ?? 0;
    await settled(agent, id);
    const final = agent.tasks.get(id)!;
    expect(final.state).toBe('completed');
    expect(final.artifacts[0]!.parts.length).toBeGreaterThan(shownParts);
    const { result } = await combo.get(agent, id);
    expect(kebab(result!['status'].state)).toBe('completed');
    expect((result!['artifacts'] as Json[])[0]!['parts']).toHaveLength(10);
  });

  it('setBehaviour turns it on for tasks already running', async () => {
    const agent = await start();
    const id = await startTask(agent, 'slow steps=8 delayMs=25');
    await until(() => (agent.tasks.get(id)?.eventCount ?? 0) >= 2);
    agent.setBehaviour({ misbehave: ['replayClose'] });
    const sub = await readStream(await v03Rest.subscribe(agent, id));
    expect(describeAll(v03Rest, sub)).toEqual(['task working']);
  });
});

describe('repeat: status updates more than once', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: each status two or three times in a row; artifacts once', async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'stream updates=3 chunks=3 delayMs=1 misbehave=repeat mbSeed=3');
    const lines = describeAll(combo, stream);
    const runs: Array<{ line: string; count: number }> = [];
    for (const line of lines) {
      const last = runs.at(-1);
      if (last?.line === line) last.count++;
      else runs.push({ line, count: 1 });
    }
    const statusRuns = runs.filter((r) => r.line.startsWith('status'));
    expect(statusRuns.map((r) => r.line)).toEqual(['status working step 1', 'status working step 2', 'status working step 3', 'status completed']);
    for (const run of statusRuns) expect([2, 3], run.line).toContain(run.count);
    expect(runs.filter((r) => r.line.startsWith('artifact')).map((r) => r.count)).toEqual([1, 1, 1]);
    // The artifact-less creation snapshot goes out once or twice; nothing else is a Task frame.
    expect(runs[0]!.line).toBe('task submitted');
    expect(lines.filter((l) => l.startsWith('task'))).toHaveLength(runs[0]!.count);
  });
});

describe('skew: status timestamps off the real clock, on the wire and in GetTask', () => {
  const YEAR = 365 * 24 * 3600 * 1000;

  it.each([
    ['skewFuture', v1Rest.name, v1Rest, (offset: number) => offset > 0.9 * YEAR && offset < 1.1 * YEAR],
    ['skewPast', v03JsonRpc.name, v03JsonRpc, (offset: number) => offset < -0.9 * YEAR && offset > -1.1 * YEAR],
  ] as const)('%s (%s): every status, the terminal one included; GetTask shows the same times', async (name, _, combo, fits) => {
    const agent = await start();
    const now = Date.now();
    const stream = await openStream(combo, agent, `stream updates=2 chunks=1 delayMs=1 misbehave=${name}`);
    const events = stream.frames.map((f) => eventOf(combo, f)).filter((e) => e.kind !== 'artifact');
    expect(events.map((e) => e.state)).toEqual(['submitted', 'working', 'working', 'completed']);
    for (const event of events) expect(fits(Date.parse(timestampOf(event)) - now), timestampOf(event)).toBe(true);
    const { result } = await combo.get(agent, createdTaskId(combo, stream));
    expect(result!['status'].timestamp).toBe(timestampOf(events.at(-1)!));
  });

  it('skewRandom: seeded jumps both ways, so the times are out of order', async () => {
    const agent = await start();
    const stream = await openStream(v1JsonRpc, agent, 'stream updates=5 chunks=0 delayMs=1 misbehave=skewRandom mbSeed=11');
    const times = stream.frames.map((f) => eventOf(v1JsonRpc, f)).filter((e) => e.kind !== 'artifact').map((e) => Date.parse(timestampOf(e)));
    expect(times).toHaveLength(7);
    const now = Date.now();
    expect(times.some((t) => t > now + 24 * 3600 * 1000)).toBe(true);
    expect(times.some((t) => t < now - 24 * 3600 * 1000)).toBe(true);
    expect([...times].sort((a, b) => a - b)).not.toEqual(times);
  });
});

describe('reuseMessageId: one messageId on every status', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: every status has a message, all with the same id; text-less ones get the state', async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'stream updates=2 chunks=1 delayMs=1 misbehave=reuseMessageId');
    const statuses = stream.frames.map((f) => eventOf(combo, f)).filter((e) => e.kind !== 'artifact');
    expect(statuses.map((e) => e.raw['status'].message?.messageId)).toEqual(Array(4).fill(statuses[0]!.raw['status'].message.messageId));
    const texts = statuses.map((e) => combo.messageText(e.raw['status'].message));
    expect(texts).toEqual(['submitted', 'step 1', 'step 2', 'completed']);
  });
});

describe("foreign: another task's events on this task's streams", () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))("%s: a completed status and a FOREIGN artifact of another task; the stream goes on; GetTask shows none of it", async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'stream updates=3 chunks=3 delayMs=1 misbehave=foreign mbSeed=5');
    const own = createdTaskId(combo, stream);
    const events = stream.frames.map((f) => eventOf(combo, f));
    const foreign = events.filter((e) => taskIdOf(e) !== own);
    expect(foreign.length).toBeGreaterThanOrEqual(2);
    expect(foreign.filter((e) => e.kind === 'status' && e.state === 'completed').length).toBeGreaterThanOrEqual(1);
    expect(foreign.filter((e) => e.kind === 'artifact' && e.text!.includes('FOREIGN')).length).toBeGreaterThanOrEqual(1);
    // The task's own events are complete and end the stream.
    const mine = events.filter((e) => taskIdOf(e) === own);
    expect(mine.filter((e) => e.kind === 'artifact').map((e) => e.text)).toEqual(['chunk-1;', 'chunk-2;', 'chunk-3;']);
    expect(mine.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    // The first foreign status (a terminal one) came before the task's own end.
    expect(events.findIndex((e) => taskIdOf(e) !== own)).toBeLessThan(events.length - 3);
    const { result } = await combo.get(agent, own);
    expect(JSON.stringify(result)).not.toContain('FOREIGN');
    expect(JSON.stringify(agent.tasks.get(own))).not.toContain('FOREIGN');
  });

  it('borrows the id (and the context) of another real task of the agent for some seeds', async () => {
    const agent = await start();
    await startTask(agent, 'reject');
    let borrowed = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const stream = await openStream(v1Rest, agent, `stream updates=2 chunks=2 delayMs=1 misbehave=foreign mbSeed=${seed}`);
      const own = createdTaskId(v1Rest, stream);
      const ownContext = agent.tasks.get(own)!.contextId;
      for (const event of stream.frames.map((f) => eventOf(v1Rest, f))) {
        const real = agent.tasks.get(taskIdOf(event));
        if (real === undefined || real.id === own) continue;
        borrowed++;
        expect([real.contextId, ownContext]).toContain(event.raw['contextId']);
      }
      expect(agent.tasks.get(own)!.state).toBe('completed');
    }
    expect(borrowed).toBeGreaterThan(0);
  });
});

describe('streamError: an error frame at a seeded event, then the end; the task runs on', () => {
  it.each([
    [v1JsonRpc, (data: Json) => data['error'].code],
    [v03JsonRpc, (data: Json) => data['error'].code],
    [v1Rest, (data: Json) => data['error'].status],
    [v03Rest, (data: Json) => data['code']],
  ] as const)('$name', async (combo, codeOf) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'stream updates=3 chunks=3 delayMs=2 misbehave=streamError mbErrorAt=4 mbCode=-32050');
    expect(stream.status).toBe(200);
    expect(stream.frames).toHaveLength(4);
    expect(stream.frames.slice(0, 3).every((f) => f.event === undefined)).toBe(true);
    const error = stream.frames[3]!;
    expect(error.event).toBe('error');
    expect(codeOf(error.data)).toBe(combo.binding === 'HTTP+JSON' && combo.version === '1.0' ? 'INTERNAL' : -32050);
    const own = createdTaskId(combo, stream);
    await settled(agent, own);
    expect(agent.tasks.get(own)).toMatchObject({ state: 'completed', eventCount: 8 });
  });

  it('the default code is -32603, with a JSON-RPC envelope that names the request id', async () => {
    const agent = await start();
    const stream = await openStream(v1JsonRpc, agent, 'stream updates=3 chunks=3 delayMs=1 misbehave=streamError mbSeed=1');
    const error = stream.frames.at(-1)!;
    expect(error.event).toBe('error');
    expect(error.data).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32603 } });
    expect(stream.frames.length).toBeGreaterThanOrEqual(2);
    expect(stream.frames.length).toBeLessThanOrEqual(4);
  });
});

describe('noErrorInfo: v1.0 HTTP+JSON error frames without details', () => {
  it('a google.rpc.Status with its HTTP code and status name only; other dialects unchanged', async () => {
    const agent = await start();
    const text = 'stream updates=1 chunks=2 delayMs=2 misbehave=streamError,noErrorInfo mbErrorAt=3 mbCode=-32001';
    const rest = (await openStream(v1Rest, agent, text)).frames.at(-1)!;
    expect(rest.event).toBe('error');
    expect(rest.data).toEqual({ error: { code: 404, status: 'NOT_FOUND', message: expect.any(String), details: [] } });
    const rpcFrame = (await openStream(v1JsonRpc, agent, text)).frames.at(-1)!;
    expect(rpcFrame.data['error']).toMatchObject({ code: -32001 });
  });
});

describe('refuseSubscribe: refused before any event', () => {
  const cases = [
    { refuse: -32601, rpc: { status: 200, code: -32601 }, rest: { status: 404, json: true } },
    { refuse: -32004, rpc: { status: 200, code: -32004 }, rest: { status: 400, json: true } },
    { refuse: 404, rpc: { status: 404 }, rest: { status: 404, json: false } },
    { refuse: 405, rpc: { status: 405 }, rest: { status: 405, json: false } },
    { refuse: 501, rpc: { status: 501 }, rest: { status: 501, json: false } },
  ] as const;

  it.each(cases)('mbRefuse=$refuse on every combination', async ({ refuse, rpc: rpcAnswer, rest: restAnswer }) => {
    const agent = await start();
    const id = await startTask(agent, `slow steps=4 delayMs=20 misbehave=refuseSubscribe mbRefuse=${refuse}`);
    for (const combo of COMBOS) {
      const answer = await readStream(await combo.subscribe(agent, id));
      expect(answer.contentType, combo.name).not.toContain('text/event-stream');
      if (combo.binding === 'JSONRPC') {
        expect(answer.status, combo.name).toBe(rpcAnswer.status);
        if ('code' in rpcAnswer) expect((JSON.parse(answer.text) as Json)['error'].code, combo.name).toBe(rpcAnswer.code);
        else expect(answer.text, combo.name).not.toContain('jsonrpc');
      } else {
        expect(answer.status, combo.name).toBe(restAnswer.status);
        const isA2A = answer.contentType.includes('json') && /-3200\d|-32601|NOT_FOUND|FAILED_PRECONDITION/.test(answer.text);
        expect(isA2A, `${combo.name}: ${answer.text}`).toBe(restAnswer.json);
      }
    }
    // GetTask is unaffected and the task finishes.
    expect((await v1Rest.get(agent, id)).http.status).toBe(200);
    await settled(agent, id);
  });

  it('a task without it on the same agent subscribes normally', async () => {
    const agent = await start();
    await startTask(agent, 'slow steps=6 delayMs=25 misbehave=refuseSubscribe');
    const id = await startTask(agent, 'slow steps=6 delayMs=25');
    const sub = await readStream(await v1JsonRpc.subscribe(agent, id));
    expect(sub.frames.length).toBeGreaterThan(1);
    expect(eventOf(v1JsonRpc, sub.frames.at(-1)!).state).toBe('completed');
  });
});

describe('refuseSubscribe with -32602 / -32603: an A2A error that is not a "cannot subscribe"', () => {
  it.each([-32602, -32603] as const)('mbRefuse=%s on every combination (v1.0 HTTP+JSON: a status without ErrorInfo)', async (refuse) => {
    const agent = await start();
    const id = await startTask(agent, `slow steps=4 delayMs=20 misbehave=refuseSubscribe mbRefuse=${refuse}`);
    const restV1 = refuse === -32602 ? { status: 400, name: 'INVALID_ARGUMENT' } : { status: 500, name: 'INTERNAL' };
    for (const combo of COMBOS) {
      const answer = await readStream(await combo.subscribe(agent, id));
      expect(answer.contentType, combo.name).not.toContain('text/event-stream');
      const body = JSON.parse(answer.text) as Json;
      if (combo.binding === 'JSONRPC') {
        expect(answer.status, combo.name).toBe(200);
        expect(body['error'].code, combo.name).toBe(refuse);
      } else if (combo.version === '1.0') {
        expect(answer.status, combo.name).toBe(restV1.status);
        expect(body['error'], combo.name).toMatchObject({ code: restV1.status, status: restV1.name, details: [] });
      } else {
        expect(body['code'], combo.name).toBe(refuse);
      }
    }
    await settled(agent, id);
  });
});

describe('refuseFinished: a subscription to a finished task refused as the reference Python server does', () => {
  it('v1.0 -32602 (HTTP+JSON: 400 INVALID_ARGUMENT without ErrorInfo), v0.3 -32603; a running task subscribes as usual', async () => {
    const agent = await start();
    const id = await startTask(agent, 'slow steps=3 delayMs=30 misbehave=refuseFinished');
    const running = await readStream(await v1JsonRpc.subscribe(agent, id));
    expect(eventOf(v1JsonRpc, running.frames.at(-1)!).state).toBe('completed');
    await settled(agent, id);
    const answers: Record<string, unknown> = {};
    for (const combo of COMBOS) {
      const answer = await readStream(await combo.subscribe(agent, id));
      expect(answer.contentType, combo.name).not.toContain('text/event-stream');
      const body = JSON.parse(answer.text) as Json;
      answers[combo.name] = combo.binding === 'JSONRPC' ? body['error'].code : combo.version === '1.0' ? `${answer.status} ${body['error'].status} ${JSON.stringify(body['error'].details)}` : `${answer.status} ${body['code']}`;
    }
    expect(answers).toEqual({ 'v1 JSON-RPC': -32602, 'v1 HTTP+JSON': '400 INVALID_ARGUMENT []', 'v0.3 JSON-RPC': -32603, 'v0.3 HTTP+JSON': '500 -32603' });
  });
});

describe('resetStream: the connection is reset at event mbResetAt; the task runs on', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the events before it, then a reset (no clean end); a later subscription is served', async (_, combo) => {
    const agent = await start();
    const error = await openStream(combo, agent, 'stream updates=0 chunks=4 delayMs=10 misbehave=resetStream mbResetAt=3').then(
      () => undefined,
      (e: unknown) => e,
    );
    // The body broke: fetch's reader fails (a clean end would have resolved).
    expect(String((error as Error | undefined)?.cause ?? error)).toMatch(/ECONNRESET|terminated|socket/i);
    const [task] = agent.tasks.list();
    expect(task).toBeDefined();
    await settled(agent, task!.id);
    expect(agent.tasks.get(task!.id)).toMatchObject({ state: 'completed', eventCount: 6 });
  });
});

describe('cutCancel: CancelTask is carried out, its answer never arrives', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the connection is reset; the task is canceled', async (_, combo) => {
    const agent = await start();
    const id = await startTask(agent, 'slow steps=40 delayMs=20 misbehave=cutCancel');
    const error = await combo.cancel(agent, id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((error as Error | undefined)?.cause ?? error)).toMatch(/ECONNRESET|socket|other side closed/i);
    await settled(agent, id);
    expect(agent.tasks.get(id)?.state).toBe('canceled');
  });
});

describe('stale: GetTask sometimes shows the task a few events back', () => {
  /** What a `slow` task shows: the step of its status text and the number of artifact parts. */
  function progress(combo: Combo, task: Json): { step: number; parts: number } {
    const message = task['status'].message as Json | undefined;
    const step = Number(/step (\d+)/.exec(message === undefined ? '' : combo.messageText(message))?.[1] ?? 0);
    const artifact = (task['artifacts'] as Json[] | undefined)?.[0];
    return { step, parts: (artifact?.['parts'] as Json[] | undefined)?.length ?? 0 };
  }

  it.each([v1Rest, v03JsonRpc].map((c) => [c.name, c] as const))('%s: older answers while running, exact once terminal', async (_, combo) => {
    const agent = await start();
    // mbSeed=2 makes the first five GetTask answers stale (the draw is per call, not per moment).
    const id = await startTask(agent, 'slow steps=8 delayMs=40 misbehave=stale mbSeed=2 mbStaleBack=3');
    await until(() => (agent.tasks.get(id)?.eventCount ?? 0) >= 6);
    let older = 0;
    for (let call = 0; call < 12; call++) {
      const record = agent.tasks.get(id)!;
      if (record.state !== 'working') break;
      const before = { step: Number(/step (\d+)/.exec(JSON.stringify(record.statusMessage ?? ''))?.[1] ?? 0), parts: record.artifacts[0]?.parts.length ?? 0 };
      const { result } = await combo.get(agent, id);
      const seen = progress(combo, result!);
      if (seen.step < before.step || seen.parts < before.parts) older++;
    }
    expect(older).toBeGreaterThan(0);
    await settled(agent, id);
    const final = agent.tasks.get(id)!;
    for (let call = 0; call < 6; call++) {
      const { result } = await combo.get(agent, id);
      expect(kebab(result!['status'].state)).toBe('completed');
      expect(progress(combo, result!).parts).toBe(final.artifacts[0]!.parts.length);
    }
  });
});

describe('lose: the agent forgets the task', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the open stream ends cleanly after mbLoseAfter events; then -32001 everywhere', async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'slow steps=4 delayMs=5 misbehave=lose mbLoseAfter=3');
    expect(stream.frames).toHaveLength(3);
    expect(stream.frames.every((f) => f.event === undefined)).toBe(true);
    const id = createdTaskId(combo, stream);
    expect(agent.tasks.get(id)!.lost).toBe(true);
    const notFound = combo.binding === 'JSONRPC' ? -32001 : 404;
    expect(combo.errorCode((await combo.get(agent, id)).http)).toBe(notFound);
    expect(combo.errorCode((await combo.cancel(agent, id)).http)).toBe(notFound);
    const sub = await combo.subscribe(agent, id);
    const body = (await sub.json()) as Json;
    expect(combo.binding === 'JSONRPC' ? body['error'].code : sub.status).toBe(notFound);
  });

  it('a lost task is not listed', async () => {
    const agent = await start();
    const id = await startTask(agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=lose mbLoseAfter=2');
    await until(() => agent.tasks.get(id)?.lost === true);
    const { body } = await rpc(agent, 'ListTasks', {}, { version: '1.0' });
    expect((body['result'].tasks as Json[]).map((t) => t['id'])).not.toContain(id);
    expect(body['result'].totalSize).toBe(0);
  });
});

describe('terminalViaGet: streams never show the terminal state', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the stream ends just before it; GetTask and a v0.3 subscription show it', async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=terminalViaGet');
    const events = stream.frames.map((f) => eventOf(combo, f));
    expect(events).toHaveLength(5);
    expect(events.map((e) => e.state).filter((s) => s !== undefined)).toEqual(['submitted', 'working', 'working']);
    const id = createdTaskId(combo, stream);
    await settled(agent, id);
    const { result } = await combo.get(agent, id);
    expect(kebab(result!['status'].state)).toBe('completed');
    const sub = await readStream(await combo.subscribe(agent, id));
    if (combo.version === '0.3') {
      expect(describeAll(combo, sub)).toEqual(['task completed']);
    } else {
      expect(combo.errorCode({ status: sub.status, headers: new Headers(), body: JSON.parse(sub.text) as Json })).toBe(combo.binding === 'JSONRPC' ? -32004 : 400);
    }
  });

  it('a v1 follow-up stream (input-required answered) ends before the terminal snapshot or status', async () => {
    const agent = await start();
    const first = await openStream(v1JsonRpc, agent, 'input misbehave=terminalViaGet');
    const id = createdTaskId(v1JsonRpc, first);
    expect(eventOf(v1JsonRpc, first.frames.at(-1)!).state).toBe('input-required');
    const contextId = agent.tasks.get(id)!.contextId;
    const second = await openStream(v1JsonRpc, agent, 'blue', { taskId: id, contextId });
    expect(describeAll(v1JsonRpc, second).some((line) => line.includes('completed'))).toBe(false);
    expect(second.frames.length).toBeGreaterThan(0);
    await settled(agent, id);
    expect(kebab((await v1JsonRpc.get(agent, id)).result!['status'].state)).toBe('completed');
  });
});

describe("stalePause: an answer's stream opens with the task still at its pause", () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the pause and its question first, the answer last in its history; then what the answer caused', async (_, combo) => {
    const agent = await start();
    const first = await openStream(combo, agent, 'input misbehave=stalePause');
    const id = createdTaskId(combo, first);
    expect(eventOf(combo, first.frames.at(-1)!).state).toBe('input-required');
    const contextId = agent.tasks.get(id)!.contextId;
    const second = await openStream(combo, agent, 'blue', { taskId: id, contextId });
    expect(describeAll(combo, second)).toEqual(['task input-required', 'status working', 'artifact got: blue', 'status completed']);
    expect(JSON.stringify(eventOf(combo, second.frames[0]!).raw['status'])).toContain('need input');
    expect(JSON.stringify((eventOf(combo, second.frames[0]!).raw['history'] as Json[]).at(-1))).toContain('"blue"');
    // Without it, the v1.0 stream opens with the task already moved on (v0.3: with the next event).
    const plain = await openStream(combo, agent, 'input');
    const plainId = createdTaskId(combo, plain);
    const answered = await openStream(combo, agent, 'blue', { taskId: plainId, contextId: agent.tasks.get(plainId)!.contextId });
    expect(describeAll(combo, answered)[0]).toBe(combo.version === '1.0' ? 'task working' : 'status working');
  });
});

describe('afterTerminal: one more status after the terminal one', () => {
  it.each(COMBOS.map((c) => [c.name, c] as const))('%s', async (_, combo) => {
    const agent = await start();
    const stream = await openStream(combo, agent, 'fail misbehave=afterTerminal');
    const states = stream.frames.map((f) => eventOf(combo, f).state);
    expect(states).toEqual(['submitted', 'working', 'failed', 'working']);
    const id = createdTaskId(combo, stream);
    expect(agent.tasks.get(id)!.state).toBe('failed');
  });
});

describe('seeded and reproducible', () => {
  /** Replace ids (in order of first appearance) and timestamps, which differ from run to run by design. */
  function normalize(text: string): string {
    const ids = new Map<string, string>();
    return text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
        return ids.get(id) as string;
      })
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
  }

  const COMMAND = 'stream updates=3 chunks=4 delayMs=1 misbehave=rs,repeat,foreign,reuseMessageId,afterTerminal';

  it.each(COMBOS.map((c) => [c.name, c] as const))('%s: the same mbSeed gives byte-identical streams (ids and times aside); another seed does not', async (_, combo) => {
    const runs: string[] = [];
    for (const seed of [21, 21, 22]) {
      const agent = await start();
      const stream = await openStream(combo, agent, `${COMMAND} mbSeed=${seed}`);
      runs.push(normalize(stream.text));
      await agent.close();
    }
    expect(runs[0]).toContain(RS);
    expect(runs[0]).toContain('FOREIGN');
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).not.toBe(runs[0]);
  });
});

describe('selection', () => {
  it('an unknown misbehaviour or a bad parameter is an invalid-params error before any event', async () => {
    const agent = await start();
    const unknown = await openStream(v1JsonRpc, agent, 'stream misbehave=rs,teleport');
    expect(unknown.frames).toEqual([]);
    expect((JSON.parse(unknown.text) as Json)['error'].code).toBe(-32602);
    const refuse = await rest(agent, 'POST', '/message:send', { message: v1Message('slow misbehave=refuseSubscribe mbRefuse=418') }, V1_HEADERS);
    expect(refuse.status).toBe(400);
    expect(agent.tasks.list()).toEqual([]);
    expect(() => agent.setBehaviour({ misbehave: ['teleport' as never] })).toThrow(TypeError);
  });

  it('the catalogue names every misbehaviour this file (and generations.test.ts) checks', () => {
    expect([...MISBEHAVIOUR_NAMES].sort()).toEqual(
      [
        'rs',
        'replayClose',
        'repeat',
        'skewFuture',
        'skewPast',
        'skewRandom',
        'reuseMessageId',
        'foreign',
        'streamError',
        'refuseSubscribe',
        'refuseFinished',
        'stale',
        'lose',
        'terminalViaGet',
        'afterTerminal',
        'stalePause',
        'resetStream',
        'cutCancel',
        'noErrorInfo',
        'dropEvent',
        'replayOld',
        'zeroGeneration',
      ].sort(),
    );
  });

  it('two concurrent tasks on one agent misbehave each their own way', async () => {
    const agent = await start();
    const [odd, plain] = await Promise.all([
      openStream(v03Rest, agent, 'stream updates=2 chunks=2 delayMs=2 misbehave=repeat,afterTerminal mbSeed=4'),
      openStream(v03Rest, agent, 'stream updates=2 chunks=2 delayMs=2'),
    ]);
    expect(describeAll(v03Rest, plain)).toEqual(['task submitted', 'status working step 1', 'artifact chunk-1;', 'status working step 2', 'artifact chunk-2;', 'status completed']);
    expect(odd.frames.length).toBeGreaterThan(plain.frames.length + 3);
    expect(eventOf(v03Rest, odd.frames.at(-1)!).state).toBe('working');
  });
});

