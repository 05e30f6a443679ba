/**
 * What went wrong, as a stable string you can switch on.
 *
 * Local failures (the request never got a valid answer) use these codes; errors the
 * agent reported through the protocol are {@link A2AError} subclasses with code `A2A_ERROR`.
 */
export type TetherErrorCode =
  /** The host could not be reached or the connection broke. */
  | 'NETWORK'
  /**
   * (Browser) The agent answers, but CORS does not let this page call it: the message names what the agent
   * must allow (origin, method, request headers), or to call it through a relay on the page's own origin.
   * `maybeDelivered` is `false` when the browser refused at the preflight, before sending anything.
   */
  | 'CORS_REFUSED'
  /** `timeoutMs` elapsed. */
  | 'TIMEOUT'
  /** The caller aborted (its `signal`). */
  | 'ABORTED'
  /** A non-2xx HTTP answer that carried no A2A error (proxy pages, 5xx, 429, 404 …). */
  | 'HTTP_STATUS'
  /** 401/403: credentials are missing, wrong or expired. */
  | 'UNAUTHENTICATED'
  /** The body is not what the protocol says (bad JSON, schema mismatch). */
  | 'INVALID_RESPONSE'
  /** The answer's content type is wrong for the call (e.g. HTML where SSE was expected). */
  | 'UNEXPECTED_CONTENT_TYPE'
  /** One SSE event is not valid JSON or not a valid stream response. */
  | 'MALFORMED_EVENT'
  /** One SSE event exceeded `maxEventBytes`. */
  | 'EVENT_TOO_LARGE'
  /** A stream ended before the task reached a terminal or interrupted state. */
  | 'STREAM_INTERRUPTED'
  /** Retries used up their attempt or time budget, or a followed task made no progress for too long. */
  | 'RETRY_EXHAUSTED'
  /**
   * A message's answer was lost and nothing can show whether the agent received it (v0.3 has no
   * ListTasks): it was not sent again. `messageId` names it; look for the task before resending.
   */
  | 'DELIVERY_UNKNOWN'
  /** The agent answered with a message and created no task (see `TaskHandle.message`). */
  | 'NO_TASK'
  /** A task waited longer than `inputTimeoutMs` for a reply at input-required / auth-required. */
  | 'INPUT_TIMEOUT'
  /** The card lists no interface this client can speak with the given preferences. */
  | 'NO_COMPATIBLE_INTERFACE'
  /** No agent card at any of the well-known locations. */
  | 'CARD_NOT_FOUND'
  /** The agent card is not valid JSON or misses required fields. */
  | 'CARD_INVALID'
  /** The agent card's signature does not verify. */
  | 'SIGNATURE_INVALID'
  /** The operation is not available with this agent or protocol version (checked locally). */
  | 'UNSUPPORTED_OPERATION'
  /** The caller passed something invalid. */
  | 'INVALID_ARGUMENT'
  /** A redirect would carry credentials to another origin (or cannot be inspected). */
  | 'REDIRECT_BLOCKED'
  /**
   * The SSRF guard of `@a2a-tether/node` refused a URL (from the card, or a redirect) before
   * connecting: a non-http(s) scheme, or a host that resolves to a loopback, private, link-local,
   * unspecified, metadata or reserved address. See `network` in node's `connect()` options.
   */
  | 'ADDRESS_NOT_ALLOWED'
  /** The agent broke a protocol rule (e.g. a state after a terminal state). */
  | 'PROTOCOL_VIOLATION'
  /** A push receiver refused a webhook call; `status` is the HTTP status it answered (401, 404, 413 …). */
  | 'PUSH_REFUSED'
  /** A stored task record cannot be used: not JSON, not an object, no `taskId`, or a newer `schemaVersion`. */
  | 'STORE_CORRUPT'
  /** A task store could not read a record or its directory (permissions, I/O error); `cause` is the failure. */
  | 'STORE_READ_FAILED'
  /**
   * A task store could not write or delete a record (permissions, full disk); the previous record is
   * intact. From the engine: `taskId` names the task, `cause` is the store's error.
   */
  | 'STORE_WRITE_FAILED'
  /**
   * A shared task store (Redis) could not be reached within its command timeout: nothing is known to
   * have been written. Retryable; the engine keeps following a task only while its lease is provably valid.
   */
  | 'STORE_UNAVAILABLE'
  /** The task's record belongs to another principal than this client's (`connect(url, { principal })`). */
  | 'PRINCIPAL_MISMATCH'
  /** Another process holds the task's lease (a store shared by several processes): it drives the task. */
  | 'LEASE_HELD'
  /**
   * This process stopped driving a task because its lease lapsed: a renewal was refused, none was
   * confirmed in time (cut off from the store), or a newer holder fenced this process's write out.
   * Another process drives the task now; nothing was written.
   */
  | 'LEASE_LOST'
  /**
   * A workflow's admission gate refused an action decided under an instruction revision that a later
   * update superseded (`@a2a-tether/core/orchestrate`). Nothing was done.
   */
  | 'SUPERSEDED'
  /**
   * A workflow action's earlier attempt has an unknown outcome that nothing could settle (no lookup,
   * or the lookup failed): it is not attempted again. The ledger entry says `unresolved`.
   */
  | 'ACTION_UNRESOLVED'
  /** A plugin's `onRequest` refused the request (`connect(url, { plugins })`): nothing was sent. */
  | 'PLUGIN_REFUSED'
  /**
   * The card marks an extension `required` that this client does not activate (`connect(url, { extensions })`):
   * `connect()` refuses before any A2A request. The message names the extension URIs.
   */
  | 'EXTENSION_REQUIRED'
  /**
   * A plugin's hook threw. Never thrown to the caller: reported as a `plugin-failed` lifecycle event,
   * and the call goes on without that plugin's changes. The message names the plugin and the hook.
   */
  | 'PLUGIN_FAILED'
  /**
   * An agent's data part did not match the schema it was read with, or there was none
   * (`handle.data(schema)`, `dataOf`): see `SchemaMismatchError`, which keeps the part and the issues.
   */
  | 'SCHEMA_MISMATCH'
  /** The agent answered with an A2A / JSON-RPC error: see {@link A2AError}. */
  | 'A2A_ERROR';

/** Where a failure happened, for messages and observability. */
export interface ErrorContext {
  /** The A2A operation, e.g. `SendMessage`, `GetTask`, `GetAgentCard`. */
  operation?: string | undefined;
  /** HTTP method. */
  method?: string | undefined;
  url?: string | undefined;
  /** HTTP status of the answer, when there was one. */
  status?: number | undefined;
  /** Response headers (lower-case names), when there was an answer. */
  headers?: Record<string, string> | undefined;
  /** How long the agent asked us to wait (from `Retry-After`). */
  retryAfterMs?: number | undefined;
  taskId?: string | undefined;
  /** The message the failed call was sending, when there was one. */
  messageId?: string | undefined;
  /** The start of the response body, for diagnosis (at most 512 characters). */
  bodySnippet?: string | undefined;
}

/** Options of {@link TetherError}. */
export interface TetherErrorOptions extends ErrorContext {
  cause?: unknown;
  /** Override the retry classification derived from the code and status. */
  isRetryable?: boolean | undefined;
  /**
   * `false` when the request surely never reached the agent (connection refused, DNS failure).
   * Defaults by code: `false` for the codes only local checks raise, `true` otherwise.
   */
  maybeDelivered?: boolean | undefined;
}

const BRAND = Symbol.for('a2a-tether.error.kinds');
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
// Raised only by checks made before any request, so nothing can have reached the agent.
const LOCAL_CODES: ReadonlySet<TetherErrorCode> = new Set([
  'INVALID_ARGUMENT',
  'SUPERSEDED',
  'ACTION_UNRESOLVED',
  'UNSUPPORTED_OPERATION',
  'NO_COMPATIBLE_INTERFACE',
  'ADDRESS_NOT_ALLOWED',
  'PLUGIN_REFUSED',
  'EXTENSION_REQUIRED',
]);

function defaultRetryable(code: TetherErrorCode, status: number | undefined): boolean {
  switch (code) {
    case 'NETWORK':
    case 'TIMEOUT':
    case 'STREAM_INTERRUPTED':
    case 'STORE_UNAVAILABLE':
      return true;
    case 'HTTP_STATUS':
      return status !== undefined && RETRYABLE_STATUS.has(status);
    default:
      return false;
  }
}

/**
 * The longest error message, in characters. A message quotes what the agent sent (ids, kinds, its own
 * error message), and an agent may send megabytes: past this the message is cut, saying how long it
 * was. Whole values stay available on the error (`agentMessage`, `data`, `cause`).
 */
const MAX_MESSAGE_LENGTH = 4096;

function bounded(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  // Not between the two halves of a surrogate pair.
  const high = message.charCodeAt(MAX_MESSAGE_LENGTH - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? MAX_MESSAGE_LENGTH - 1 : MAX_MESSAGE_LENGTH;
  return `${message.slice(0, cut)}… (${message.length} characters)`;
}

function describe(context: ErrorContext): string {
  const where = [context.operation, context.method, context.url].filter(Boolean).join(' ');
  const status = context.status === undefined ? '' : ` → HTTP ${context.status}`;
  return where ? `${where}${status}: ` : status ? `${status.slice(3)}: ` : '';
}

/**
 * The base class of every error Tether throws.
 *
 * Its message names the operation, HTTP method, URL and status; past 4096 characters it is cut,
 * saying how long it was. `instanceof` works even when
 * two copies of the package are loaded (the check uses a `Symbol.for` brand, not identity).
 */
export class TetherError extends Error {
  /** The class name used by the cross-copy `instanceof` brand. */
  static readonly errorName: string = 'TetherError';

  readonly code: TetherErrorCode;
  /** `true` when repeating the same request may succeed (network faults, 429, 5xx, timeouts). */
  readonly isRetryable: boolean;
  readonly operation: string | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly status: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly retryAfterMs: number | undefined;
  readonly taskId: string | undefined;
  readonly messageId: string | undefined;
  readonly bodySnippet: string | undefined;
  /**
   * `false` only when the request surely never reached the agent (connection refused, unknown
   * host, a local check that failed before any request): then it is safe to send it again, even
   * a message, or to try another interface.
   */
  readonly maybeDelivered: boolean;

  constructor(code: TetherErrorCode, detail: string, options: TetherErrorOptions = {}) {
    super(bounded(`${describe(options)}${detail}`), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = (new.target as typeof TetherError).errorName;
    this.code = code;
    this.operation = options.operation;
    this.method = options.method;
    this.url = options.url;
    this.status = options.status;
    this.headers = options.headers;
    this.retryAfterMs = options.retryAfterMs;
    this.taskId = options.taskId;
    this.messageId = options.messageId;
    this.bodySnippet = options.bodySnippet;
    this.maybeDelivered = options.maybeDelivered ?? !LOCAL_CODES.has(code);
    this.isRetryable = options.isRetryable ?? defaultRetryable(code, options.status);
    const kinds: string[] = [];
    for (let c: unknown = new.target; typeof c === 'function' && 'errorName' in c; c = Object.getPrototypeOf(c)) {
      kinds.push((c as typeof TetherError).errorName);
    }
    Object.defineProperty(this, BRAND, { value: kinds, enumerable: false });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const kinds = (value as Record<symbol, unknown>)[BRAND];
    return Array.isArray(kinds) && kinds.includes(this.errorName);
  }
}

/** `true` for a {@link TetherError} from any copy of the package. */
export function isTetherError(value: unknown): value is TetherError {
  return value instanceof TetherError;
}
