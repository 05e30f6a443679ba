import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { COMBOS, readSse, startPushReceiver, until } from './helpers.js';
import type { PushReceiver } from './helpers.js';

// The same behaviours, checked over all four (version × binding) combinations with plain fetch.

let agent: TestAgent | undefined;
let receiver: PushReceiver | undefined;

afterEach(async () => {
  await agent?.close();
  await receiver?.close();
  agent = undefined;
  receiver = undefined;
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  agent = await startTestAgent(options);
  return agent;
}

describe.each(COMBOS)('$name', (combo) => {
  it('echo answers with a Message and creates no task', async () => {
    const a = await start();
    const { http, result } = await combo.send(a, 'hello there');
    expect(http.status).toBe(combo.binding === 'HTTP+JSON' && combo.version === '0.3' ? 201 : 200);
    const message = combo.messageOfSend(result!);
    expect(message).toBeDefined();
    expect(combo.messageText(message!)).toBe('echo: hello there');
    expect(combo.taskOfSend(result!)).toBeUndefined();
    expect(a.tasks.list()).toEqual([]);
  });

  it('a blocking send of `stream` returns the completed task with the joined artifact', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'stream updates=2 chunks=3 delayMs=1');
    const task = combo.taskOfSend(result!)!;
    expect(task['status'].state).toMatch(/COMPLETED|completed/);
    const parts = task['artifacts'][0].parts as { text: string }[];
    expect(parts.map((p) => p.text).join('')).toBe('chunk-1;chunk-2;chunk-3;');
    expect(a.tasks.get(task['id'])?.state).toBe('completed');
  });

  it('a non-blocking send returns the task right after creation', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'slow steps=3 delayMs=5', { blocking: false });
    const task = combo.taskOfSend(result!)!;
    expect(task['status'].state).toMatch(/SUBMITTED|submitted/);
    await until(() => a.tasks.get(task['id'])?.state === 'completed');
  });

  it('streams the task, interleaved status and chunk events, and ends after completed', async () => {
    const a = await start();
    const { response, frames } = await combo.stream(a, 'stream updates=3 chunks=2 delayMs=1');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const events = frames.map((f) => combo.event(f));
    expect(events.map((e) => `${e.kind}${e.state === undefined ? '' : `:${e.state}`}`)).toEqual([
      'task:submitted',
      'status:working',
      'artifact',
      'status:working',
      'artifact',
      'status:working',
      'status:completed',
    ]);
    expect(events.filter((e) => e.kind === 'status').map((e) => e.text)).toEqual(['step 1', 'step 2', 'step 3', undefined]);
    expect(events.filter((e) => e.kind === 'artifact').map((e) => e.text)).toEqual(['chunk-1;', 'chunk-2;']);
    if (combo.binding === 'JSONRPC') {
      expect(frames.every((f) => f.data['jsonrpc'] === '2.0' && f.data['id'] === 7)).toBe(true);
    }
  });

  it('input: stops at input-required, a follow-up resumes it to completed', async () => {
    const a = await start();
    const first = await combo.send(a, 'input');
    const task = combo.taskOfSend(first.result!)!;
    expect(task['status'].state).toMatch(/INPUT_REQUIRED|input-required/);
    const followUp = await combo.send(a, 'blue', { taskId: task['id'], contextId: task['contextId'] });
    const done = combo.taskOfSend(followUp.result!)!;
    expect(done['status'].state).toMatch(/COMPLETED|completed/);
    expect(done['artifacts'][0].parts[0].text).toBe('got: blue');
    const record = a.tasks.get(task['id'])!;
    expect(record.history.filter((m) => m.role === 'user').map((m) => m.parts[0])).toEqual([
      { kind: 'text', text: 'input' },
      { kind: 'text', text: 'blue' },
    ]);
  });

  it('input over streams: the first stream ends at input-required, the follow-up stream ends completed', async () => {
    const a = await start();
    const first = await combo.stream(a, 'input');
    const events = first.frames.map((f) => combo.event(f));
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'input-required', text: 'need input' });
    const taskId = events[0]!.raw['id'] as string;
    const second = await combo.stream(a, 'green', { taskId });
    const next = second.frames.map((f) => combo.event(f));
    // v1 starts every stream with a Task snapshot; v0.3 follow-ups start with the next event.
    expect(next[0]!.kind).toBe(combo.version === '1.0' ? 'task' : 'status');
    expect(next.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    expect(next.some((e) => e.kind === 'artifact' && e.text === 'got: green')).toBe(true);
  });

  it('a follow-up to a task that is not interrupted is refused (-32004), an unknown task is -32001', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'fail');
    const task = combo.taskOfSend(result!)!;
    expect(task['status'].state).toMatch(/FAILED|failed/);
    const refused = await combo.send(a, 'more', { taskId: task['id'] });
    expect(combo.errorCode(refused.http)).toBe(combo.binding === 'JSONRPC' ? -32004 : 400);
    const unknown = await combo.send(a, 'more', { taskId: 'nope' });
    expect(combo.errorCode(unknown.http)).toBe(combo.binding === 'JSONRPC' ? -32001 : 404);
  });

  it('cancels a slow task and answers with the canceled task; a second cancel is -32002', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'slow steps=100 delayMs=10', { blocking: false });
    const id = combo.taskOfSend(result!)!['id'] as string;
    await until(() => (a.tasks.get(id)?.eventCount ?? 0) >= 3);
    const canceled = await combo.cancel(a, id);
    expect(canceled.http.status).toBe(combo.version === '0.3' && combo.binding === 'HTTP+JSON' ? 202 : 200);
    expect(canceled.result!['status'].state).toMatch(/CANCELED|CANCELLED|canceled/);
    expect(a.tasks.get(id)?.state).toBe('canceled');
    const again = await combo.cancel(a, id);
    expect(combo.errorCode(again.http)).toBe(
      combo.binding === 'JSONRPC' ? -32002 : combo.version === '1.0' ? 400 : 409,
    );
  });

  it('get returns the task and honours historyLength; unknown id is -32001', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'fail');
    const id = combo.taskOfSend(result!)!['id'] as string;
    const full = await combo.get(a, id);
    expect(full.result!['id']).toBe(id);
    expect(full.result!['history']).toHaveLength(2); // user message + "failed on purpose"
    const one = await combo.get(a, id, 1);
    expect(one.result!['history']).toHaveLength(1);
    const missing = await combo.get(a, 'missing');
    expect(combo.errorCode(missing.http)).toBe(combo.binding === 'JSONRPC' ? -32001 : 404);
  });

  it('stores push configs: create, get, list, delete', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'input');
    const taskId = combo.taskOfSend(result!)!['id'] as string;
    const created = await combo.pushCreate(a, taskId, 'http://127.0.0.1:1/hook', 'tok-1', 'cfg-1');
    expect(created.http.status).toBeLessThan(300);
    expect(combo.pushId(created.result!)).toBe('cfg-1');
    const fetched = await combo.pushGet(a, taskId, 'cfg-1');
    expect(combo.pushId(fetched.result!)).toBe('cfg-1');
    await combo.pushCreate(a, taskId, 'http://127.0.0.1:1/other', 'tok-2', 'cfg-2');
    expect(combo.pushIds((await combo.pushList(a, taskId)).result!)).toEqual(['cfg-1', 'cfg-2']);
    const deleted = await combo.pushDelete(a, taskId, 'cfg-1');
    expect(deleted.http.status).toBe(combo.binding === 'JSONRPC' ? 200 : 204);
    expect(combo.pushIds((await combo.pushList(a, taskId)).result!)).toEqual(['cfg-2']);
    expect(a.tasks.get(taskId)?.pushConfigs.map((c) => c.url)).toEqual(['http://127.0.0.1:1/other']);
  });

  it('delivers pushes to a webhook, one POST per event, with the token', async () => {
    const a = await start();
    receiver = await startPushReceiver();
    const { result } = await combo.send(a, 'stream updates=1 chunks=1 delayMs=1', {
      blocking: true,
      push: { url: receiver.url, token: 'secret-token' },
    });
    const taskId = combo.taskOfSend(result!)!['id'] as string;
    // Events: task, working, chunk, completed.
    await receiver.waitFor(4);
    const first = receiver.received[0]!;
    expect(first.headers['x-a2a-notification-token']).toBe('secret-token');
    if (combo.version === '1.0') {
      expect(first.headers['content-type']).toBe('application/a2a+json');
      expect(receiver.received.map((r) => Object.keys(r.body)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(receiver.received[3]!.body['statusUpdate'].status.state).toBe('TASK_STATE_COMPLETED');
    } else {
      expect(first.headers['content-type']).toBe('application/json');
      expect(receiver.received.every((r) => r.body['kind'] === 'task' && r.body['id'] === taskId)).toBe(true);
      expect(receiver.received.map((r) => r.body['status'].state)).toEqual(['submitted', 'working', 'working', 'completed']);
    }
    expect(a.pushFailures).toBe(0);
  });

  it('resubscribing mid-task follows it to the end (snapshot first for v1 only)', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'slow steps=6 delayMs=8', { blocking: false });
    const id = combo.taskOfSend(result!)!['id'] as string;
    await until(() => (a.tasks.get(id)?.eventCount ?? 0) >= 3);
    const response = await combo.subscribe(a, id);
    const events = (await readSse(response)).map((f) => combo.event(f));
    if (combo.version === '1.0') expect(events[0]).toMatchObject({ kind: 'task', state: 'working' });
    else expect(events[0]!.kind).not.toBe('task');
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('streaming off: stream and subscribe answer UnsupportedOperation before any SSE', async () => {
    const a = await start({ capabilities: { streaming: false } });
    const { response } = await combo.stream(a, 'stream');
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(a.tasks.list()).toEqual([]);
    const { result } = await combo.send(a, 'input');
    const subscribed = await combo.subscribe(a, combo.taskOfSend(result!)!['id'] as string);
    const body = (await subscribed.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (combo.binding === 'JSONRPC') expect(body['error'].code).toBe(-32004);
    else expect(subscribed.status).toBe(400);
  });

  it('push off: push config operations answer -32003', async () => {
    const a = await start({ capabilities: { pushNotifications: false } });
    const { result } = await combo.send(a, 'input');
    const created = await combo.pushCreate(a, combo.taskOfSend(result!)!['id'] as string, 'http://127.0.0.1:1/x', 't');
    expect(combo.errorCode(created.http)).toBe(combo.binding === 'JSONRPC' ? -32003 : 400);
    if (combo.binding === 'HTTP+JSON' && combo.version === '1.0') {
      expect(created.http.body['error'].details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  });

  it('stop()/start() keeps the task and its running scenario; a resubscribe after start follows it', async () => {
    const a = await start();
    const { result } = await combo.send(a, 'slow steps=8 delayMs=10', { blocking: false });
    const id = combo.taskOfSend(result!)!['id'] as string;
    const port = a.port;
    await a.stop();
    expect(a.listening).toBe(false);
    await expect(fetch(a.cardUrl)).rejects.toThrow();
    const eventsBefore = a.tasks.get(id)!.eventCount;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(a.tasks.get(id)!.eventCount).toBeGreaterThan(eventsBefore); // the scenario kept running
    await a.start();
    expect(a.port).toBe(port);
    const events = (await readSse(await combo.subscribe(a, id))).map((f) => combo.event(f));
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    expect((await combo.get(a, id)).result!['status'].state).toMatch(/COMPLETED|completed/);
  });
});
