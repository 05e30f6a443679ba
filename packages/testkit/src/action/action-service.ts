import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, readBody, sendJson } from '../agent/http-io.js';
import type { RequestBody } from '../agent/http-io.js';

/** Options of {@link startActionService}. */
export interface ActionServiceOptions {
  /**
   * Whether the service honours idempotency keys (a second perform with a known key returns the first
   * record and performs nothing). Default true.
   */
  dedupe?: boolean | undefined;
  /** Delay before answering an HTTP perform, after recording it. Default 0. */
  delayMs?: number | undefined;
}

/** One call of {@link ActionService.perform} (or `POST /actions`), as the service recorded it. */
export interface PerformedAction {
  /** 1, 2, 3 … in the order effects were performed. A deduplicated call carries the first record's seq. */
  seq: number;
  /** The idempotency key the caller gave. */
  key: string;
  operation: string;
  input: unknown;
  /** ISO 8601 time the effect was performed. */
  at: string;
  /** Set (to the first record's seq) when this call found the key already performed (dedupe) and did nothing. */
  duplicateOf?: number | undefined;
}

/**
 * A fake external system with side effects (a payment API, a mailer …) for tests of code that must never
 * repeat an effect without checking first. It performs "actions" keyed by an idempotency key, records
 * every effect, and can lose or delay its answers and refuse lookups. See {@link startActionService}.
 *
 * HTTP API (JSON):
 * - `POST /actions` with `{key, operation, input}` → 200 with the {@link PerformedAction};
 *   400 for bad JSON or a missing/ill-typed field, 413 for a body over 1 MiB.
 * - `GET /actions/<encodeURIComponent(key)>` → 200 with the first record for the key, 404
 *   `{error: 'not found'}`, or 503 `{error: 'lookup unavailable'}` while {@link ActionService.setLookupAvailable}
 *   is false.
 */
export interface ActionService extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Perform in-process (what an agent scenario calls): records and returns the record. Honours dedupe. */
  perform(key: string, operation: string, input: unknown): PerformedAction;
  /** What the service did for this key (the first performance), or undefined. */
  lookup(key: string): PerformedAction | undefined;
  /** Every call that performed an effect (not the deduplicated ones), in order. Fresh copies. */
  readonly effects: readonly PerformedAction[];
  /** Every perform call, deduplicated ones included (with `duplicateOf`), in order. Fresh copies. */
  readonly calls: readonly PerformedAction[];
  /** How many effects were performed for this key (2+ means a duplicated side effect). */
  count(key: string): number;
  /**
   * The next `n` HTTP performs record the effect and then lose the answer (the connection is destroyed
   * without a response). Takes precedence over {@link ActionService.delayNextAnswers}.
   */
  loseNextAnswers(n: number): void;
  /** The next `n` HTTP performs (not lost ones) record the effect and answer only after `ms`. */
  delayNextAnswers(n: number, ms: number): void;
  /** Lookups (`GET /actions/…`) answer 503 while false: the service cannot be queried. Default true. */
  setLookupAvailable(available: boolean): void;
  /** Stop listening and destroy open connections (answers still pending are dropped). */
  close(): Promise<void>;
}

const ACTIONS_PATH = '/actions';
/** Largest `POST /actions` body accepted (1 MiB); bigger ones get 413. */
const MAX_PERFORM_BODY_BYTES = 1024 * 1024;

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
}

class ActionServiceServer implements ActionService {
  private readonly records: PerformedAction[] = [];
  private readonly callLog: PerformedAction[] = [];
  private readonly firstByKey = new Map<string, PerformedAction>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly server: Server;
  private readonly dedupe: boolean;
  private readonly delayMs: number;
  private toLose = 0;
  private toDelay = 0;
  private nextDelayMs = 0;
  private lookupAvailable = true;
  private closed = false;
  private port = 0;

  constructor(options: ActionServiceOptions) {
    this.dedupe = options.dedupe ?? true;
    this.delayMs = options.delayMs ?? 0;
    checkCount('delayMs', this.delayMs);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (res.headersSent) res.destroy();
        else sendJson(res, 500, { error: 'internal error' });
      });
    });
  }

  /** Listen on a free loopback port. */
  listen(): Promise<void> {
    const server = this.server;
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get effects(): readonly PerformedAction[] {
    return this.records.map((record) => ({ ...record }));
  }

  get calls(): readonly PerformedAction[] {
    return this.callLog.map((record) => ({ ...record }));
  }

  perform(key: string, operation: string, input: unknown): PerformedAction {
    const first = this.firstByKey.get(key);
    if (this.dedupe && first !== undefined) {
      const duplicate = { ...first, duplicateOf: first.seq };
      this.callLog.push(duplicate);
      return { ...duplicate };
    }
    const record: PerformedAction = { seq: this.records.length + 1, key, operation, input, at: new Date().toISOString() };
    this.records.push(record);
    this.callLog.push(record);
    if (first === undefined) this.firstByKey.set(key, record);
    return { ...record };
  }

  lookup(key: string): PerformedAction | undefined {
    const first = this.firstByKey.get(key);
    return first === undefined ? undefined : { ...first };
  }

  count(key: string): number {
    return this.records.filter((record) => record.key === key).length;
  }

  loseNextAnswers(n: number): void {
    checkCount('loseNextAnswers(n)', n);
    this.toLose = n;
  }

  delayNextAnswers(n: number, ms: number): void {
    checkCount('delayNextAnswers(n)', n);
    checkCount('delayNextAnswers(ms)', ms);
    this.toDelay = n;
    this.nextDelayMs = ms;
  }

  setLookupAvailable(available: boolean): void {
    this.lookupAvailable = available;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === ACTIONS_PATH) {
      if (req.method === 'POST') await this.handlePerform(req, res);
      else sendJson(res, 405, { error: 'method not allowed' }, 'application/json', { Allow: 'POST' });
    } else if (path.startsWith(`${ACTIONS_PATH}/`)) {
      if (req.method === 'GET') this.handleLookup(path.slice(ACTIONS_PATH.length + 1), res);
      else sendJson(res, 405, { error: 'method not allowed' }, 'application/json', { Allow: 'GET' });
    } else {
      sendJson(res, 404, { error: 'not found' });
    }
  }

  private async handlePerform(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: RequestBody;
    try {
      body = await readBody(req, MAX_PERFORM_BODY_BYTES);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      sendJson(res, 413, { error: error.message }, 'application/json', { Connection: 'close' });
      return;
    }
    const request = performRequest(body);
    if (typeof request === 'string') {
      sendJson(res, 400, { error: request });
      return;
    }
    const record = this.perform(request.key, request.operation, request.input);
    if (this.toLose > 0) {
      this.toLose--;
      res.destroy();
      return;
    }
    let wait = this.delayMs;
    if (this.toDelay > 0) {
      this.toDelay--;
      wait = this.nextDelayMs;
    }
    if (wait === 0) {
      sendJson(res, 200, record);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      sendJson(res, 200, record);
    }, wait);
    this.timers.add(timer);
  }

  private handleLookup(encodedKey: string, res: ServerResponse): void {
    if (!this.lookupAvailable) {
      sendJson(res, 503, { error: 'lookup unavailable' });
      return;
    }
    let key: string;
    try {
      key = decodeURIComponent(encodedKey);
    } catch {
      sendJson(res, 400, { error: 'malformed key' });
      return;
    }
    const record = this.lookup(key);
    if (record === undefined) sendJson(res, 404, { error: 'not found' });
    else sendJson(res, 200, record);
  }
}

/** A valid `POST /actions` body, or the reason it is not one. */
function performRequest(body: RequestBody): { key: string; operation: string; input: unknown } | string {
  if (body.invalidJson) return 'body is not JSON';
  const json = body.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'body must be a JSON object';
  const fields = json as Record<string, unknown>;
  const key = fields['key'];
  const operation = fields['operation'];
  if (typeof key !== 'string' || key === '') return '`key` must be a non-empty string';
  if (typeof operation !== 'string' || operation === '') return '`operation` must be a non-empty string';
  if (!('input' in fields)) return '`input` is missing';
  return { key, operation, input: fields['input'] };
}

/**
 * Start an {@link ActionService} on `127.0.0.1`, on a free port.
 *
 * @example
 * ```ts
 * const service = await startActionService();
 * const agent = await startTestAgent({ scenarios: { pay: actionScenario(service, { operation: 'pay' }) } });
 * // … run the code under test …
 * expect(service.count('order-1')).toBe(1);
 * await service.close();
 * ```
 */
export async function startActionService(options: ActionServiceOptions = {}): Promise<ActionService> {
  const service = new ActionServiceServer(options);
  await service.listen();
  return service;
}
