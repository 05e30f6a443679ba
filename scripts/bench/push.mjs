// Section 5 of `pnpm bench`: the push receiver of the BUILT @a2a-tether/node, behind a node:http
// server on 127.0.0.1, fed by an undici client in this process (so the numbers include the sender).
//   verify: verified pushes per second and latency (p50/p99) with `concurrency` requests in flight,
//     for each kind of authentication: token, JWT (ES256, local JWKS: no key fetches), HMAC.
//   flood: `pushes` pushes for `tasks` tasks with a subscriber that never takes a notice; heap after
//     GC before and after, what the receiver holds, and how many were answered 202 / 429.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { heapAfterGc, percentile, pool, round } from './util.mjs';

const nodePackage = new URL('../../packages/node/', import.meta.url);
const { createPushReceiver } = await import(new URL('dist/index.js', nodePackage).href);
// jose is a dependency of @a2a-tether/node, not of the workspace root: resolve it from there.
const jose = await import(pathToFileURL(createRequire(new URL('package.json', nodePackage)).resolve('jose')).href);

const AUDIENCE = 'https://bench.example/hook';

function body(taskId, step) {
  const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, step)).toISOString();
  return JSON.stringify({ statusUpdate: { taskId, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', timestamp } } });
}

async function listen(receiver) {
  const server = createServer(receiver.nodeHandler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The three authentications: receiver options and how a sender signs one push. */
async function kinds() {
  const token = randomUUID();
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench', alg: 'ES256' };
  const secret = randomBytes(32);
  return {
    token: { options: { token }, headers: async () => ({ authorization: `Bearer ${token}` }) },
    jwt: {
      options: { jwt: { jwks: { keys: [jwk] }, audience: AUDIENCE } },
      headers: async () => {
        const now = Math.floor(Date.now() / 1000);
        const jwt = await new jose.SignJWT({ aud: AUDIENCE, iat: now, exp: now + 60, jti: randomUUID() })
          .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
          .sign(privateKey);
        return { authorization: `Bearer ${jwt}` };
      },
    },
    hmac: {
      options: { hmac: { secret } },
      headers: async (payload) => {
        const id = randomUUID();
        const ts = String(Math.floor(Date.now() / 1000));
        const signature = createHmac('sha256', secret).update(`${id}.${ts}.${payload}`).digest('base64');
        return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${signature}` };
      },
    },
  };
}

async function post(dispatcher, url, payload, headers) {
  const answer = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/a2a+json', ...headers },
    body: payload,
  });
  await answer.body.dump();
  return answer.statusCode;
}

/** Verified pushes per second and latency for one kind of authentication. */
export async function pushVerify({ kind, pushes, concurrency, tasks }) {
  const all = await kinds();
  const { options, headers } = all[kind];
  const receiver = createPushReceiver({ ...options, maxPendingPerTask: pushes + 1, replayCacheSize: pushes + 1_000 });
  const taskIds = Array.from({ length: tasks }, (_, i) => `task-${i}`);
  let delivered = 0;
  for (const id of taskIds) {
    receiver.expect(id);
    receiver.subscribe(id, (notice) => {
      delivered += notice.pushes;
    });
  }
  const server = await listen(receiver);
  const dispatcher = new Agent({ connections: concurrency });
  try {
    // Signing is the sender's cost: done before the clock starts, so only verification is timed.
    const prepared = [];
    for (let i = 0; i < pushes; i++) {
      const payload = body(taskIds[i % tasks], i);
      prepared.push({ payload, headers: await headers(payload) });
    }
    for (let i = 0; i < Math.min(200, pushes); i++) {
      await post(dispatcher, server.url, body('task-0', -1 - i), await headers(body('task-0', -1 - i))); // warm-up
    }
    const latencies = [];
    const statuses = new Map();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await pool(pushes, concurrency, async (i) => {
      const sent = performance.now();
      const status = await post(dispatcher, server.url, prepared[i].payload, prepared[i].headers);
      latencies.push(performance.now() - sent);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      kind,
      pushes,
      concurrency,
      perSecond: round(pushes / seconds),
      p50Ms: round(percentile(latencies, 50), 2),
      p99Ms: round(percentile(latencies, 99), 2),
      cpuMsPerPush: round((cpu.user + cpu.system) / 1000 / pushes, 3),
      statuses: Object.fromEntries(statuses),
      delivered,
    };
  } finally {
    receiver.close();
    await dispatcher.close();
    await server.close();
  }
}

/** Heap and what the receiver holds under a flood with a subscriber that never takes a notice. */
export async function pushFlood({ pushes, tasks, maxPendingPerTask, concurrency }) {
  const token = randomUUID();
  const receiver = createPushReceiver({ token, maxPendingPerTask });
  const taskIds = Array.from({ length: tasks }, (_, i) => `task-${i}`);
  for (const id of taskIds) {
    receiver.expect(id);
    receiver.subscribe(id, () => new Promise(() => {})); // stuck: never takes the next notice
  }
  const server = await listen(receiver);
  const dispatcher = new Agent({ connections: concurrency });
  try {
    const before = await heapAfterGc();
    const statuses = new Map();
    await pool(pushes, concurrency, async (i) => {
      const status = await post(dispatcher, server.url, body(taskIds[i % tasks], i), { authorization: `Bearer ${token}` });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    const after = await heapAfterGc();
    return { pushes, tasks, maxPendingPerTask, heapDeltaKb: round((after - before) / 1024), held: receiver.stats(), statuses: Object.fromEntries(statuses) };
  } finally {
    receiver.close();
    await dispatcher.close();
    await server.close();
  }
}
