// Pushes across replicas meet the same guards as a direct push (issue 33 point 1): the replica a push lands
// on authenticates what needs no state and hands the push to the replica holding its registration, which
// decides and admits it as if received itself — replays, repeats, per-task bounds — and whose verdict is the
// answer; what is read from an inbox leaves Redis; a forged call gets one answer whether or not some replica
// follows the task; a genuine token push never waits for room among unverified bodies. A real redis-server.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer, request, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPushReceiver, type PushNotice, type PushReceiver, type PushReceiverOptions } from '../src/index.js';
import { createRedisPushRelay, type RelayCapableClient } from '../src/redis/redis-push-relay.js';
import { bundleChild } from './helpers/bundle-child.js';
import { spawnLineChild } from './helpers/line-child.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the push relay guard tests');

const RECEIVER_TOKEN = 'receiver-wide-3b1f';
const AUDIENCE = 'https://orchestrator.example/hook';
const HMAC_KEY = randomBytes(32);
type Raw = ReturnType<typeof createClient>;

interface Replica {
  receiver: PushReceiver;
  post(body: string, headers: Record<string, string>): Promise<Response>;
  port: number;
}

describe.skipIf(!available)('pushes handed between replicas meet the guards of a direct push', () => {
  let redis: { url: string; process: ChildProcess };
  let raw: Raw;
  let signing: { privateKey: CryptoKey };
  let jwk: JWK;
  const closers: Array<() => Promise<unknown> | void> = [];
  let count = 0;
  beforeAll(async () => {
    redis = await startRedis();
    raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    const pair = await generateKeyPair('ES256');
    signing = pair;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
  });
  afterAll(async () => {
    await raw?.close();
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A replica's receiver (token, JWT and HMAC) on 127.0.0.1, sharing `prefix` on Redis through a relay of its own. */
  async function replica(prefix: string, extra: Partial<PushReceiverOptions> = {}, relay: { renewMs?: number } = {}): Promise<Replica> {
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    await client.connect();
    const shared = createRedisPushRelay(client as unknown as RelayCapableClient, { prefix, timeoutMs: 1_000, ...relay });
    const receiver = createPushReceiver({ token: RECEIVER_TOKEN, jwt: { jwks: { keys: [jwk] }, audience: AUDIENCE }, hmac: { secret: HMAC_KEY }, relay: shared, ...extra });
    const server: Server = createServer(receiver.nodeHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () => client.close(),
      () => receiver.close(),
      () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    );
    const port = (server.address() as AddressInfo).port;
    return {
      receiver,
      port,
      post: (body, headers) => fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }),
    };
  }

  /** Registers the task on `owner` and waits (bounded) until Redis holds the registration. */
  async function follow(owner: Replica, prefix: string, taskId: string, token?: string): Promise<void> {
    owner.receiver.expect(taskId, token === undefined ? {} : { token });
    const keys = [`${prefix}push-task:${taskId}`, ...(token === undefined ? [] : [`${prefix}push-token:${createHash('sha256').update(token).digest('hex')}`])];
    for (let i = 0; i < 200 && (await raw.exists(keys)) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await raw.exists(keys)).toBeGreaterThan(0);
  }

  const status = (taskId: string, text: string): string =>
    JSON.stringify({ statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: text, role: 'ROLE_AGENT', taskId, parts: [{ text }] } } } });
  const jwtFor = (claims: Record<string, unknown>): Promise<string> =>
    new SignJWT({ aud: AUDIENCE, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 60, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(signing.privateKey);
  const hmacHeaders = (id: string, body: string): Record<string, string> => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${createHmac('sha256', HMAC_KEY).update(`${id}.${timestamp}.${body}`).digest('base64')}` };
  };
  const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

  it('replays — token, JWT with the same or another body, JWT without a body hash, HMAC id — via another replica are answered as direct ones', async () => {
    const prefix = `guards${++count}:`;
    const [owner, other] = [await replica(prefix), await replica(prefix)];
    /** The same sequence of pushes for tasks of `owner`, posted to `to`; the statuses it got. */
    const sequence = async (to: Replica, tag: string): Promise<number[]> => {
      const token = `own-token-${tag}`;
      await follow(owner, prefix, `tok-${tag}`, token);
      await follow(owner, prefix, `jwt-${tag}`);
      await follow(owner, prefix, `hmac-${tag}`);
      const statuses: number[] = [];
      const post = async (body: string, headers: Record<string, string>): Promise<void> => void statuses.push((await to.post(body, headers)).status);
      const tokenBody = status(`tok-${tag}`, 'one');
      await post(tokenBody, { 'x-a2a-notification-token': token }); // 202
      await post(tokenBody, { 'x-a2a-notification-token': token }); // 200: the same body again
      const [one, two] = [status(`jwt-${tag}`, 'one'), status(`jwt-${tag}`, 'two')];
      const bound = await jwtFor({ jti: `bound-${tag}`, request_body_sha256: sha(one) });
      await post(one, { authorization: `Bearer ${bound}` }); // 202
      await post(one, { authorization: `Bearer ${bound}` }); // 200: the same JWT and body
      await post(two, { authorization: `Bearer ${bound}` }); // 401: the body hash does not match
      const unbound = await jwtFor({ jti: `unbound-${tag}` });
      await post(two, { authorization: `Bearer ${unbound}` }); // 202
      await post(status(`jwt-${tag}`, 'three'), { authorization: `Bearer ${unbound}` }); // 401: its jti carrying another body
      const [first, second] = [status(`hmac-${tag}`, 'one'), status(`hmac-${tag}`, 'two')];
      await post(first, hmacHeaders(`id-${tag}`, first)); // 202
      await post(first, hmacHeaders(`id-${tag}`, first)); // 200: a redelivery
      await post(second, hmacHeaders(`id-${tag}`, second)); // 409: the id reused for another body
      return statuses;
    };
    const expected = [202, 200, 202, 200, 401, 202, 401, 202, 200, 409];
    const direct = await sequence(owner, 'direct');
    const relayed = await sequence(other, 'relayed');
    expect({ direct, relayed }).toEqual({ direct: expected, relayed: expected });
  });

  it('300 pushes for one stuck task via another replica: 429 past maxPendingPerTask, as direct', async () => {
    const prefix = `guards${++count}:`;
    const [owner, other] = [await replica(prefix), await replica(prefix)];
    await follow(owner, prefix, 't-stuck', 'stuck-token');
    owner.receiver.subscribe('t-stuck', () => new Promise<void>(() => {})); // never takes the next notice
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 300; i++) {
      const answer = await other.post(status('t-stuck', `push ${i}`), { 'x-a2a-notification-token': 'stuck-token' });
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status === 429) expect(answer.headers.get('retry-after')).toBe('1');
    }
    // One taken by the stuck listener, 100 waiting (maxPendingPerTask), the rest refused.
    expect(statuses).toEqual({ 202: 101, 429: 199 });
  });

  it('1,024 pushes of 200 KiB via another replica leave Redis within a few MB of where it started', { timeout: 120_000 }, async () => {
    const prefix = `guards${++count}:`;
    const [owner, other] = [await replica(prefix), await replica(prefix)];
    await follow(owner, prefix, 't-big', 'big-token');
    let delivered = 0;
    owner.receiver.subscribe('t-big', (notice) => void (delivered += notice.pushes));
    const memory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await raw.info('memory'))?.[1]);
    const before = await memory();
    const filler = 'x'.repeat(200 * 1024);
    const statuses: number[] = [];
    for (let i = 0; i < 1024; i += 8) {
      const batch = Array.from({ length: 8 }, (_, j) => JSON.stringify({ artifactUpdate: { taskId: 't-big', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: `${i + j} ${filler}` }] } } }));
      for (const answer of await Promise.all(batch.map((body) => other.post(body, { 'x-a2a-notification-token': 'big-token' })))) statuses.push(answer.status);
    }
    const after = await memory();
    console.info(`1,024 relayed pushes of 200 KiB: Redis used_memory ${before} → ${after} (${((after - before) / 1024 / 1024).toFixed(1)} MB), ${delivered} delivered`);
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    expect(after - before).toBeLessThan(4 * 1024 * 1024);
  });

  it('a forged call gets the same answer for a task some replica follows and for one nobody follows', async () => {
    const prefix = `guards${++count}:`;
    const [owner, other] = [await replica(prefix), await replica(prefix)];
    await follow(owner, prefix, 't-followed', 'followed-token');
    await follow(owner, prefix, 't-open');
    const forged = await new SignJWT({ aud: AUDIENCE, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 60, jti: 'f' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign((await generateKeyPair('ES256')).privateKey);
    const forgeries = (taskId: string): Array<[string, Record<string, string>]> => {
      const body = status(taskId, 'forged');
      const badHmac = { ...hmacHeaders('forged-id', body), 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` };
      return [
        [body, { 'x-a2a-notification-token': 'guessed-token' }],
        [body, { authorization: 'Bearer guessed-token' }],
        [body, { authorization: `Bearer ${forged}` }],
        [body, badHmac],
        [body, {}],
      ];
    };
    const answers = async (taskId: string): Promise<number[]> => Promise.all(forgeries(taskId).map(async ([body, headers]) => (await other.post(body, headers)).status));
    const [followed, open, unknown] = [await answers('t-followed'), await answers('t-open'), await answers('t-nobody')];
    expect({ followed, open }).toEqual({ followed: unknown, open: unknown });
    expect(unknown).toEqual([401, 401, 401, 401, 401]);
  });

  it('a genuine token push while 16 forged bodies stall in the unverified budget: delivered', async () => {
    const prefix = `guards${++count}:`;
    const [owner, other] = [await replica(prefix), await replica(prefix)];
    await follow(owner, prefix, 't-1', 'genuine-token');
    const notices: PushNotice[] = [];
    owner.receiver.subscribe('t-1', (notice) => void notices.push(notice));
    const stalled: ClientRequest[] = [];
    closers.push(() => stalled.forEach((req) => req.destroy()));
    for (let i = 0; i < 16; i++) {
      const headers = { 'content-type': 'application/json', 'content-length': String(256 * 1024), ...hmacHeaders(`stall-${i}`, 'x'), 'webhook-signature': 'v1,AAAA' };
      const req = request({ host: '127.0.0.1', port: other.port, path: '/hook', method: 'POST', agent: false, headers });
      req.on('error', () => undefined);
      req.write('{"statusUpdate":');
      stalled.push(req);
    }
    for (let i = 0; i < 200 && other.receiver.stats().unverifiedBytes < 4 * 1024 * 1024; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(other.receiver.stats().unverifiedBytes).toBe(4 * 1024 * 1024);
    expect((await other.post(status('t-1', 'genuine'), { 'x-a2a-notification-token': 'genuine-token' })).status).toBe(202);
    for (let i = 0; i < 200 && notices.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(notices.map((notice) => notice.taskId)).toEqual(['t-1']);
  });

  it('two agents that both call their task "1": each registration gets its own pushes; forgetting one leaves the other', async () => {
    const prefix = `guards${++count}:`;
    const [a, b, landing] = [await replica(prefix), await replica(prefix), await replica(prefix)];
    await follow(a, prefix, '1', 'agent-a-token');
    await follow(b, prefix, '1', 'agent-b-token');
    const seen = { a: [] as string[], b: [] as string[] };
    a.receiver.subscribe('1', (notice) => void seen.a.push(JSON.stringify(notice.status?.message?.parts)));
    b.receiver.subscribe('1', (notice) => void seen.b.push(JSON.stringify(notice.status?.message?.parts)));
    const post = async (text: string, token: string): Promise<number> => (await landing.post(status('1', text), { 'x-a2a-notification-token': token })).status;
    expect([await post('for a', 'agent-a-token'), await post('for b', 'agent-b-token')]).toEqual([202, 202]);
    a.receiver.forget('1');
    expect([await post('for a, late', 'agent-a-token'), await post('for b, again', 'agent-b-token')]).toEqual([410, 202]);
    for (let i = 0; i < 200 && seen.b.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.a.map((parts) => /for \w+(, \w+)?/.exec(parts)?.[0])).toEqual(['for a']);
    expect(seen.b.map((parts) => /for \w+(, \w+)?/.exec(parts)?.[0])).toEqual(['for b', 'for b, again']);
  });

  it('a push for the registration of a replica that died is not acknowledged', { timeout: 30_000 }, async () => {
    const prefix = `guards${++count}:`;
    const landing = await replica(prefix);
    const { script, dir } = await bundleChild(new URL('./push/relay-replica-child.ts', import.meta.url));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const child = spawnLineChild(script, [redis.url, prefix, 't-dead', 'dead-token']);
    closers.push(() => child.kill());
    await child.waitForLine((line) => line === 'ready', 20_000, 'the replica registered its task');
    expect(await raw.exists(`${prefix}push-token:${sha('dead-token')}`) + (await raw.exists(`${prefix}push-task:t-dead`))).toBe(1);
    expect((await landing.post(status('t-dead', 'before'), { 'x-a2a-notification-token': 'dead-token' })).status).toBe(202);
    await child.kill();
    const after = await landing.post(status('t-dead', 'after'), { 'x-a2a-notification-token': 'dead-token' });
    expect(after.status).toBe(503);
    expect(after.headers.get('retry-after')).toBe('1');
  });

  it('a registration Redis lost (FLUSHALL) is written again within renewMs', async () => {
    const prefix = `guards${++count}:`;
    const renewMs = 300;
    const [owner, other] = [await replica(prefix, {}, { renewMs }), await replica(prefix, {}, { renewMs })];
    await follow(owner, prefix, 't-1', 'renewed-token');
    const push = async (i: number): Promise<number> => (await other.post(status('t-1', `push ${i}`), { 'x-a2a-notification-token': 'renewed-token' })).status;
    expect(await push(0)).toBe(202);
    await raw.flushAll();
    expect(await push(1)).toBeGreaterThanOrEqual(400); // lost: the token opens nothing any replica knows (401)
    // Polled for up to 10 × renewMs (the bound is renewMs, plus the writes' time).
    let back = 0;
    for (let i = 2; back === 0 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, renewMs / 10));
      if ((await push(i)) === 202) back = i;
    }
    expect(back).toBeGreaterThan(0);
  });
});
