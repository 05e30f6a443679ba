import { createHmac, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPushReceiver } from '../src/index.js';
import type { PushNotice, PushReceiver } from '../src/index.js';
import { serve, settle, v1Status } from './push/helpers.js';

const NOW_SEC = 1_800_000_000;
const KEY = randomBytes(32);
const SECRET = `whsec_${KEY.toString('base64')}`;

let receiver: PushReceiver;
let url: string;
let stop: () => Promise<void>;
const delivered: PushNotice[] = [];

beforeAll(async () => {
  receiver = createPushReceiver({ hmac: { secret: SECRET }, now: () => NOW_SEC * 1000 });
  ({ url, close: stop } = await serve(receiver));
  receiver.expect('t1');
  receiver.subscribe('t1', (notice) => void delivered.push(notice));
});
afterAll(async () => {
  receiver.close();
  await stop();
});

function signed(id: string, timestamp: number, body: string, key: Buffer = KEY): Record<string, string> {
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

async function refusedWith(status: number, body: string, headers: Record<string, string>): Promise<void> {
  const before = delivered.length;
  expect((await post(body, headers)).status).toBe(status);
  await settle();
  expect(delivered.length).toBe(before);
}

describe('push receiver with Standard Webhooks HMAC signatures', () => {
  it('accepts a valid signature (also among several during key rotation)', async () => {
    const body = v1Status('t1', 'working');
    expect((await post(body, signed('msg-1', NOW_SEC, body))).status).toBe(202);
    const body2 = v1Status('t1', 'input-required');
    const good = signed('msg-2', NOW_SEC - 10, body2);
    const old = signed('msg-2', NOW_SEC - 10, body2, randomBytes(32));
    const headers = { ...good, 'webhook-signature': `${old['webhook-signature']} ${good['webhook-signature']}` };
    expect((await post(body2, headers)).status).toBe(202);
    await settle();
    expect(delivered.map((notice) => notice.status?.state)).toEqual(['working', 'input-required']);
  });

  it('refuses a wrong key, a tampered body, a stale or future timestamp, a missing id', async () => {
    const body = v1Status('t1', 'completed');
    await refusedWith(401, body, signed('msg-3', NOW_SEC, body, randomBytes(32)));
    await refusedWith(401, v1Status('t1', 'failed'), signed('msg-4', NOW_SEC, body));
    await refusedWith(401, body, signed('msg-5', NOW_SEC - 301, body));
    await refusedWith(401, body, signed('msg-6', NOW_SEC + 301, body));
    await refusedWith(401, body, { ...signed('', NOW_SEC, body) });
    await refusedWith(401, body, { ...signed('msg-7', NOW_SEC, body), 'webhook-signature': 'v2,abc' });
  });

  it('a forged signature is refused before the body is parsed: 401 for a body that is not even JSON', async () => {
    const nested = '['.repeat(64 * 1024) + ']'.repeat(64 * 1024);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const body of [nested, '{"statusUpdate": ']) {
        const response = await receiver.handle(
          new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...signed('msg-9', NOW_SEC, body, randomBytes(32)) }, body }),
        );
        expect(response.status).toBe(401);
      }
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // Signed with the right key, the same bodies are the body's errors (400).
    const response = await receiver.handle(
      new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...signed('msg-10', NOW_SEC, nested) }, body: nested }),
    );
    expect(response.status).toBe(400);
  });

  it('a repeated webhook-id: a retry of the same push is acknowledged once; another body under it is refused (409)', async () => {
    const body = v1Status('t1', 'completed', '2027-01-01T00:00:00Z');
    const headers = signed('msg-8', NOW_SEC, body);
    const before = delivered.length;
    expect((await post(body, headers)).status).toBe(202);
    expect((await post(body, headers)).status).toBe(200);
    const other = JSON.stringify({ artifactUpdate: { taskId: 't1', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } });
    await refusedWith(409, other, signed('msg-8', NOW_SEC, other));
    await settle();
    expect(delivered.length).toBe(before + 1);
    expect(receiver.stats().replayIds).toBeGreaterThan(0);
  });

  it('checks webhook-id and webhook-timestamp before reading the body: a stale, future, malformed or missing one costs no read (issue 16)', async () => {
    const body = v1Status('t1', 'working');
    const good = signed('msg-early', NOW_SEC, body);
    const cases: Record<string, string>[] = [
      { ...good, 'webhook-timestamp': String(NOW_SEC - 301) },
      { ...good, 'webhook-timestamp': String(NOW_SEC + 301) },
      { ...good, 'webhook-timestamp': '17e8' },
      { ...good, 'webhook-timestamp': '' },
      { ...good, 'webhook-id': '' },
      { ...good, 'webhook-id': 'x'.repeat(257) },
    ];
    for (const headers of cases) {
      let pulled = 0;
      const counted = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulled += 1;
            controller.enqueue(new TextEncoder().encode(body));
            controller.close();
          },
        },
        { highWaterMark: 0 }, // pulled only when somebody reads
      );
      const request = new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: counted, duplex: 'half' } as RequestInit);
      expect((await receiver.handle(request)).status, JSON.stringify(headers)).toBe(401);
      expect(pulled, JSON.stringify(headers)).toBe(0);
    }
  });
});

/** A request whose body sends `sent` and then neither ends nor errs until `fail()` is called. */
function stalledRequest(headers: Record<string, string>, sent: string): { request: Request; pulled: () => number; fail: () => void } {
  let pulls = 0;
  let fail: () => void = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        fail = () => controller.error(new Error('the sender went away'));
      },
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(new TextEncoder().encode(sent));
        return new Promise<void>(() => {}); // then nothing, ever
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, duplex: 'half' } as RequestInit);
  return { request, pulled: () => pulls, fail };
}

/** The answer, or 'pending' when there is none after `ms` (a bound, so a hang fails instead of timing out). */
async function within(answer: Promise<Response>, ms: number): Promise<number | 'pending'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([answer.then((response) => response.status), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('push receiver: bodies that stall (issue 16)', () => {
  it('a body that does not arrive within bodyTimeoutMs is refused 408, on every authentication', async () => {
    const refused: number[] = [];
    const slow = createPushReceiver({ token: 'tok', hmac: { secret: SECRET }, bodyTimeoutMs: 50, now: () => NOW_SEC * 1000, onRefused: (error) => void refused.push(error.status ?? 0) });
    slow.expect('t1');
    const body = v1Status('t1', 'working');
    for (const headers of [signed('msg-stall', NOW_SEC, body), { authorization: 'Bearer tok' }]) {
      const { request } = stalledRequest(headers, body.slice(0, 10));
      expect(await within(slow.handle(request), 3_000)).toBe(408);
    }
    expect(refused).toEqual([408, 408]);
    expect(slow.stats().unverifiedBytes).toBe(0);
    slow.close();
  });

  it('a body that stalls over a real socket gets 408 and its connection is closed', async () => {
    const slow = createPushReceiver({ token: 'tok', bodyTimeoutMs: 50 });
    slow.expect('t1');
    const server = await serve(slow);
    try {
      const { hostname, port } = new URL(server.url);
      const outcome = await new Promise<{ status: number; closed: boolean }>((resolve) => {
        const timer = setTimeout(() => resolve({ status: 0, closed: false }), 3_000);
        const req = httpRequest({ hostname, port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000', authorization: 'Bearer tok' } });
        req.on('response', (res) => {
          res.resume();
          res.on('close', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, closed: res.headers.connection === 'close' });
          });
        });
        req.on('error', () => {});
        req.write('{"statusUpdate":');
      });
      expect(outcome).toEqual({ status: 408, closed: true });
    } finally {
      slow.close();
      await server.close();
    }
  });

  it('unverifiable bodies share a byte budget: past it, 503 at once without a read; token pushes are not held to it', async () => {
    const budget = createPushReceiver({
      token: 'tok',
      hmac: { secret: SECRET },
      maxBodyBytes: 4096,
      maxUnverifiedBytes: 8192, // two reads: each reserves at least 16 KiB, capped at maxBodyBytes
      now: () => NOW_SEC * 1000,
    });
    budget.expect('t1');
    const delivered: PushNotice[] = [];
    budget.subscribe('t1', (notice) => void delivered.push(notice));
    const body = v1Status('t1', 'working');
    const stalled = [0, 1].map((i) => stalledRequest({ ...signed(`held-${i}`, NOW_SEC, body), 'content-length': '4000' }, body.slice(0, 10)));
    const held = stalled.map(({ request }) => budget.handle(request));
    await settle();
    expect(budget.stats().unverifiedBytes).toBe(8192);
    expect(stalled.map(({ pulled }) => pulled())).toEqual([1, 1]);

    const third = stalledRequest({ ...signed('held-2', NOW_SEC, body), 'content-length': '100' }, body);
    const refused = await budget.handle(third.request);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(third.pulled()).toBe(0);
    // A token opens from its header: its body is read whatever unverifiable bodies hold.
    const tokenPush = new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tok' }, body });
    expect((await budget.handle(tokenPush)).status).toBe(202);

    for (const { fail } of stalled) fail();
    expect(await Promise.all(held.map((answer) => answer.then((response) => response.status)))).toEqual([400, 400]);
    expect(budget.stats().unverifiedBytes).toBe(0);
    const body2 = v1Status('t1', 'completed');
    const signedPush = new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...signed('after', NOW_SEC, body2) }, body: body2 });
    expect((await budget.handle(signedPush)).status).toBe(202);
    await settle();
    expect(delivered.map((notice) => notice.status?.state)).toEqual(['working', 'completed']);
    budget.close();
  });
});
