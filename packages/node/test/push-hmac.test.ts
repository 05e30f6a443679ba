import { createHmac, randomBytes } from 'node:crypto';
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
});
