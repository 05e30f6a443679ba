import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkCredentials } from './auth.js';
import { applyCors } from './cors.js';
import { buildCard, etagOf, ifNoneMatchHits } from './card.js';
import type { CardUrls } from './card.js';
import { readBody, sendJson } from './http-io.js';
import type { RequestBody } from './http-io.js';
import { handleJsonRpc } from './jsonrpc-binding.js';
import { isCreatingSend } from './lose-answer.js';
import { checkMisbehaviourNames } from './misbehaviour.js';
import type { TestTaskRecord } from './model.js';
import { AgentOperations } from './operations.js';
import type { TestLongPoll } from './operations.js';
import { resolveOptions } from './options.js';
import type { ResolvedOptions, TestAgentBehaviour, TestAgentOptions } from './options.js';
import { PushSender } from './push-sender.js';
import type { RecordedRequest } from './recorded-request.js';
import { handleRest } from './rest-binding.js';
import { BUILT_IN_SCENARIOS } from './scenarios.js';
import { TaskRegistry } from './task-registry.js';

/** Read-only view of the agent's tasks. Every call returns fresh copies. */
export interface TestTaskView {
  get(id: string): TestTaskRecord | undefined;
  /** All tasks, oldest first. */
  list(): TestTaskRecord[];
}

/** A running fake A2A agent. See {@link startTestAgent}. */
export interface TestAgent extends AsyncDisposable {
  /** Base URL: origin plus `basePath`, e.g. `http://127.0.0.1:41234` (pass this to card resolvers). */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** `${url}/.well-known/agent-card.json` (or `agent.json` with `cardPath: 'agent.json'`). */
  readonly cardUrl: string;
  /** `${url}/a2a/jsonrpc`: v1 and v0.3 JSON-RPC (told apart by `A2A-Version` and the method name). */
  readonly jsonRpcUrl: string;
  /** `${url}/a2a/rest`: v1 HTTP+JSON (`/message:send` …) and v0.3 HTTP+JSON (`/v1/message:send` …). */
  readonly restUrl: string;
  /** Every request received, in order. Mutable, so tests may clear it (`requests.length = 0`). */
  readonly requests: RecordedRequest[];
  /** Server-side task state. */
  readonly tasks: TestTaskView;
  /** Push deliveries that failed (network error or non-2xx). */
  readonly pushFailures: number;
  /** Every GetTask with `currentGeneration` under `behaviour.generations` (v1.1 draft), oldest first. */
  readonly longPolls: readonly TestLongPoll[];
  /** True while the listener is up (between start() and stop()). */
  readonly listening: boolean;
  /** Change behaviour switches live; `undefined` restores a default. */
  setBehaviour(partial: TestAgentBehaviour): void;
  /** Accept only `token` as bearer token from now on (enables bearer auth if it was off). */
  rotateBearer(token: string): void;
  /** Close the listener and destroy open connections. Tasks, configs and running scenarios are kept. */
  stop(): Promise<void>;
  /** Listen again on the same port (after stop()). */
  start(): Promise<void>;
  /** Stop for good: abort scenarios, clear their timers, drop push deliveries, close the listener. */
  close(): Promise<void>;
}

const JSON_RPC_PATH = '/a2a/jsonrpc';
const REST_PATH = '/a2a/rest';

class TestAgentServer implements TestAgent {
  readonly requests: RecordedRequest[] = [];
  readonly tasks: TestTaskView;
  private readonly options: ResolvedOptions;
  private readonly registry: TaskRegistry;
  private readonly push = new PushSender();
  private readonly ops: AgentOperations;
  private server: Server | undefined;
  private boundPort: number;
  private closed = false;

  constructor(options: TestAgentOptions) {
    this.options = resolveOptions(options, BUILT_IN_SCENARIOS);
    this.boundPort = this.options.port;
    this.registry = new TaskRegistry({ onEvent: (entry, event) => this.push.deliver(entry, event) }, this.options.behaviour);
    this.ops = new AgentOperations(this.registry, this.options, () => this.cardUrls());
    const registry = this.registry;
    this.tasks = {
      get: (id) => registry.get(id)?.record(),
      list: () => registry.all().map((entry) => entry.record()),
    };
  }

  get port(): number {
    return this.boundPort;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  get url(): string {
    return `${this.origin}${this.options.basePath}`;
  }

  get cardUrl(): string {
    return `${this.url}/.well-known/${this.options.cardPath}`;
  }

  get jsonRpcUrl(): string {
    return `${this.url}${JSON_RPC_PATH}`;
  }

  get restUrl(): string {
    return `${this.url}${REST_PATH}`;
  }

  get pushFailures(): number {
    return this.push.failures;
  }

  get longPolls(): readonly TestLongPoll[] {
    return this.ops.longPolls;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  setBehaviour(partial: TestAgentBehaviour): void {
    checkMisbehaviourNames(partial.misbehave ?? []);
    Object.assign(this.options.behaviour, partial);
  }

  rotateBearer(token: string): void {
    this.options.auth = { ...this.options.auth, bearer: [token] };
  }

  async start(): Promise<void> {
    if (this.closed) throw new Error('This TestAgent was closed; start a new one');
    if (this.server !== undefined) return;
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.boundPort, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.registry.close();
    this.push.close();
    await this.stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private cardUrls(): CardUrls {
    return { jsonRpcUrl: this.jsonRpcUrl, restUrl: this.restUrl };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(req);
      this.record(req, url, body);
      if (applyCors(req, res, this.options.cors)) return;
      const base = this.options.basePath;
      const path = url.pathname;
      if (base !== '' && !path.startsWith(`${base}/`)) {
        this.notFound(res, path);
        return;
      }
      const sub = path.slice(base.length);
      if (sub === `/.well-known/${this.options.cardPath}`) {
        await this.serveCard(req, res);
        return;
      }
      const bindings = this.options.bindings;
      const jsonRpc = sub === JSON_RPC_PATH && bindings.includes('JSONRPC');
      const rest = sub.startsWith(`${REST_PATH}/`) && bindings.includes('HTTP+JSON');
      if (!jsonRpc && !rest) {
        this.notFound(res, path);
        return;
      }
      if (!this.authorize(req, res, url)) return;
      const request = { req, res, url, body, ops: this.ops, options: this.options };
      const restPath = jsonRpc ? undefined : sub.slice(REST_PATH.length);
      // The binding takes the message and starts its run before its first await.
      const handled = restPath === undefined ? handleJsonRpc({ ...request, path: '' }) : handleRest({ ...request, path: restPath });
      if (this.losesAnswer(body, restPath)) {
        req.socket.resetAndDestroy();
        await handled.catch(() => undefined);
        return;
      }
      await handled;
    } catch (error) {
      if (!res.headersSent) {
        sendJson(res, 500, { error: { code: 500, status: 'INTERNAL', message: String(error) } });
      } else {
        res.destroy();
      }
    }
  }

  /** `loseAnswers`: this creating send's answer is lost (counted down). */
  private losesAnswer(body: RequestBody, restPath: string | undefined): boolean {
    const left = this.options.behaviour.loseAnswers ?? 0;
    if (left <= 0 || !isCreatingSend(body, restPath)) return false;
    this.options.behaviour.loseAnswers = left - 1;
    return true;
  }

  private record(req: IncomingMessage, url: URL, body: RequestBody): void {
    let logged: unknown;
    if (!body.invalidJson && body.json !== undefined) logged = body.json;
    else if (body.text !== '') logged = body.text;
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      search: url.search,
      headers: { ...req.headers },
      body: logged,
      at: Date.now(),
    });
  }

  /** Check credentials; on failure answer 401 with WWW-Authenticate challenges. */
  private authorize(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const auth = this.options.auth;
    if (auth === undefined) return true;
    const check = checkCredentials(auth, req.headers, url.searchParams);
    if (check.ok) return true;
    sendJson(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: check.message } }, 'application/json', {
      'WWW-Authenticate': check.challenges,
    });
    return false;
  }

  private async serveCard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: { code: 405, status: 'UNIMPLEMENTED', message: 'The agent card is GET only' } }, 'application/json', {
        Allow: 'GET, HEAD',
      });
      return;
    }
    const built = buildCard(this.options, this.cardUrls(), this.options.cardShape, false);
    const text = JSON.stringify(this.options.cardOverride ? await this.options.cardOverride(built) : built);
    const etag = etagOf(text);
    const headers = { 'Cache-Control': `max-age=${this.options.cardMaxAgeSeconds}`, ETag: etag };
    const inm = req.headers['if-none-match'];
    if (ifNoneMatchHits(inm, etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  private notFound(res: ServerResponse, path: string): void {
    sendJson(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: `Nothing at ${path}` } });
  }
}

/**
 * Start a scriptable fake A2A agent on 127.0.0.1 (port 0 by default). It speaks v1.0 and v0.3 over
 * JSON-RPC and HTTP+JSON, writing every wire shape itself, and runs scenarios picked by the first word
 * of the user's first text part (`stream updates=3 chunks=5`, `input`, `slow` …; unknown words → `echo`).
 *
 * @example
 * ```ts
 * await using agent = await startTestAgent({ versions: ['1.0'] });
 * const card = await (await fetch(agent.cardUrl)).json();
 * ```
 */
export async function startTestAgent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const agent = new TestAgentServer(options);
  await agent.start();
  return agent;
}
