// The firehose: a tiny A2A JSON-RPC agent, alone in its own process, that answers a streaming send
// with a pre-built body — a Task snapshot, then EVENTS official-shaped updates, then `completed` —
// as fast as the socket takes it (see firehose-frames.mjs for the shapes and how a body is built).
// It listens twice: one port speaks v1.0 (card with a JSONRPC 1.0 interface), the other v0.3.
//
// Whatever the message says, the task is the same. GetTask answers the final task (a client may check
// the result); SubscribeToTask answers as the official servers do on a finished task (v1: an error,
// v0.3: its snapshot). GET /stats: counters and the CPU time spent per firehose response. Prints `{"v1": url, "v03": url}` once
// listening; exits when stdin closes.
//   node firehose-server.mjs '{"events":50000,"chunkChars":160}'
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { buildVersion, fill, prepare, requestValues, stitch } from './firehose-frames.mjs';

const config = { events: 50_000, chunkChars: 160, ...JSON.parse(process.argv[2] ?? '{}') };
const CHUNK_BYTES = 1 << 20;
const MAX_TASKS = 5_000;
const PREPARED_RPC_WIDTHS = [1, 2, 3, 4, 5, 6];

const versions = {};
for (const version of ['1.0', '0.3']) {
  const built = buildVersion(version, config);
  // Bodies for every JSON-RPC id of 1–6 digits, task and context ids of 36 characters (UUIDs).
  built.prepared = new Map(PREPARED_RPC_WIDTHS.map((w) => [w, prepare(built.bulk, [w, 36, 36])]));
  built.spare = new Map(PREPARED_RPC_WIDTHS.map((w) => [w, [Buffer.allocUnsafe(built.prepared.get(w).bytes.length).fill(0)]]));
  versions[version] = built;
}

/** taskId → { values } of every task served (oldest dropped past MAX_TASKS). */
const tasks = new Map();
/** Per version: requests answered, by kind. */
const stats = Object.fromEntries(['1.0', '0.3'].map((version) => [version, { sends: 0, gets: 0, subscribes: 0, other: 0 }]));
/** Per version: CPU time (user + system, µs) this process spent on each firehose response, last 200. */
const cpuPerTask = { '1.0': [], '0.3': [] };

function remember(taskId, task) {
  tasks.set(taskId, task);
  if (tasks.size > MAX_TASKS) tasks.delete(tasks.keys().next().value);
}

function sseHead(res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
}

function sendJson(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function rpcError(res, id, code, message) {
  sendJson(res, 200, JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
}

/** Resolves on the first of `events` on `emitter`, leaving no listener behind. */
function first(emitter, events) {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) emitter.off(event, done);
      resolve();
    };
    for (const event of events) emitter.on(event, done);
  });
}

/** res.write with backpressure; false once the client is gone. */
async function write(res, chunk) {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await first(res, ['drain', 'close']);
  return !res.destroyed;
}

/** Writes the bulk of a firehose task: prepared body in place when the widths fit, else stitched. */
async function writeBulk(res, v, values) {
  const prepared = v.prepared.get(values[0].length);
  if (prepared === undefined || values[1].length !== 36 || values[2].length !== 36) {
    for (const chunk of stitch(v.bulk, values, CHUNK_BYTES)) if (!(await write(res, chunk))) return;
    return;
  }
  const pool = v.spare.get(prepared.widths[0]);
  const body = pool.pop() ?? Buffer.allocUnsafe(prepared.bytes.length);
  try {
    // Copy and fill one region at a time so the first bytes leave at once; a region never ends
    // inside a value.
    const { at, widths, kinds } = prepared;
    let i = 0;
    for (let a = 0; a < body.length; ) {
      let b = Math.min(a + CHUNK_BYTES, body.length);
      for (let k = i; k < at.length && at[k] < b; k++) b = Math.max(b, at[k] + widths[kinds[k]]);
      prepared.bytes.copy(body, a, a, b);
      for (; i < at.length && at[i] < b; i++) body.set(values[kinds[i]], at[i]);
      if (!(await write(res, body.subarray(a, b)))) return;
      a = b;
    }
    const ended = first(res, ['finish', 'close']);
    res.end();
    await ended;
  } finally {
    if (res.writableFinished || res.destroyed) pool.push(body);
  }
}

async function stream(res, v, rpcId, message) {
  const text = message?.parts?.[0]?.text ?? '';
  const taskId = randomUUID();
  const contextId = typeof message?.contextId === 'string' ? message.contextId : randomUUID();
  const values = requestValues({ rpcId, taskId, contextId, messageId: String(message?.messageId ?? ''), text });
  // The agent finishes the task at once; how much of it the client reads is the client's business.
  remember(taskId, { values });
  stats[v.version].sends++;
  const cpu = process.cpuUsage();
  sseHead(res);
  if (!(await write(res, fill(v.snapshot, values)))) return;
  await writeBulk(res, v, values);
  if (!res.writableEnded) res.end();
  const used = process.cpuUsage(cpu);
  const list = cpuPerTask[v.version];
  list.push(used.user + used.system);
  if (list.length > 200) list.shift();
}

/** The per-request values of a known task with this request's JSON-RPC id. */
function valuesFor(task, rpcId) {
  const [, taskId, contextId, messageId, text] = task.values;
  return [Buffer.from(JSON.stringify(rpcId)), taskId, contextId, messageId, text];
}

async function handleRpc(req, res, v) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  let rpc;
  try {
    rpc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    rpcError(res, null, -32700, 'Invalid JSON payload.');
    return;
  }
  const { id, method, params } = rpc;
  const v1 = v.version === '1.0';
  switch (method) {
    case 'SendStreamingMessage':
    case 'message/stream':
      if ((method === 'SendStreamingMessage') !== v1) break;
      await stream(res, v, id, params?.message);
      return;
    case 'GetTask':
    case 'tasks/get': {
      if ((method === 'GetTask') !== v1) break;
      stats[v.version].gets++;
      const task = tasks.get(params?.id);
      if (task === undefined) return rpcError(res, id, -32001, `Task not found: ${params?.id}`);
      sendJson(res, 200, fill(v.finalTask(), valuesFor(task, id)).toString('utf8'));
      return;
    }
    case 'SubscribeToTask':
    case 'tasks/resubscribe': {
      if ((method === 'SubscribeToTask') !== v1) break;
      stats[v.version].subscribes++;
      const task = tasks.get(params?.id);
      if (task === undefined) return rpcError(res, id, -32001, `Task not found: ${params?.id}`);
      if (v1) return rpcError(res, id, -32004, `Task ${params.id} is in a terminal state (3) and cannot be subscribed to.`);
      sseHead(res);
      res.end(fill(v.finalSnapshot(), valuesFor(task, id)));
      return;
    }
    case 'ListTasks':
      if (!v1) break;
      // Only asked when a creating send lost its answer, which the firehose never does.
      sendJson(res, 200, JSON.stringify({ jsonrpc: '2.0', id, result: { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 } }));
      return;
    default:
  }
  stats[v.version].other++;
  rpcError(res, id, -32601, v1 ? 'Invalid method.' : `Method not found: ${method}`);
}

function card(version, origin) {
  const endpoint = `${origin}/a2a/jsonrpc`;
  const common = {
    name: `Tether bench firehose (A2A ${version})`,
    description: 'Answers a streaming send with a pre-built stream of official-shaped events.',
  };
  const skill = { id: 'firehose', name: 'Firehose', description: 'Any message: the same long task.', tags: ['bench'], examples: ['firehose'] };
  if (version === '1.0') {
    return {
      ...common,
      supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ ...skill, inputModes: [], outputModes: [], securityRequirements: [] }],
      signatures: [],
    };
  }
  return {
    ...common,
    protocolVersion: '0.3.0',
    version: '0.3.0',
    url: endpoint,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: endpoint, transport: 'JSONRPC' }],
    capabilities: { streaming: true, pushNotifications: false },
    supportsAuthenticatedExtendedCard: false,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [skill],
  };
}

async function listen(version) {
  const v = versions[version];
  let origin = '';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/.well-known/agent-card.json') {
      sendJson(res, 200, JSON.stringify(card(version, origin)));
    } else if (req.method === 'GET' && path === '/stats') {
      sendJson(res, 200, JSON.stringify({ requests: stats, tasks: tasks.size, cpuPerTask }));
    } else if (req.method === 'POST' && path === '/a2a/jsonrpc') {
      handleRpc(req, res, v).catch((error) => {
        if (!res.headersSent) rpcError(res, null, -32603, String(error));
        else res.destroy();
      });
    } else {
      sendJson(res, 404, JSON.stringify({ error: `no route for ${req.method} ${path}` }));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  server.maxConnections = 10_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return { server, origin };
}

const v1 = await listen('1.0');
const v03 = await listen('0.3');
const { bulkEvents, plan } = versions['1.0'];
process.stdout.write(
  `${JSON.stringify({
    v1: v1.origin,
    v03: v03.origin,
    events: bulkEvents + 1,
    // Body bytes of one task with a 3-digit JSON-RPC id (the snapshot adds a few hundred).
    bytes: { '1.0': versions['1.0'].prepared.get(3).bytes.length, '0.3': versions['0.3'].prepared.get(3).bytes.length },
    chunks: plan.chunks,
  })}\n`,
);

const stop = () => {
  v1.server.closeAllConnections();
  v03.server.closeAllConnections();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
