import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPushReceiver, TetherError } from '../src/index.js';
import type { PushNotice, PushReceiver, PushReceiverOptions, TaskState } from '../src/index.js';
import { recorder, serve, settle, v03Task, v1Status } from './push/helpers.js';

const TOKEN = 'receiver-secret-token';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Partial<PushReceiverOptions> = {}): Promise<{ receiver: PushReceiver; url: string }> {
  const refused: TetherError[] = [];
  const receiver = createPushReceiver({ token: TOKEN, onRefused: (error) => refused.push(error), ...options });
  const server = await serve(receiver);
  cleanups.push(() => receiver.close(), server.close);
  return { receiver, url: server.url };
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', authorization: `Bearer ${TOKEN}`, ...headers },
    body,
  });
}

/** Records every notice of every task given, so a test can assert nothing was delivered. */
function watchAll(receiver: PushReceiver, taskIds: string[]): PushNotice[] {
  const all: PushNotice[] = [];
  for (const id of taskIds) receiver.subscribe(id, (notice) => void all.push(notice));
  return all;
}

describe('createPushReceiver options', () => {
  it('requires at least one authentication', () => {
    const error = (() => {
      try {
        createPushReceiver({});
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('INVALID_ARGUMENT');
    expect((error as TetherError).message).toMatch(/token, jwt, hmac/);
    expect((error as TetherError).message).not.toMatch(/undefined/);
    // `token: process.env['PUSH_TOKEN']` with the variable unset (issue 20): the message says so.
    expect(() => createPushReceiver({ token: undefined })).toThrow(/token is undefined: is the variable it was read from set\?/);
  });

  it('refuses symmetric or unsigned JWT algorithms and bad numbers', () => {
    const jwks = { keys: [] };
    expect(() => createPushReceiver({ jwt: { jwks, audience: 'a', algorithms: ['none'] } })).toThrow(/asymmetric/);
    expect(() => createPushReceiver({ jwt: { jwks, audience: 'a', algorithms: ['RS256', 'HS256'] } })).toThrow(/asymmetric/);
    expect(() => createPushReceiver({ token: 't', maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createPushReceiver({ token: '' })).toThrow(/token/);
  });
});

describe('push receiver with a token', () => {
  it('accepts the token as Bearer or in X-A2A-Notification-Token, answers 202 and delivers', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    const seen = recorder(receiver, 't1');

    const first = await post(url, v1Status('t1', 'working'));
    expect(first.status).toBe(202);
    const second = await post(url, v03Task('t1', 'completed'), {
      authorization: '',
      'x-a2a-notification-token': TOKEN,
      'content-type': 'application/json; charset=utf-8',
    });
    expect(second.status).toBe(202);
    await seen.next(2);
    expect(seen.notices.map((notice) => notice.status?.state)).toEqual(['working', 'completed']);
    expect(seen.notices[1]?.task?.id).toBe('t1');
    expect(seen.notices[1]?.event.kind).toBe('task');
  });

  it('refuses forged, missing and wrong-task tokens with 401, and delivers nothing', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    receiver.expect('t2', { token: 'task-2-token' });
    const all = watchAll(receiver, ['t1', 't2']);

    expect((await post(url, v1Status('t1', 'working'), { authorization: 'Bearer forged' })).status).toBe(401);
    expect((await post(url, v1Status('t1', 'working'), { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post(url, v1Status('t1', 'working'), { authorization: '' })).status).toBe(401);
    // t2 has its own token: the receiver-wide one opens no registration of t2 (404, as for a task nobody
    // registered: it says nothing about t2's token), and t2's does not open t1.
    expect((await post(url, v1Status('t2', 'working'))).status).toBe(404);
    expect((await post(url, v1Status('t1', 'working'), { authorization: 'Bearer task-2-token' })).status).toBe(401);
    await settle();
    expect(all).toEqual([]);
    expect(receiver.stats().pendingPushes).toBe(0);

    expect((await post(url, v1Status('t2', 'working'), { authorization: 'Bearer task-2-token' })).status).toBe(202);
  });

  it('a caller without a matching token is refused before its body is read or parsed (a forged push costs no parse)', async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    cleanups.push(() => receiver.close());
    receiver.expect('t1');
    receiver.expect('t2', { token: 'task-2-token' });
    const all = watchAll(receiver, ['t1', 't2']);
    // 256 KiB of nesting: JSON.parse alone costs tens of ms on it, for anybody who can reach the port.
    const nested = '['.repeat(128 * 1024) + ']'.repeat(128 * 1024);
    const forged = (token: string, body: BodyInit, headers: Record<string, string> = {}): Request =>
      new Request('http://127.0.0.1/hook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      let pulled = 0;
      const counted = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulled += 1;
            controller.enqueue(new TextEncoder().encode(nested));
            controller.close();
          },
        },
        { highWaterMark: 0 }, // pulled only when somebody reads
      );
      expect((await receiver.handle(forged('forged', counted))).status).toBe(401);
      expect(pulled).toBe(0); // a token header that matches nothing: the body is never read
      expect((await receiver.handle(forged('forged', '{"statusUpdate": '))).status).toBe(401); // 401, not 400
      expect((await receiver.handle(forged('forged', nested, { 'x-a2a-notification-token': 'forged' }))).status).toBe(401);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // Valid tokens still reach the parser, and their errors are the body's.
    expect((await receiver.handle(forged(TOKEN, '{"statusUpdate": '))).status).toBe(400);
    expect((await receiver.handle(forged('task-2-token', nested))).status).toBe(400);
    expect((await receiver.handle(forged('task-2-token', v1Status('t1', 'working')))).status).toBe(401); // t2's token is not t1's
    expect((await receiver.handle(forged('task-2-token', v1Status('t2', 'working')))).status).toBe(202);
    receiver.forget('t2');
    // A forgotten task's token opens nothing: for windowSec its late pushes are told the task is gone, unread.
    expect((await receiver.handle(forged('task-2-token', nested))).status).toBe(410);
    await settle();
    expect(all.map((notice) => notice.status?.state)).toEqual(['working']);
  });

  it('answers 415, 400, 404, 405 and 413 and delivers nothing', async () => {
    const { receiver, url } = await started({ maxBodyBytes: 1024 });
    receiver.expect('t1');
    const all = watchAll(receiver, ['t1']);

    expect((await post(url, v1Status('t1', 'working'), { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(url, v1Status('t1', 'working'), { 'content-type': '' })).status).toBe(415);
    expect((await post(url, '{"statusUpdate": ')).status).toBe(400);
    expect((await post(url, '{"hello":"world"}')).status).toBe(400);
    expect((await post(url, JSON.stringify({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } }))).status).toBe(400);
    expect((await post(url, v1Status('unknown-task', 'working'))).status).toBe(404);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
    const big = JSON.stringify({ statusUpdate: { taskId: 't1', contextId: 'x'.repeat(2000), status: { state: 'TASK_STATE_WORKING' } } });
    expect((await post(url, big)).status).toBe(413);
    await settle();
    expect(all).toEqual([]);
  });

  it('stops reading a chunked body past the limit (no Content-Length)', async () => {
    const { receiver, url } = await started({ maxBodyBytes: 1024 });
    receiver.expect('t1');
    const all = watchAll(receiver, ['t1']);
    const { hostname, port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ hostname, port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"statusUpdate":{"taskId":"t1","contextId":"');
      // Far more than the limit, in chunks, without ending: the answer must come before the end.
      for (let i = 0; i < 64; i += 1) req.write('x'.repeat(1024));
    });
    expect(status).toBe(413);
    await settle();
    expect(all).toEqual([]);
  });

  it('WHATWG handle(): a body that lies in Content-Length is cut at the limit', async () => {
    const receiver = createPushReceiver({ token: TOKEN, maxBodyBytes: 1024 });
    cleanups.push(() => receiver.close());
    receiver.expect('t1');
    const all = watchAll(receiver, ['t1']);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new TextEncoder().encode('x'.repeat(512)));
      },
    });
    const request = new Request('http://127.0.0.1/hook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '10', authorization: `Bearer ${TOKEN}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await receiver.handle(request);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10); // reading stopped right after the limit, not after 500 KB
    const ok = await receiver.handle(
      new Request('http://127.0.0.1/hook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: v1Status('t1', 'working'),
      }),
    );
    expect(ok.status).toBe(202);
    await settle();
    expect(all.map((notice) => notice.status?.state)).toEqual(['working']);
  });

  it('refuses a task whose history holds a message of another task with 409 (found in review)', async () => {
    const { receiver, url } = await started();
    receiver.expect('A');
    receiver.expect('B');
    const all = watchAll(receiver, ['A', 'B']);
    const foreign = { kind: 'message', messageId: 'm', role: 'agent', taskId: 'B', parts: [{ kind: 'text', text: 'of task B' }] };
    const task = { kind: 'task', id: 'A', contextId: 'c', status: { state: 'working' }, history: [foreign] };
    expect((await post(url, JSON.stringify(task))).status).toBe(409);
    const ownHistory = { ...task, history: [{ ...foreign, taskId: 'A' }] };
    expect((await post(url, JSON.stringify(ownHistory))).status).toBe(202);
    await settle();
    expect(all.map((notice) => notice.taskId)).toEqual(['A']);
  });

  it('refuses an event whose status message belongs to another task with 409', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    const all = watchAll(receiver, ['t1']);
    const body = JSON.stringify({
      statusUpdate: {
        taskId: 't1',
        contextId: 'c',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm1', role: 'ROLE_AGENT', taskId: 't9', parts: [{ text: 'hi' }] } },
      },
    });
    expect((await post(url, body)).status).toBe(409);
    await settle();
    expect(all).toEqual([]);
  });

  it('delivers a push sent twice once, and never moves a task back from a terminal state', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    const seen = recorder(receiver, 't1');
    expect((await post(url, v1Status('t1', 'working'))).status).toBe(202);
    expect((await post(url, v1Status('t1', 'working'))).status).toBe(200);
    expect((await post(url, v1Status('t1', 'completed'))).status).toBe(202);
    expect((await post(url, v1Status('t1', 'working', '2030-01-01T00:00:00Z'))).status).toBe(200);
    await seen.next(2);
    await settle();
    expect(seen.notices.map((notice) => notice.status?.state)).toEqual(['working', 'completed']);
  });

  it('a token push replayed byte for byte after other pushes, within windowSec, is a repeat: 200, not delivered (issue 16)', async () => {
    let nowMs = 1_900_000_000_000;
    const { receiver, url } = await started({ now: () => nowMs });
    receiver.expect('t1');
    const seen = recorder(receiver, 't1');
    const chunk = (i: number): string => JSON.stringify({ artifactUpdate: { taskId: 't1', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `chunk ${i}` }] }, append: true } });
    expect((await post(url, chunk(0))).status).toBe(202);
    for (let i = 1; i <= 40; i += 1) expect((await post(url, chunk(i))).status).toBe(202);
    nowMs += 299_000;
    expect((await post(url, chunk(0))).status).toBe(200); // 40 pushes and 299 s later: still a repeat
    await seen.next(1);
    await settle();
    expect(seen.notices.reduce((sum, notice) => sum + notice.pushes, 0)).toBe(41);
    // Past the window the body is no longer remembered: the same bytes are a new push.
    nowMs += 2_000;
    expect((await post(url, chunk(0))).status).toBe(202);
  });

  it('remembers at most maxRememberedBodies bodies per task, the oldest forgotten first', async () => {
    const { receiver, url } = await started({ maxRememberedBodies: 20 });
    receiver.expect('t1');
    receiver.expect('t2');
    const chunk = (taskId: string, i: number): string => JSON.stringify({ artifactUpdate: { taskId, contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `chunk ${i}` }] } } });
    for (let i = 0; i < 30; i += 1) expect((await post(url, chunk('t1', i))).status).toBe(202);
    for (let i = 0; i < 5; i += 1) expect((await post(url, chunk('t2', i))).status).toBe(202);
    expect(receiver.stats().rememberedBodies).toBe(25);
    expect((await post(url, chunk('t1', 29))).status).toBe(200);
    expect((await post(url, chunk('t1', 0))).status).toBe(202); // forgotten: past the bound
  });

  it('merges pushes that arrive while the subscriber is busy; older timestamps lose', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    const notices: PushNotice[] = [];
    let release: () => void = () => {};
    receiver.subscribe('t1', async (notice) => {
      notices.push(notice);
      if (notices.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    expect((await post(url, v1Status('t1', 'submitted', '2026-01-01T00:00:00Z'))).status).toBe(202);
    await settle();
    expect(notices).toHaveLength(1);
    expect((await post(url, v1Status('t1', 'working', '2026-01-01T00:00:02Z'))).status).toBe(202);
    expect((await post(url, v1Status('t1', 'input-required', '2026-01-01T00:00:03Z'))).status).toBe(202);
    expect((await post(url, v1Status('t1', 'working', '2026-01-01T00:00:01Z'))).status).toBe(200); // older: stale
    expect(receiver.stats()).toMatchObject({ heldNotices: 1, pendingPushes: 2 });
    release();
    await settle();
    expect(notices).toHaveLength(2);
    expect(notices[1]).toMatchObject({ taskId: 't1', pushes: 2, status: { state: 'input-required' } });
    expect(receiver.stats()).toMatchObject({ heldNotices: 0, pendingPushes: 0 });
  });

  it('keeps a notice for a task nobody subscribed to yet, and drops it on forget', async () => {
    const { receiver, url } = await started();
    receiver.expect('t1');
    expect((await post(url, v1Status('t1', 'working'))).status).toBe(202);
    expect(receiver.stats()).toMatchObject({ heldNotices: 1, pendingPushes: 1 });
    const seen = recorder(receiver, 't1');
    await seen.next(1);
    expect(seen.notices[0]?.status?.state).toBe('working');
    receiver.expect('t2');
    expect((await post(url, v1Status('t2', 'working'))).status).toBe(202);
    receiver.forget('t2');
    expect(receiver.stats()).toMatchObject({ tasks: 1, heldNotices: 0, pendingPushes: 0 });
    expect((await post(url, v1Status('t2', 'working'))).status).toBe(404);
  });

  it('a flood of 5,000 pushes for 10 tasks and a stuck subscriber: 429 beyond each task’s bound, O(tasks) held, latest state delivered', async () => {
    const maxPendingPerTask = 100;
    const receiver = createPushReceiver({ token: TOKEN, maxPendingPerTask });
    cleanups.push(() => receiver.close());
    const tasks = Array.from({ length: 10 }, (_, i) => `task-${i}`);
    const latest = new Map<string, TaskState | undefined>();
    let stuck = true;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    for (const id of tasks) {
      receiver.expect(id);
      receiver.subscribe(id, async (notice) => {
        latest.set(id, notice.status?.state);
        if (stuck) await gate;
      });
    }
    // 500 pushes per task, interleaved: 499 distinct working statuses, then completed.
    const bodies: string[] = [];
    for (let step = 0; step < 500; step += 1) {
      for (const id of tasks) {
        const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, step)).toISOString();
        bodies.push(v1Status(id, step === 499 ? 'completed' : 'working', at));
      }
    }
    const send = (body: string): Promise<Response> =>
      receiver.handle(
        new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/a2a+json', authorization: `Bearer ${TOKEN}` }, body }),
      );
    let refused: string[] = [];
    let accepted = 0;
    let maxHeld = 0;
    for (let i = 0; i < bodies.length; i += 100) {
      const batch = bodies.slice(i, i + 100);
      const answers = await Promise.all(batch.map(send));
      answers.forEach((answer, j) => {
        if (answer.status === 202) accepted += 1;
        else if (answer.status === 429) {
          expect(answer.headers.get('retry-after')).toBe('1');
          refused.push(batch[j] as string);
        } else throw new Error(`unexpected status ${answer.status}`);
      });
      maxHeld = Math.max(maxHeld, receiver.stats().heldNotices);
    }
    // The first notice of each task was handed to the (stuck) listener; the rest wait, merged.
    expect(accepted).toBe(tasks.length * (1 + maxPendingPerTask));
    expect(refused).toHaveLength(bodies.length - accepted);
    expect(maxHeld).toBeLessThanOrEqual(tasks.length);
    expect(receiver.stats()).toMatchObject({ heldNotices: tasks.length, pendingPushes: tasks.length * maxPendingPerTask });

    // The subscriber catches up; the sender retries what was refused (as Retry-After asks), in order.
    stuck = false;
    release();
    for (let round = 0; round < 20 && refused.length > 0; round += 1) {
      await settle(10);
      const again: string[] = [];
      for (const body of refused) {
        const answer = await send(body);
        if (answer.status === 429) again.push(body);
        else expect([200, 202]).toContain(answer.status);
      }
      refused = again;
    }
    expect(refused).toEqual([]);
    await settle(10);
    for (const id of tasks) expect(latest.get(id)).toBe('completed');
    expect(receiver.stats()).toMatchObject({ heldNotices: 0, pendingPushes: 0 });
  });
});
