import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createPushReceiver } from '@a2a-tether/node';
import type { Binding, ProtocolVersion, PushNotice, PushReceiver, TetherError } from '@a2a-tether/node';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// The official @a2a-js/sdk servers (1.3.0 = A2A v1.0, 0.3.14 = A2A v0.3) push to Tether's receiver
// on 127.0.0.1. Both send a config's `token` in `X-A2A-Notification-Token`, accept any 2xx, and
// never retry: v1 posts one StreamResponse per event, v0.3 the whole Task after each event.

const TEST_TIMEOUT = 15_000;
const RECEIVER_TOKEN = 'receiver-wide-token-unused-by-agents';

let v1: OfficialServer;
let v03: OfficialServer;
let receiver: PushReceiver;
let hookOrigin: string;
const refusals: TetherError[] = [];
let closeHooks: () => Promise<void>;

beforeAll(async () => {
  [v1, v03] = await Promise.all([startOfficialV1Server(), startOfficialV03Server()]);
  receiver = createPushReceiver({ token: RECEIVER_TOKEN, onRefused: (error) => void refusals.push(error) });
  const server = createServer(receiver.nodeHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeHooks = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});
afterAll(async () => {
  // Agents first: a push still in flight then finds the receiver up.
  await Promise.all([v1?.close(), v03?.close()]);
  receiver?.close();
  await closeHooks?.();
});

/** Resolves with the first notice `accept` likes; rejects after `withinMs` (bounded wait). */
function noticeWhere(taskId: string, accept: (notice: PushNotice) => boolean, withinMs = 5_000): Promise<PushNotice[]> {
  const seen: PushNotice[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no matching notice for ${taskId} within ${withinMs} ms; saw ${JSON.stringify(seen.map((n) => n.status?.state))}`));
    }, withinMs);
    const unsubscribe = receiver.subscribe(taskId, (notice) => {
      seen.push(notice);
      if (accept(notice)) {
        clearTimeout(timer);
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

interface Combo {
  name: string;
  server: () => OfficialServer;
  version: ProtocolVersion;
  binding: Binding;
}

const combos: Combo[] = [
  { name: 'v1 JSON-RPC', server: () => v1, version: '1.0', binding: 'JSONRPC' },
  { name: 'v1 HTTP+JSON', server: () => v1, version: '1.0', binding: 'HTTP+JSON' },
  { name: 'v0.3 JSON-RPC', server: () => v03, version: '0.3', binding: 'JSONRPC' },
  { name: 'v0.3 HTTP+JSON', server: () => v03, version: '0.3', binding: 'HTTP+JSON' },
];

describe.each(combos)('official $name server pushing to the receiver', (combo) => {
  /**
   * Streams `stream updates=2 chunks=3` with an inline push config carrying `sentToken`; expects
   * the task (with `expectedToken`) as soon as its id is known. The first push or two may race the
   * stream's first event and be refused (401: the task's token opens nothing before it is expected);
   * the scenario's 100 ms steps leave the rest to arrive afterwards.
   */
  async function run(path: string, sentToken: string, expectedToken: string): Promise<{ taskId: string }> {
    const client = await connect(combo.server().cardUrl, {
      preferredBindings: [combo.binding],
      protocolVersions: [combo.version],
      cardCache: false,
    });
    const url = `${hookOrigin}${path}`;
    let taskId = '';
    for await (const event of client.streamMessage('stream updates=2 chunks=3 delayMs=100', {
      pushNotification: { id: 'hook', url, token: sentToken },
    })) {
      const id = event.kind === 'task' ? event.id : event.taskId;
      if (taskId === '' && id !== undefined && id !== '') {
        taskId = id;
        receiver.expect(taskId, { token: expectedToken });
      }
    }
    expect(taskId).not.toBe('');
    return { taskId };
  }

  it('verifies the token and the subscriber sees the task reach completed', async () => {
    const token = `tok-${combo.version}-${combo.binding}`;
    const path = `/ok/${combo.version}/${combo.binding}`;
    const { taskId } = await run(path, token, token);
    // Pushes that arrived before this subscription wait for it, merged into one notice.
    const seen = await noticeWhere(taskId, (notice) => notice.status?.state === 'completed');
    expect(seen.at(-1)?.status?.state).toBe('completed');
    expect(seen.every((notice) => notice.taskId === taskId)).toBe(true);
    if (combo.version === '0.3') expect(seen.at(-1)?.task?.id).toBe(taskId); // v0.3 pushes the whole task
    // Nothing for this task was refused for its credentials once its body was read.
    expect(refusals.filter((error) => error.taskId === taskId && error.status === 401)).toEqual([]);
    receiver.forget(taskId);
  }, TEST_TIMEOUT);

  it('refuses the pushes of a config whose token is wrong, and delivers none', async () => {
    const path = `/bad/${combo.version}/${combo.binding}`;
    const before = refusals.length;
    const { taskId } = await run(path, 'wrong-token', `right-${combo.version}-${combo.binding}`);
    const delivered: PushNotice[] = [];
    receiver.subscribe(taskId, (notice) => void delivered.push(notice));
    // The stream has ended, so the agent has sent the completed push (senders post in order per task).
    // A token that opens no task is refused before the body is read, so the refusal names no task:
    // the refusals of this test are those since it began (the tests of this file run one at a time).
    const deadline = Date.now() + 3_000;
    while (!refusals.slice(before).some((error) => error.status === 401) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const mine = refusals.slice(before);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((error) => error.code === 'PUSH_REFUSED' && (error.status === 401 || error.status === 404))).toBe(true);
    expect(mine.some((error) => error.status === 401)).toBe(true);
    expect(delivered).toEqual([]);
    expect(receiver.stats().pendingPushes).toBe(0);
    receiver.forget(taskId);
  }, TEST_TIMEOUT);
});

describe.each(combos)('Tether follows a task by push on the official $name server', (combo) => {
  it('delivery auto: the webhook goes with the send, no SSE stream opens, done() has the agent\'s artifacts', async () => {
    const requests: string[] = [];
    const client = await connect(combo.server().cardUrl, {
      preferredBindings: [combo.binding],
      protocolVersions: [combo.version],
      cardCache: false,
      push: { receiver, url: `${hookOrigin}/tether/${combo.binding}/${combo.version}`, safetyPollMs: 60_000 },
      fetch: (input, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
        requests.push(`${init?.method ?? 'GET'} ${String(input)} ${body?.method ?? ''}`);
        return fetch(input, init);
      },
    });
    const handle = await client.start('stream updates=2 chunks=3 delayMs=100');
    const states: string[] = [];
    const connections: string[] = [];
    for await (const event of handle.events()) {
      if (event.type === 'status') states.push(event.state);
      if (event.type === 'connection') connections.push(event.state);
    }
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(final.artifacts.map((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).join('')).toBe('chunk-0;chunk-1;chunk-2;');
    expect(states.at(-1)).toBe('completed');
    expect(connections).toContain('waiting-push');
    // No stream was opened: every send and read was unary.
    expect(requests.filter((r) => /message:stream|:subscribe|SendStreamingMessage|SubscribeToTask|message\/stream|tasks\/resubscribe/.test(r))).toEqual([]);
    // The pushes, not a fast poll, brought the updates: far fewer GetTasks than the task's events.
    const gets = requests.filter((r) => /GetTask|tasks\/get|\/tasks\/[^/:]+$/.test(r)).length;
    expect(gets).toBeGreaterThanOrEqual(1);
    expect(gets).toBeLessThanOrEqual(8);
  }, TEST_TIMEOUT);
});

describe('pushes that come before the task id is known, in one process (issue 33)', () => {
  // The official v1 server pushes as it creates a task, before the answer to the send names it. With the safety
  // poll at 10 minutes, a task completes only through its pushes; an early push answered 404 or 401 would be lost.
  const TASKS = 60;

  it(`${TASKS} tasks by push at once: no push refused for coming early, every task exact`, async () => {
    const statuses: number[] = [];
    const refused: TetherError[] = [];
    const own = createPushReceiver({ token: RECEIVER_TOKEN, onRefused: (error) => void refused.push(error) });
    const server = createServer((req, res) => {
      res.on('finish', () => statuses.push(res.statusCode));
      own.nodeHandler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/early`;
      const client = await connect(v1.cardUrl, { cardCache: false, push: { receiver: own, url, safetyPollMs: 10 * 60_000 } });
      const finished = await Promise.all(
        Array.from({ length: TASKS }, async () => {
          const handle = await client.start('stream updates=2 chunks=3 delayMs=150', { delivery: 'push' });
          const task = await handle.done();
          return `${task.status.state} ${task.artifacts.flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('')}`;
        }),
      );
      expect(finished.filter((line) => line !== 'completed chunk-0;chunk-1;chunk-2;')).toEqual([]);
      // Quiet first: the agent's last pushes of finished tasks.
      for (let seen = -1; seen !== statuses.length; ) {
        seen = statuses.length;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const counts = Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length]));
      console.info(`${TASKS} tasks by push in one process: ${statuses.length} pushes, statuses ${JSON.stringify(counts)}`);
      // 410: a push that came after its task's follow ended (the agent pushes its last states as the client reads them).
      expect(statuses.filter((s) => s !== 202 && s !== 200 && s !== 410)).toEqual([]);
      expect(refused.filter((error) => error.status !== 410)).toEqual([]);
      expect(own.stats()).toMatchObject({ tasks: 0, earlyPushes: 0 });
    } finally {
      own.close();
      server.closeAllConnections();
      server.close();
    }
  }, 60_000);
});
