/**
 * Captures real request/response frames from the official A2A JS SDK servers
 * (@a2a-js/sdk 1.3.0 = A2A v1.0, 0.3.14 = A2A v0.3) as fixtures for Tether's codec tests.
 *
 * Drives the servers with raw `fetch` (never a client SDK, so nothing normalises the wire)
 * through every operation on the four version × binding combinations, and writes each
 * exchange to packages/core/test/fixtures/official/<version>-<binding>-<op>.json.
 * Ids and timestamps stay as the servers produced them.
 *
 * Run: `npx pnpm@10.34.8 --filter @a2a-tether/interop run capture`
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startOfficialV03Server } from './official-v03-server.js';
import { startOfficialV1Server } from './official-v1-server.js';
import type { OfficialServer } from './official-server.js';
import {
  jsonRpc,
  sseData,
  taskIn,
  V03_JSON,
  v03JsonRpc,
  v03Message,
  v03Rest,
  V1_JSON,
  v1JsonRpc,
  v1Message,
  v1Rest,
  V1_REST_BODY,
  V1_REST_NO_BODY,
  WEBHOOK_TOKEN,
  WEBHOOK_URL,
} from './wire-dialects.js';
import type { Dialect, HttpMethod, WireRequest } from './wire-dialects.js';

const OUT_DIR = fileURLToPath(new URL('../../core/test/fixtures/official/', import.meta.url));
const INDEX_FILE = `${OUT_DIR}INDEX.md`;
const SURPRISES_HEADING = '## Surprises';


type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Frame {
  readonly request: {
    method: HttpMethod;
    path: string;
    headers: Record<string, string>;
    body?: unknown;
  };
  readonly response: {
    status: number;
    headers: Record<string, string>;
    body: unknown;
  };
}

const REQUEST_HEADERS = ['content-type', 'a2a-version', 'if-none-match', 'cache-control'];
const RESPONSE_HEADERS = ['content-type', 'cache-control', 'etag', 'vary'];

const indexEntries: { file: string; summary: string }[] = [];

function pick(headers: Headers | Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const lower = new Map<string, string>();
  if (headers instanceof Headers) headers.forEach((value, key) => lower.set(key.toLowerCase(), value));
  else for (const [key, value] of Object.entries(headers)) lower.set(key.toLowerCase(), value);
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = lower.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

async function exchange(file: string, summary: string, request: WireRequest): Promise<Frame> {
  const init: RequestInit = { method: request.method, headers: { ...request.headers } };
  if (request.body !== undefined) {
    init.body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  }
  const response = await fetch(request.url, init);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  // JSON bodies are stored parsed; SSE and anything else exactly as received.
  const isJson = /^application\/([\w.+-]+\+)?json/.test(contentType) && text !== '';
  const url = new URL(request.url);
  const frame: Frame = {
    request: {
      method: request.method,
      path: url.pathname + url.search,
      headers: pick(request.headers ?? {}, REQUEST_HEADERS),
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    response: {
      status: response.status,
      headers: pick(response.headers, RESPONSE_HEADERS),
      body: isJson ? (JSON.parse(text) as Json) : text,
    },
  };
  await writeFile(`${OUT_DIR}${file}.json`, `${JSON.stringify(frame, null, 2)}\n`);
  indexEntries.push({ file: `${file}.json`, summary });
  return frame;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function firstStreamedTask(frame: Frame): { id: string; contextId: string } {
  const [first] = sseData(String(frame.response.body));
  return taskIn(first);
}

/** Every operation, in the same order, on one version × binding. */
async function captureCombo(d: Dialect, label: string): Promise<void> {
  const p = d.prefix;
  await exchange(`${p}-send-echo`, `${label} send \`echo hello\` → Message reply (no task)`, d.send('echo hello', { blocking: true }));

  await exchange(
    `${p}-send-stream-nonblocking`,
    `${label} send \`stream …\` non-blocking → Task as soon as it exists`,
    d.send('stream updates=2 chunks=3 delayMs=20', { blocking: false }),
  );
  const blocking = await exchange(
    `${p}-send-stream-blocking`,
    `${label} send \`stream updates=2 chunks=3\` blocking → completed Task with artifact and history`,
    d.send('stream updates=2 chunks=3', { blocking: true }),
  );
  const done = taskIn(blocking.response.body);

  await exchange(`${p}-stream`, `${label} streaming \`stream updates=2 chunks=3\`: raw SSE body`, d.send('stream updates=2 chunks=3', { blocking: true, stream: true }));
  const inputTurn = await exchange(
    `${p}-stream-input`,
    `${label} streaming \`input\` first turn: raw SSE, ends at input-required`,
    d.send('input', { blocking: true, stream: true }),
  );
  const waiting = firstStreamedTask(inputTurn);
  await exchange(
    `${p}-stream-input-followup`,
    `${label} streaming follow-up \`blue\` on the input-required task: raw SSE, ends completed with artifact \`got: blue\``,
    d.send('blue', { blocking: true, stream: true, taskId: waiting.id, contextId: waiting.contextId }),
  );

  await exchange(`${p}-stream-fail`, `${label} streaming \`fail\`: raw SSE, ends failed with a status message`, d.send('fail', { blocking: true, stream: true }));
  await exchange(`${p}-send-reject`, `${label} send \`reject\` blocking → rejected Task with a status message`, d.send('reject', { blocking: true }));

  await exchange(`${p}-get`, `${label} get a completed task, no historyLength`, d.get(done.id));
  await exchange(`${p}-get-history-length-1`, `${label} get with historyLength=1`, d.get(done.id, 1));
  await exchange(`${p}-get-history-length-0`, `${label} get with historyLength=0`, d.get(done.id, 0));

  const slow = taskIn((await exchange(
    `${p}-send-slow-nonblocking`,
    `${label} send \`slow steps=50 delayMs=20\` non-blocking (the task cancelled next)`,
    d.send('slow steps=50 delayMs=20', { blocking: false }),
  )).response.body);
  await sleep(60);
  await exchange(`${p}-cancel`, `${label} cancel a running \`slow\` task → Task in canceled state`, d.cancel(slow.id));
  await exchange(`${p}-error-task-not-cancelable`, `${label} cancel a completed task → TaskNotCancelable (-32002)`, d.cancel(done.id));

  const running = taskIn((await exchange(
    `${p}-send-slow-for-subscribe`,
    `${label} send \`slow steps=6 delayMs=40\` non-blocking (the task subscribed to next)`,
    d.send('slow steps=6 delayMs=40', { blocking: false }),
  )).response.body);
  await sleep(100);
  await exchange(`${p}-subscribe`, `${label} subscribe mid-task: raw SSE until completed`, d.subscribe(running.id, 'POST'));
  if (d.prefix.endsWith('rest')) {
    const again = taskIn((await exchange(
      `${p}-send-slow-for-subscribe-get`,
      `${label} send \`slow steps=6 delayMs=40\` non-blocking (subscribed to with GET next)`,
      d.send('slow steps=6 delayMs=40', { blocking: false }),
    )).response.body);
    await sleep(100);
    await exchange(`${p}-subscribe-get`, `${label} subscribe mid-task with GET instead of POST`, d.subscribe(again.id, 'GET'));
  }
  await exchange(`${p}-subscribe-finished`, `${label} subscribe to a completed task`, d.subscribe(done.id, 'POST'));

  const parked = taskIn((await exchange(
    `${p}-send-input-blocking`,
    `${label} send \`input\` blocking → returns at input-required (the task push configs attach to)`,
    d.send('input', { blocking: true }),
  )).response.body);
  const created = await exchange(`${p}-push-create`, `${label} create a push notification config`, d.pushCreate(parked.id));
  const configId = d.configIdOf(created.response.body);
  await exchange(`${p}-push-get`, `${label} get that push config`, d.pushGet(parked.id, configId));
  await exchange(`${p}-push-list`, `${label} list push configs of the task`, d.pushList(parked.id));
  await exchange(`${p}-push-delete`, `${label} delete that push config`, d.pushDelete(parked.id, configId));
  await exchange(`${p}-push-delete-again`, `${label} delete the same push config again (idempotence)`, d.pushDelete(parked.id, configId));
  await exchange(`${p}-push-get-deleted`, `${label} get the deleted push config`, d.pushGet(parked.id, configId));

  await exchange(`${p}-extended-card`, `${label} extended agent card`, d.extendedCard());

  await exchange(`${p}-error-task-not-found`, `${label} get an unknown task → TaskNotFound (-32001)`, d.get('no-such-task'));
  await exchange(
    `${p}-error-send-to-terminal-task`,
    `${label} send a message to a completed task`,
    d.send('echo late', { blocking: true, taskId: done.id, contextId: done.contextId }),
  );
}

async function captureJsonRpcErrors(prefix: string, url: string, headers: Record<string, string>, label: string, sendMethod: string): Promise<void> {
  await exchange(`${prefix}-error-parse`, `${label} malformed JSON body → -32700`, { method: 'POST', url, headers, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
  await exchange(`${prefix}-error-method-not-found`, `${label} unknown method → -32601`, jsonRpc(url, headers, 'tasks/doesNotExist', {}));
  await exchange(`${prefix}-error-invalid-params`, `${label} ${sendMethod} without a message → -32602`, jsonRpc(url, headers, sendMethod, {}));
  await exchange(`${prefix}-error-invalid-request`, `${label} envelope without \`method\` → -32600`, {
    method: 'POST',
    url,
    headers,
    body: { jsonrpc: '2.0', id: 99, params: {} },
  });
}

async function captureV1(server: OfficialServer, bare: OfficialServer): Promise<void> {
  const card = await exchange('v1-wellknown-card', 'v1 agent card with `A2A-Version: 1.0`', { method: 'GET', url: server.cardUrl, headers: { 'A2A-Version': '1.0' } });
  await exchange('v1-wellknown-card-no-version', 'v1 agent card without `A2A-Version` (compat layer off)', { method: 'GET', url: server.cardUrl });
  const etag = card.response.headers['etag'] ?? '';
  // Node's fetch adds `Cache-Control: no-cache` to any request carrying If-None-Match, and
  // Express then ignores the validator; an explicit Cache-Control header suppresses that.
  await exchange('v1-wellknown-card-if-none-match', 'v1 agent card revalidated with `If-None-Match` only (fetch appends `Cache-Control: no-cache`) → 200, not 304', {
    method: 'GET',
    url: server.cardUrl,
    headers: { 'A2A-Version': '1.0', 'If-None-Match': etag },
  });
  await exchange('v1-wellknown-card-not-modified', 'v1 agent card revalidated with `If-None-Match` + `Cache-Control: max-age=0` → 304', {
    method: 'GET',
    url: server.cardUrl,
    headers: { 'A2A-Version': '1.0', 'If-None-Match': etag, 'Cache-Control': 'max-age=0' },
  });

  await captureCombo(v1JsonRpc(server), 'v1 JSON-RPC');
  await captureCombo(v1Rest(server), 'v1 REST');

  await exchange('v1-jsonrpc-list', 'v1 JSON-RPC ListTasks, no params', jsonRpc(server.jsonRpcUrl, V1_JSON, 'ListTasks', {}));
  await exchange('v1-jsonrpc-list-page-size-2', 'v1 JSON-RPC ListTasks pageSize=2 → nextPageToken', jsonRpc(server.jsonRpcUrl, V1_JSON, 'ListTasks', { pageSize: 2 }));
  const page = await exchange('v1-rest-list-page-size-2', 'v1 REST GET /tasks?pageSize=2', { method: 'GET', url: `${server.restUrl}/tasks?pageSize=2`, headers: V1_REST_NO_BODY });
  const token = (page.response.body as { nextPageToken?: string }).nextPageToken;
  if (token) {
    await exchange('v1-rest-list-next-page', 'v1 REST GET /tasks with the pageToken of the previous page', {
      method: 'GET',
      url: `${server.restUrl}/tasks?pageSize=2&pageToken=${encodeURIComponent(token)}`,
      headers: V1_REST_NO_BODY,
    });
  }
  await exchange('v1-rest-list-include-artifacts', 'v1 REST GET /tasks?pageSize=1&includeArtifacts=true&historyLength=0', {
    method: 'GET',
    url: `${server.restUrl}/tasks?pageSize=1&includeArtifacts=true&historyLength=0`,
    headers: V1_REST_NO_BODY,
  });

  // A2A-Version handling.
  const echo = { message: v1Message('echo hello') };
  await exchange('v1-jsonrpc-error-version-missing', 'v1 JSON-RPC SendMessage without `A2A-Version` → -32009', jsonRpc(server.jsonRpcUrl, { 'content-type': 'application/json' }, 'SendMessage', echo));
  await exchange('v1-jsonrpc-error-version-0.3', 'v1 JSON-RPC SendMessage with `A2A-Version: 0.3` (compat off) → -32009', jsonRpc(server.jsonRpcUrl, { 'content-type': 'application/json', 'A2A-Version': '0.3' }, 'SendMessage', echo));
  await exchange('v1-rest-error-version-missing', 'v1 REST message:send without `A2A-Version` → -32009', {
    method: 'POST',
    url: `${server.restUrl}/message:send`,
    headers: { 'content-type': 'application/a2a+json' },
    body: echo,
  });

  await captureJsonRpcErrors('v1-jsonrpc', server.jsonRpcUrl, V1_JSON, 'v1 JSON-RPC', 'SendMessage');
  await exchange('v1-jsonrpc-error-content-type', 'v1 JSON-RPC with `Content-Type: text/plain` → -32005', {
    method: 'POST',
    url: server.jsonRpcUrl,
    headers: { 'content-type': 'text/plain', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 98, method: 'GetTask', params: { id: 'x' } }),
  });
  await exchange('v1-rest-error-parse', 'v1 REST message:send with a malformed JSON body', {
    method: 'POST',
    url: `${server.restUrl}/message:send`,
    headers: V1_REST_BODY,
    body: '{"message": ',
  });
  await exchange('v1-rest-error-invalid-params', 'v1 REST message:send with `{}` (no message) → 400', {
    method: 'POST',
    url: `${server.restUrl}/message:send`,
    headers: V1_REST_BODY,
    body: {},
  });
  await exchange('v1-rest-error-unknown-path', 'v1 REST GET on a path no route serves', { method: 'GET', url: `${server.restUrl}/nope`, headers: V1_REST_NO_BODY });

  // Capabilities switched off: pushNotifications=false, extendedAgentCard=false.
  await exchange('v1-jsonrpc-error-push-not-supported', 'v1 JSON-RPC create push config on an agent without pushNotifications → -32003', jsonRpc(bare.jsonRpcUrl, V1_JSON, 'CreateTaskPushNotificationConfig', { taskId: 'any', url: WEBHOOK_URL }));
  await exchange('v1-rest-error-push-not-supported', 'v1 REST create push config on an agent without pushNotifications → -32003', {
    method: 'POST',
    url: `${bare.restUrl}/tasks/any/pushNotificationConfigs`,
    headers: V1_REST_BODY,
    body: { url: WEBHOOK_URL },
  });
  await exchange('v1-jsonrpc-error-extended-card-unsupported', 'v1 JSON-RPC GetExtendedAgentCard when capabilities.extendedAgentCard=false → -32004', jsonRpc(bare.jsonRpcUrl, V1_JSON, 'GetExtendedAgentCard', {}));
  await exchange('v1-rest-error-extended-card-unsupported', 'v1 REST GET /extendedAgentCard when capabilities.extendedAgentCard=false → -32004', {
    method: 'GET',
    url: `${bare.restUrl}/extendedAgentCard`,
    headers: V1_REST_NO_BODY,
  });
}

async function captureV03(server: OfficialServer, bare: OfficialServer): Promise<void> {
  await exchange('v03-wellknown-card', 'v0.3 agent card', { method: 'GET', url: server.cardUrl });
  await captureCombo(v03JsonRpc(server), 'v0.3 JSON-RPC');
  await captureCombo(v03Rest(server), 'v0.3 REST');

  await captureJsonRpcErrors('v03-jsonrpc', server.jsonRpcUrl, V03_JSON, 'v0.3 JSON-RPC', 'message/send');
  await exchange('v03-jsonrpc-error-list-tasks', 'v0.3 JSON-RPC `tasks/list` (absent in v0.3)', jsonRpc(server.jsonRpcUrl, V03_JSON, 'tasks/list', {}));
  await exchange('v03-rest-error-parse', 'v0.3 REST message:send with a malformed JSON body', {
    method: 'POST',
    url: `${server.restUrl}/v1/message:send`,
    headers: V03_JSON,
    body: '{"message": ',
  });
  await exchange('v03-rest-error-invalid-params', 'v0.3 REST message:send with `{}` (no message)', {
    method: 'POST',
    url: `${server.restUrl}/v1/message:send`,
    headers: V03_JSON,
    body: {},
  });
  await exchange('v03-rest-error-list-tasks', 'v0.3 REST GET /v1/tasks (not served)', { method: 'GET', url: `${server.restUrl}/v1/tasks` });

  // The body the 0.3.14 SDK's own RestTransport sends for create: a TaskPushNotificationConfig.
  const parked = taskIn((await exchange(
    'v03-rest-send-input-for-client-shape',
    'v0.3 REST send `input` blocking (task for the next frame)',
    v03Rest(server).send('input', { blocking: true }),
  )).response.body);
  await exchange('v03-rest-push-create-client-shape', 'v0.3 REST create push config with the body shape the 0.3.14 RestTransport sends', {
    method: 'POST',
    url: `${server.restUrl}/v1/tasks/${parked.id}/pushNotificationConfigs`,
    headers: V03_JSON,
    body: {
      name: `tasks/${parked.id}/pushNotificationConfigs/cfg-2`,
      pushNotificationConfig: { id: 'cfg-2', url: WEBHOOK_URL, token: WEBHOOK_TOKEN },
    },
  });

  await exchange('v03-jsonrpc-error-push-not-supported', 'v0.3 JSON-RPC push config set on an agent without pushNotifications → -32003', jsonRpc(bare.jsonRpcUrl, V03_JSON, 'tasks/pushNotificationConfig/set', { taskId: 'any', pushNotificationConfig: { url: WEBHOOK_URL } }));
  await exchange('v03-rest-error-push-not-supported', 'v0.3 REST create push config on an agent without pushNotifications → -32003', {
    method: 'POST',
    url: `${bare.restUrl}/v1/tasks/any/pushNotificationConfigs`,
    headers: V03_JSON,
    body: { parent: 'tasks/any', config: { pushNotificationConfig: { url: WEBHOOK_URL } } },
  });
  await exchange('v03-jsonrpc-error-extended-card-unsupported', 'v0.3 JSON-RPC agent/getAuthenticatedExtendedCard when supportsAuthenticatedExtendedCard=false', jsonRpc(bare.jsonRpcUrl, V03_JSON, 'agent/getAuthenticatedExtendedCard', {}));
  await exchange('v03-rest-error-extended-card-unsupported', 'v0.3 REST GET /v1/card when supportsAuthenticatedExtendedCard=false', { method: 'GET', url: `${bare.restUrl}/v1/card` });
}

/** The v1 server with its v0.3 compatibility layer on: what legacy-shaped requests get. */
async function captureV1Compat(server: OfficialServer): Promise<void> {
  await exchange('v1compat-wellknown-card-no-version', 'v1 server with legacyCompat: card without `A2A-Version` (hybrid v0.3 card)', { method: 'GET', url: server.cardUrl });
  await exchange('v1compat-wellknown-card', 'v1 server with legacyCompat: card with `A2A-Version: 1.0`', { method: 'GET', url: server.cardUrl, headers: { 'A2A-Version': '1.0' } });
  await exchange('v1compat-jsonrpc-send-echo-no-version', 'v1 server with legacyCompat: v0.3 `message/send` without `A2A-Version`', jsonRpc(server.jsonRpcUrl, V03_JSON, 'message/send', { message: v03Message('echo hello'), configuration: { blocking: true } }));
  await exchange('v1compat-jsonrpc-stream-no-version', 'v1 server with legacyCompat: v0.3 `message/stream` without `A2A-Version`', jsonRpc(server.jsonRpcUrl, V03_JSON, 'message/stream', { message: v03Message('stream updates=2 chunks=3') }));
  await exchange('v1compat-jsonrpc-send-echo-v1', 'v1 server with legacyCompat: v1 `SendMessage` with `A2A-Version: 1.0`', jsonRpc(server.jsonRpcUrl, V1_JSON, 'SendMessage', { message: v1Message('echo hello') }));
  await exchange('v1compat-rest-send-echo-v03-path', 'v1 server with legacyCompat: v0.3 REST POST /v1/message:send', {
    method: 'POST',
    url: `${server.restUrl}/v1/message:send`,
    headers: V03_JSON,
    body: { message: { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text: 'echo hello' }] }, configuration: { blocking: true } },
  });
}

async function writeIndex(): Promise<void> {
  // The Surprises section is written by hand after reading the frames: keep it across re-captures.
  let surprises = `${SURPRISES_HEADING}\n\n(none recorded yet)\n`;
  try {
    const previous = await readFile(INDEX_FILE, 'utf8');
    const at = previous.indexOf(SURPRISES_HEADING);
    if (at >= 0) surprises = previous.slice(at);
  } catch {
    // first capture
  }
  const lines = [
    '# Official SDK frames',
    '',
    'Captured by `packages/interop/src/capture-frames.ts` (`npx pnpm@10.34.8 --filter @a2a-tether/interop run capture`)',
    'from @a2a-js/sdk 1.3.0 (A2A v1.0, `v1-*`) and 0.3.14 (A2A v0.3, `v03-*`) running the interop scenario',
    'agent on 127.0.0.1, driven with raw `fetch`. Ids, timestamps and ports are real; re-capturing changes them.',
    'Each file: `{ request: {method, path, headers, body}, response: {status, headers, body} }`; a JSON body is',
    'stored parsed, anything else (SSE, HTML) as the exact text received. `*-error-*-not-supported` and',
    '`*-extended-card-unsupported` come from a second server started with pushNotifications/extended card off;',
    '`v1compat-*` from a v1 server with the SDK\'s v0.3 compatibility layer on.',
    '',
    '## Files',
    '',
    ...indexEntries.map((entry) => `- \`${entry.file}\` — ${entry.summary}`),
    '',
    surprises.trimEnd(),
    '',
  ];
  await writeFile(INDEX_FILE, lines.join('\n'));
}

async function main(): Promise<void> {
  await mkdir(OUT_DIR, { recursive: true });
  // Start from an empty folder (INDEX.md aside) so renamed captures leave no stale files.
  for (const name of await readdir(OUT_DIR)) {
    if (name.endsWith('.json')) await rm(`${OUT_DIR}${name}`);
  }
  const servers = await Promise.all([
    startOfficialV1Server(),
    startOfficialV1Server({ pushNotifications: false, extendedAgentCard: false }),
    startOfficialV03Server(),
    startOfficialV03Server({ pushNotifications: false, extendedAgentCard: false }),
    startOfficialV1Server({ legacyCompat: true }),
  ]);
  const [v1, v1Bare, v03, v03Bare, v1Compat] = servers;
  try {
    await captureV1(v1, v1Bare);
    await captureV03(v03, v03Bare);
    await captureV1Compat(v1Compat);
    await writeIndex();
    console.log(`wrote ${indexEntries.length} frames to ${OUT_DIR}`);
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}

await main();
