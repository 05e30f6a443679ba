import type { FetchLike } from '@a2a-tether/core';
import { createMemoryOwnership, ownershipKey, type RelayOwnership } from './owner-book.js';
import { OwnerLimits } from './owner-limits.js';
import { httpError, redactor, refusalAnswer, type Refusal, type RelayInterface } from './relay-answer.js';
import { readBounded } from './relay-body.js';
import { jsonRpcCall, restCall, type RelayCall } from './relay-call.js';
import { CardDesk, cardUrlOf, interfaceOfSlug } from './relay-card.js';
import { idsIn, payloadOf, stripPushSecrets } from './relay-ids.js';
import { RELAY_DEFAULTS, type RelayAgent, type RelayHeaders, type RelayLimits, type RelayOptions } from './relay-options.js';
import { relayEvents } from './relay-stream.js';

/** A Web-standard route handler: Next.js App Router, Hono, Remix / React Router, SvelteKit, Bun, Deno. */
export type RelayHandler = (request: Request) => Promise<Response>;

interface Served {
  readonly name: string;
  readonly headers: RelayHeaders | undefined;
  readonly allowPush: boolean;
  readonly desk: CardDesk;
}

// What the browser may tell the agent; nothing else it sends (cookies, its own Authorization …) is passed on.
const REQUEST_HEADERS = ['content-type', 'accept', 'a2a-version', 'a2a-extensions', 'x-a2a-extensions', 'last-event-id', 'traceparent', 'tracestate'];
// What the browser may see of the agent's answer.
const ANSWER_HEADERS = ['content-type', 'retry-after', 'a2a-version', 'a2a-extensions', 'x-a2a-extensions'];
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const STREAMING = /^(SendStreamingMessage|message\/stream|POST \/.*message:stream)$/;

function pick(headers: Headers, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

function serve(name: string, agent: string | RelayAgent, fetch: FetchLike, limits: RelayLimits): Served {
  if (!NAME.test(name) || name === '.well-known') throw new TypeError(`createRelay: agent name "${name}" is not one path segment of letters, digits, ".", "_" or "-"`);
  const spec = typeof agent === 'string' ? { url: agent } : agent;
  const url = new URL(spec.url);
  const origins = new Set([url.origin, ...(spec.origins ?? []).map((o) => new URL(o).origin)]);
  return { name, headers: spec.headers, allowPush: spec.allowPush ?? false, desk: new CardDesk({ cardUrl: cardUrlOf(url.href), origins }, fetch, limits.cardTtlMs) };
}

/**
 * A relay route: serves agents under the app's own origin, so a page's `connect(new URL('/api/a2a/helper',
 * location.href))` needs no CORS and no option. `GET {basePath}/{agent}/.well-known/agent-card.json` is the
 * agent's card with the relay's URLs; `{basePath}/{agent}/{jsonrpc|rest}-{1.0|0.3}` passes calls on, with
 * the agent's credentials added (and cut out of everything sent back), streams passed through with
 * `Last-Event-ID`, and the browser going away aborting the agent's request.
 *
 * Whose task is whose: `owner(request)` names the session's user; a task or context created through the
 * relay is its owner's, and get, subscribe, cancel, replies (a send naming its `taskId` or `contextId`), a
 * send referring to it (`referenceTaskIds`) and push calls from anyone else — or for ids the relay never
 * saw created — are answered TaskNotFound, as the agent answers an id it does not know; list answers keep
 * the owner's tasks only. Push-config calls are
 * refused unless the agent's `allowPush`; any call not listed (the extended card …) is refused. Bodies,
 * requests per minute and open streams per owner are bounded ({@link RELAY_DEFAULTS}).
 *
 * @throws TypeError for an agent name that is not one path segment, or an agent URL that is not one.
 */
export function createRelay(options: RelayOptions): RelayHandler {
  const limits: RelayLimits = { ...RELAY_DEFAULTS, ...options.limits };
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const agents = new Map(Object.entries(options.agents).map(([name, agent]) => [name, serve(name, agent, fetch, limits)]));
  const ownership: RelayOwnership = options.ownership ?? createMemoryOwnership();
  const bounds = new OwnerLimits(limits.requestsPerMinute, limits.streamsPerOwner);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');

  const owns = async (agent: string, kind: 'task' | 'context', id: string, owner: string): Promise<boolean> =>
    (await ownership.ownerOf(ownershipKey(agent, kind, id))) === owner;

  /** Whether a payload may reach `owner`: every id it names is theirs (a send's new ids become theirs). */
  const admit = async (agent: string, call: RelayCall, owner: string, payload: unknown): Promise<boolean> => {
    const { taskIds, contextIds } = idsIn(payload);
    const named = [...taskIds.map((id) => ['task', id] as const), ...contextIds.map((id) => ['context', id] as const)];
    for (const [kind, id] of named) {
      const key = ownershipKey(agent, kind, id);
      const holder = call.kind === 'send' ? await ownership.claim(key, owner) : await ownership.ownerOf(key);
      if (holder !== owner) return false;
    }
    return true;
  };

  /** A call's verdict before it is passed on. */
  const judge = async (served: Served, call: RelayCall, owner: string): Promise<Refusal | undefined> => {
    if (call.kind === 'denied') return 'denied';
    if (call.kind === 'push' && !served.allowPush) return 'push';
    if (call.kind === 'send' && call.pushInSend === true && !served.allowPush) return 'push';
    if (call.taskId !== undefined && !(await owns(served.name, 'task', call.taskId, owner))) return 'not-found';
    if (call.kind === 'send' && call.contextId !== undefined && !(await owns(served.name, 'context', call.contextId, owner))) return 'not-found';
    for (const id of call.referenceTaskIds ?? []) if (!(await owns(served.name, 'task', id, owner))) return 'not-found';
    return undefined;
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(`${basePath}/`)) return httpError(404, 'not a relay path');
    const [name = '', ...segments] = url.pathname.slice(basePath.length + 1).split('/');
    const served = agents.get(name);
    if (served === undefined) return httpError(404, `no agent "${name}" here`);
    const owner = await options.owner(request);
    if (owner === undefined || owner === '') return httpError(401, 'no session: sign in first');
    const limited = bounds.request(owner);
    if (limited) return httpError(429, `too many requests: ${limited.reason}`, { 'retry-after': String(limited.retryAfterSeconds) });
    const credentials = typeof served.headers === 'function' ? await served.headers(request) : (served.headers ?? {});
    const redact = redactor(Object.values(credentials));
    const base = `${options.publicOrigin?.replace(/\/+$/, '') ?? url.origin}${basePath}/${name}`;
    const rest = segments.join('/');

    if (rest === '.well-known/agent-card.json' || rest === '.well-known/agent.json') {
      if (request.method !== 'GET') return httpError(404, 'the card is GET only');
      const card = await served.desk.card(request.headers.get('a2a-version') ?? '', credentials, request.signal);
      const text = redact(JSON.stringify(served.desk.rewrite(card, base, served.allowPush)));
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'private, max-age=60', vary: 'A2A-Version, Cookie' } });
    }

    const iface = interfaceOfSlug(segments[0] ?? '');
    if (iface === undefined) return httpError(404, `nothing at ${url.pathname}`);
    const upstream = await served.desk.upstreamUrl(iface, credentials, request.signal);
    if (upstream === undefined) return httpError(404, `the agent has no ${iface.binding} ${iface.version} interface here`);
    const body = request.method === 'GET' || request.method === 'HEAD' ? new Uint8Array() : await readBounded(request.body, limits.maxBodyBytes, request.headers.get('content-length'));
    if (body === undefined) return httpError(413, `the request body is over ${limits.maxBodyBytes} bytes`);
    let parsed: unknown;
    try {
      parsed = body.byteLength === 0 ? undefined : (JSON.parse(new TextDecoder().decode(body)) as unknown);
    } catch {
      return httpError(400, 'the request body is not JSON');
    }
    const sub = `/${segments.slice(1).join('/')}`;
    const rpc = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { id?: unknown; method?: unknown; params?: unknown };
    const call: RelayCall =
      iface.binding === 'JSONRPC'
        ? request.method === 'POST' && sub === '/' && typeof rpc.method === 'string'
          ? jsonRpcCall(rpc.method, rpc.params)
          : { kind: 'denied', name: `${request.method} ${sub}` }
        : restCall(iface.version, request.method, sub, url.searchParams, parsed);
    const refused = await judge(served, call, owner);
    if (refused) return refusalAnswer(iface, rpc.id, refused, call.name);
    return forward({ served, iface, call, owner, request, body, redact, credentials, rpcId: rpc.id, target: iface.binding === 'JSONRPC' ? upstream : `${upstream.replace(/\/+$/, '')}${sub}${url.search}` });
  };

  interface Forward {
    served: Served;
    iface: RelayInterface;
    call: RelayCall;
    owner: string;
    request: Request;
    body: Uint8Array<ArrayBuffer>;
    redact: (text: string) => string;
    credentials: Record<string, string>;
    rpcId: unknown;
    target: string;
  }

  const forward = async ({ served, iface, call, owner, request, body, redact, credentials, rpcId, target }: Forward): Promise<Response> => {
    const streaming = call.kind === 'subscribe' || STREAMING.test(call.name);
    const release = streaming ? bounds.openStream(owner) : undefined;
    if (release !== undefined && typeof release !== 'function') return httpError(429, `too many streams: ${release.reason}`, { 'retry-after': String(release.retryAfterSeconds) });
    const upstreamAbort = new AbortController();
    const headersTimer = setTimeout(() => upstreamAbort.abort(new Error('the agent did not answer in time')), limits.headersTimeoutMs);
    let response: Response;
    try {
      response = await fetch(target, {
        method: request.method,
        headers: { ...pick(request.headers, REQUEST_HEADERS), ...credentials },
        ...(body.byteLength > 0 ? { body } : {}),
        redirect: 'manual',
        signal: AbortSignal.any([request.signal, upstreamAbort.signal]),
      });
    } catch {
      release?.();
      // Never quoted: a fetch error may name the request, headers and all.
      return request.signal.aborted ? httpError(502, 'the request was aborted') : httpError(upstreamAbort.signal.aborted ? 504 : 502, 'the agent could not be reached');
    } finally {
      clearTimeout(headersTimer);
    }
    const headers = pick(response.headers, ANSWER_HEADERS);
    if (response.status >= 300 && response.status < 400) {
      release?.();
      await response.body?.cancel().catch(() => undefined);
      return httpError(502, 'the agent answered with a redirect, which the relay does not follow');
    }
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && response.body !== null && /^text\/event-stream/i.test(type)) {
      const events = relayEvents(response.body, {
        redact,
        admit: (payload) => admit(served.name, call, owner, payload),
        maxEventChars: limits.maxAnswerBytes,
        onEnd: () => release?.(),
        abort: () => upstreamAbort.abort(),
      });
      return new Response(events, { status: response.status, headers: { ...headers, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } });
    }
    release?.();
    const raw = await readBounded(response.body, limits.maxAnswerBytes, response.headers.get('content-length'));
    if (raw === undefined) return httpError(502, `the agent's answer is over ${limits.maxAnswerBytes} bytes`);
    let text = new TextDecoder().decode(raw);
    const json = (() => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    })();
    const payload = payloadOf(json);
    if (payload !== undefined && response.ok) {
      if (call.kind === 'list') {
        const page = payload as { tasks?: unknown; totalSize?: unknown };
        if (Array.isArray(page.tasks)) {
          const kept = [];
          for (const task of page.tasks as { id?: unknown }[]) if (typeof task.id === 'string' && (await owns(served.name, 'task', task.id, owner))) kept.push(task);
          page.tasks = kept;
          if (page.totalSize !== undefined) page.totalSize = kept.length;
        }
      } else if (!(await admit(served.name, call, owner, payload))) {
        return refusalAnswer(iface, rpcId, 'not-found', call.name);
      }
      if (call.kind === 'push') stripPushSecrets(payload);
      text = JSON.stringify(json);
    }
    return new Response(redact(text), { status: response.status, headers });
  };

  return async (request) => {
    try {
      return await handle(request);
    } catch {
      // Whatever failed (the card, the ownership store), its message may quote a request: not shown.
      return httpError(502, 'the relay could not serve this request');
    }
  };
}
