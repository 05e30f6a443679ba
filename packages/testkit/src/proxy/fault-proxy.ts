import { Buffer } from 'node:buffer';
import { randomInt } from 'node:crypto';
import { Agent, STATUS_CODES, createServer, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chaosBeforeForwarding, chaosForResponse, resolveChaos } from './chaos.js';
import type { ChaosOptions, ResolvedChaos } from './chaos.js';
import { countsEvents, matchesRequest, matchesResponse } from './fault-match.js';
import type { RequestFacts } from './fault-match.js';
import { actsBeforeForwarding, describeFault, validateFaultRule } from './fault-rule.js';
import type { CutFault, DripFault, FaultRule, StallFault, StatusFault } from './fault-rule.js';
import { clientResponseHeaders, upstreamRequestHeaders } from './forward-headers.js';
import { emptyStats } from './proxy-stats.js';
import type { FaultProxyLogEntry, FaultProxyStats } from './proxy-stats.js';
import { ResponseRelay, resetSocket } from './response-relay.js';
import type { RelayIo } from './response-relay.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';

/** Options for {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Where to forward, e.g. `agent.origin`. A path in it only shapes {@link FaultProxy.url}. */
  target: string;
  /** Seed of the PRNG behind rule probabilities and chaos. Default: a random seed, shown in `stats.seed`. */
  seed?: number | undefined;
  /** Default `127.0.0.1`. The proxy is meant for loopback tests. */
  host?: string | undefined;
  /** Default 0 (any free port). */
  port?: number | undefined;
  /**
   * A request header (e.g. `x-chaos-task`) that gives each group of requests its own random choices:
   * a request carrying it draws from a PRNG derived from the seed, the header's value and how many
   * requests with that value came before. One task's requests, tagged alike, then get the same faults
   * however they interleave with other tasks'. Requests without it share the proxy's PRNG. The header
   * is not forwarded. Default: none (one PRNG for every request).
   */
  tagHeader?: string | undefined;
}

/** A running fault-injecting reverse proxy. See {@link startFaultProxy}. */
export interface FaultProxy extends AsyncDisposable {
  /** The target URL as seen through the proxy: proxy origin plus the target's path. */
  readonly url: string;
  /** `http://<host>:<port>` of the proxy. */
  readonly origin: string;
  readonly port: number;
  /** The target's origin, which JSON bodies get rewritten from. */
  readonly target: string;
  /** The PRNG seed in use (also `stats.seed`). */
  readonly seed: number;
  /** A fresh copy of the counters. */
  readonly stats: FaultProxyStats;
  /** One entry per request, in arrival order, updated while responses flow. Mutable, so tests may clear it. */
  readonly log: FaultProxyLogEntry[];
  /**
   * Add a fault rule. Rules are tried in order of addition and at most one fault applies per request.
   * A rule that acts before forwarding (`dropRequest`, `status` without `forward`) applies at once, even
   * over earlier rules that wait to see whether the response is SSE.
   */
  addFault(rule: FaultRule): void;
  /** Remove every rule (chaos stays as it is). */
  clearFaults(): void;
  /**
   * Random faults on every matching request that no rule claimed, until `chaos(false)`. Choices come from
   * the proxy's seeded PRNG, so the same seed and the same (sequential) requests give the same faults;
   * with `tagHeader`, the same seed and the same requests of one tag do, whatever else runs meanwhile.
   */
  chaos(options: ChaosOptions | false): void;
  /** Stop listening and destroy every client and upstream connection, stalled ones included. */
  close(): Promise<void>;
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

/** Faults that may still apply once the response is known. */
interface PendingFaults {
  /** Rules that wait for the response's content type (`match.sse`), in order. */
  deferred: ActiveRule[];
  /** The first rule without `match.sse` that matched (and won its probability roll). */
  chosen: ActiveRule | undefined;
}

/** A fault chosen for one request, and how the log names it. */
interface Applied {
  rule: FaultRule;
  label: string;
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.includes('json') === true;
}

function isSse(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().includes('text/event-stream') === true;
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The JSON-RPC `method` of a request body, if it is one. */
function rpcMethodOf(body: Buffer): string | undefined {
  try {
    const json: unknown = JSON.parse(body.toString('utf8'));
    if (typeof json === 'object' && json !== null && 'method' in json && typeof json.method === 'string') return json.method;
  } catch {
    // Not JSON: nothing to match on.
  }
  return undefined;
}

function defaultStatusBody(status: number): string {
  const title = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
  const page = `<head><title>${title}</title></head><body><h1>${title}</h1><p>Injected by the fault proxy.</p></body>`;
  return `<!doctype html><html>${page}</html>\n`;
}

class FaultProxyServer implements FaultProxy {
  readonly log: FaultProxyLogEntry[] = [];
  readonly target: string;
  private readonly targetUrl: URL;
  private readonly host: string;
  private boundPort: number;
  private readonly server: Server;
  // A private pool, so close() can destroy idle upstream sockets too.
  private readonly upstreamAgent = new Agent({ keepAlive: true });
  private readonly upstreamRequests = new Set<ClientRequest>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly counters: FaultProxyStats;
  private rng: SeededRandom;
  private readonly tagHeader: string | undefined;
  /** Requests seen per tag value (since the last reseed): the next one's ordinal. */
  private readonly tagCounts = new Map<string, number>();
  private rules: ActiveRule[] = [];
  private chaosSettings: ResolvedChaos | undefined;
  private nextId = 1;
  private closed = false;

  constructor(options: FaultProxyOptions) {
    this.targetUrl = new URL(options.target);
    if (this.targetUrl.protocol !== 'http:') throw new TypeError(`The fault proxy forwards to http: targets only, got ${options.target}`);
    this.target = this.targetUrl.origin;
    this.host = options.host ?? '127.0.0.1';
    this.boundPort = options.port ?? 0;
    const seed = options.seed ?? randomInt(0x1_0000_0000);
    this.rng = new SeededRandom(seed);
    this.tagHeader = options.tagHeader?.toLowerCase();
    this.counters = emptyStats(seed);
    this.server = createServer((req, res) => {
      const handling = this.handle(req, res).finally(() => this.inFlight.delete(handling));
      this.inFlight.add(handling);
    });
  }

  get port(): number {
    return this.boundPort;
  }

  get origin(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.boundPort}`;
  }

  get url(): string {
    return `${this.origin}${this.targetUrl.pathname.replace(/\/+$/, '')}`;
  }

  get seed(): number {
    return this.counters.seed;
  }

  get stats(): FaultProxyStats {
    return { ...this.counters, cuts: { ...this.counters.cuts } };
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.boundPort, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (this.server.address() as AddressInfo).port;
  }

  addFault(rule: FaultRule): void {
    validateFaultRule(rule);
    this.rules.push({ rule, remaining: rule.times ?? 1 });
  }

  clearFaults(): void {
    // Requests already in flight hold on to the rules they picked; used up, those no longer apply.
    for (const active of this.rules) active.remaining = 0;
    this.rules = [];
  }

  chaos(options: ChaosOptions | false): void {
    if (options === false) {
      this.chaosSettings = undefined;
      return;
    }
    const settings = resolveChaos(options);
    if (options.seed !== undefined) {
      this.rng = new SeededRandom(options.seed);
      this.tagCounts.clear();
      this.counters.seed = options.seed;
    }
    this.chaosSettings = settings;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    for (const upstream of this.upstreamRequests) upstream.destroy();
    this.upstreamAgent.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    // Handlers settle quickly once their sockets are gone; wait so nothing touches stats after close().
    await Promise.allSettled([...this.inFlight]);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private roll(rule: FaultRule, rng: SeededRandom): boolean {
    return rule.probability === undefined || rng.chance(rule.probability);
  }

  /**
   * The PRNG behind one request's choices: the shared one, or for a tagged request one of its own,
   * derived from the seed, the tag and the request's ordinal within the tag (taken on arrival).
   */
  private randomFor(tag: string | undefined): SeededRandom {
    if (tag === undefined) return this.rng;
    const ordinal = this.tagCounts.get(tag) ?? 0;
    this.tagCounts.set(tag, ordinal + 1);
    return new SeededRandom(deriveSeed(this.counters.seed, tag, ordinal));
  }

  /** Walk the rules before forwarding: a fault to apply now, or what may apply to the response. */
  private selectBeforeForwarding(request: RequestFacts, rng: SeededRandom): Applied | PendingFaults {
    const deferred: ActiveRule[] = [];
    for (const active of this.rules) {
      if (active.remaining <= 0 || !matchesRequest(active.rule.match, request)) continue;
      // Rules that depend on the response's kind wait until its content type is known.
      if (active.rule.match?.sse !== undefined || countsEvents(active.rule)) {
        deferred.push(active);
        continue;
      }
      if (!this.roll(active.rule, rng)) continue;
      if (!actsBeforeForwarding(active.rule)) return { deferred, chosen: active };
      active.remaining--;
      return { rule: active.rule, label: describeFault(active.rule) };
    }
    if (this.chaosSettings !== undefined && deferred.length === 0) {
      const rule = chaosBeforeForwarding(this.chaosSettings, rng, request);
      if (rule !== undefined) return { rule, label: `chaos: ${describeFault(rule)}` };
    }
    return { deferred, chosen: undefined };
  }

  /** Once the response's content type is known. A rule is used up only when it is applied. */
  private selectForResponse(pending: PendingFaults, request: RequestFacts, sse: boolean, rng: SeededRandom): Applied | undefined {
    for (const active of pending.deferred) {
      const rule = active.rule;
      if (active.remaining <= 0 || !matchesResponse(rule.match, sse, countsEvents(rule)) || !this.roll(rule, rng)) continue;
      active.remaining--;
      return { rule: active.rule, label: describeFault(active.rule) };
    }
    // A concurrent request may have used the chosen rule up meanwhile.
    if (pending.chosen !== undefined && pending.chosen.remaining > 0) {
      pending.chosen.remaining--;
      return { rule: pending.chosen.rule, label: describeFault(pending.chosen.rule) };
    }
    if (pending.chosen === undefined && this.chaosSettings !== undefined) {
      const rule = chaosForResponse(this.chaosSettings, rng, request, sse);
      if (rule !== undefined) return { rule, label: `chaos: ${describeFault(rule)}` };
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.counters.requests++;
    const entry: FaultProxyLogEntry = {
      id: this.nextId++,
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://proxy.invalid').pathname,
      sse: false,
      eventsForwarded: 0,
      bytesForwarded: 0,
      writes: 0,
      at: Date.now(),
    };
    const tagValue = this.tagHeader === undefined ? undefined : req.headers[this.tagHeader];
    const tag = Array.isArray(tagValue) ? tagValue.join(', ') : tagValue;
    if (tag !== undefined) entry.tag = tag;
    // Taken now, on arrival: a tag's ordinals follow the order its requests reached the proxy.
    const rng = this.randomFor(tag);
    this.log.push(entry);
    const clientClosed = new Promise<void>((resolve) => res.once('close', resolve));
    // One signal per request, ended by the client leaving or the proxy closing. Linked by hand:
    // AbortSignal.any would keep a link from the long-lived closing signal for every request.
    const requestDone = new AbortController();
    const onProxyClosing = (): void => requestDone.abort();
    this.closing.signal.addEventListener('abort', onProxyClosing, { once: true });
    res.once('close', () => {
      this.closing.signal.removeEventListener('abort', onProxyClosing);
      requestDone.abort();
    });
    const signal = requestDone.signal;
    try {
      // JSON bodies are read whole: rules match on the JSON-RPC method before deciding to forward.
      const body = isJson(req.headers['content-type']) ? await readAll(req) : undefined;
      const rpcMethod = body === undefined ? undefined : rpcMethodOf(body);
      if (rpcMethod !== undefined) entry.rpcMethod = rpcMethod;
      const request: RequestFacts = { method: entry.method, path: entry.path, rpcMethod };

      const selected = this.selectBeforeForwarding(request, rng);
      if ('rule' in selected) {
        entry.fault = selected.label;
        if (selected.rule.kind === 'status') this.sendStatus(res, entry, selected.rule);
        else {
          this.counters.droppedRequests++;
          resetSocket(req.socket);
        }
        return;
      }

      const upstreamRes = await this.forward(req, body, signal);
      entry.sse = isSse(upstreamRes.headers['content-type']);
      const applied = this.selectForResponse(selected, request, entry.sse, rng);
      if (applied !== undefined) entry.fault = applied.label;
      const fault = applied?.rule;
      switch (fault?.kind) {
        case 'loseAnswer':
        case 'status':
          // The agent answers in full; the client gets a reset or the injected status instead.
          await readAll(upstreamRes);
          if (fault.kind === 'status') this.sendStatus(res, entry, fault);
          else {
            this.counters.lostAnswers++;
            resetSocket(req.socket);
          }
          return;
        case 'delayHeaders':
          this.counters.delayedHeaders++;
          await sleep(fault.ms, undefined, { signal });
          await this.relay(req, res, upstreamRes, undefined, { clientClosed, signal, entry });
          return;
        case 'cut':
        case 'stall':
        case 'drip':
        case undefined:
          await this.relay(req, res, upstreamRes, fault, { clientClosed, signal, entry });
          return;
        case 'dropRequest':
          throw new Error('unreachable: dropRequest acts before forwarding');
      }
    } catch (error) {
      if (this.closing.signal.aborted || res.destroyed) return;
      if (!res.headersSent) {
        const reason = error instanceof Error ? error.message : String(error);
        const message = `Fault proxy: ${entry.method} ${this.target}${req.url ?? ''} failed: ${reason}`;
        entry.status = 502;
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(message) });
        res.end(message);
      } else {
        resetSocket(req.socket);
      }
    }
  }

  /** Send the agent's response on: headers (origin-rewritten JSON), then the body through a relay. */
  private async relay(
    req: IncomingMessage,
    res: ServerResponse,
    upstreamRes: IncomingMessage,
    fault: CutFault | StallFault | DripFault | undefined,
    context: Pick<RelayIo, 'clientClosed' | 'signal' | 'entry'>,
  ): Promise<void> {
    const drop: string[] = [];
    const extra: string[] = [];
    // A clean early end must not leave the client waiting for a promised Content-Length.
    const cleanCut = fault?.kind === 'cut' && fault.mode === 'end';
    if (cleanCut) drop.push('content-length');
    let source: AsyncIterable<Uint8Array> | Iterable<Uint8Array> = upstreamRes;
    if (!context.entry.sse && this.mayRewrite(req, upstreamRes)) {
      const original = await readAll(upstreamRes);
      const text = original.toString('utf8');
      // The agent card names the agent's own URLs; rewriting them keeps clients going through the proxy.
      const rewritten = text.includes(this.target) ? Buffer.from(text.replaceAll(this.target, this.origin)) : original;
      source = [rewritten];
      if (rewritten !== original && !cleanCut && upstreamRes.headers['content-length'] !== undefined) {
        drop.push('content-length');
        extra.push('Content-Length', String(rewritten.length));
      }
    }
    const headers = [...clientResponseHeaders(upstreamRes.rawHeaders, drop), ...extra];
    res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, headers);
    // SSE clients (and stall tests) must see the headers now, not with the first body bytes.
    res.flushHeaders();
    context.entry.status = upstreamRes.statusCode;
    const io: RelayIo = { ...context, res, socket: req.socket, proxyClosing: this.closing.signal, stats: this.counters };
    await new ResponseRelay(io, fault, context.entry.sse).run(source);
    // A cut or a stall may leave the agent's response unread: the agent must see its client go.
    if (!upstreamRes.complete) upstreamRes.destroy();
  }

  /** JSON answers with a body are read whole so the target origin in them can be rewritten. */
  private mayRewrite(req: IncomingMessage, upstreamRes: IncomingMessage): boolean {
    const encoding = upstreamRes.headers['content-encoding'];
    return (
      isJson(upstreamRes.headers['content-type']) &&
      (encoding === undefined || encoding === 'identity') &&
      req.method !== 'HEAD' &&
      upstreamRes.statusCode !== 204 &&
      upstreamRes.statusCode !== 304
    );
  }

  /** Send the request on; resolves with the agent's response headers. */
  private forward(req: IncomingMessage, body: Buffer | undefined, signal: AbortSignal): Promise<IncomingMessage> {
    this.counters.forwarded++;
    const upstream = httpRequest({
      host: this.targetUrl.hostname,
      port: this.targetUrl.port,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: upstreamRequestHeaders(req.headers, this.tagHeader === undefined ? [] : [this.tagHeader]),
      agent: this.upstreamAgent,
    });
    this.upstreamRequests.add(upstream);
    upstream.once('close', () => this.upstreamRequests.delete(upstream));
    // The client went away or the proxy closed: the agent must see its client disconnect.
    const abort = (): void => {
      upstream.destroy();
    };
    signal.addEventListener('abort', abort, { once: true });
    upstream.once('close', () => signal.removeEventListener('abort', abort));
    if (signal.aborted) upstream.destroy();
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      upstream.once('response', resolve);
      // Kept for the request's lifetime: a later error (after the response began) must not go unhandled.
      upstream.on('error', reject);
    });
    if (body !== undefined) upstream.end(body);
    else req.pipe(upstream);
    return response;
  }

  private sendStatus(res: ServerResponse, entry: FaultProxyLogEntry, fault: StatusFault): void {
    const body = fault.body ?? defaultStatusBody(fault.status);
    const headers: Record<string, string | number> = {
      'Content-Type': fault.contentType ?? 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    };
    if (fault.retryAfter !== undefined) headers['Retry-After'] = String(fault.retryAfter);
    this.counters.injectedStatus++;
    entry.status = fault.status;
    res.writeHead(fault.status, headers);
    res.end(body);
  }
}

/**
 * Start a fault-injecting reverse proxy in front of `target` (usually a {@link startTestAgent} agent).
 * It forwards every request as-is and streams bodies back, rewriting the target origin in JSON bodies
 * to its own (so an agent card's URLs lead through the proxy). Rules and seeded chaos inject what real
 * networks do to A2A clients: dropped and cleanly-ended SSE streams, resets, 503/429 bursts, stalls,
 * slow bodies, lost answers.
 *
 * @example
 * ```ts
 * await using agent = await startTestAgent();
 * await using proxy = await startFaultProxy({ target: agent.origin, seed: 1 });
 * proxy.addFault({ kind: 'cut', afterEvents: 2, mode: 'end', match: { sse: true } });
 * const card = await (await fetch(`${proxy.url}/.well-known/agent-card.json`)).json(); // URLs → proxy
 * ```
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const proxy = new FaultProxyServer(options);
  await proxy.listen();
  return proxy;
}
