import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError } from '../errors/error-body.js';
import { parseCause, quotable, quotableAgentError, quotableHead } from '../errors/quote-answer.js';
import { redact } from '../errors/redact.js';
import { TetherError, type ErrorContext, type TetherErrorOptions } from '../errors/tether-error.js';
import type { FetchLike } from './fetch-like.js';
import { LinkedSignal } from './linked-signal.js';
import { causeCode, describeCause, readText, snippet } from './read-body.js';
import type { AppliedCredentials, RequestCredentials } from './request-credentials.js';
import { parseRetryAfter } from './retry-after.js';
import { setHeader } from '../observe/headers.js';
import type { Watch, WatchedRequest } from '../observe/watch.js';
import { childTraceparent, type RequestTrace } from '../observe/trace-context.js';

/** One HTTP exchange, described in protocol terms. */
export interface HttpRequest {
  /** The A2A operation, for errors and observability (`SendMessage`, `GetAgentCard` …). */
  operation: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: string | URL;
  /** JSON-encoded when defined. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** What a 2xx answer must be: JSON, an SSE stream, or anything (e.g. 204). */
  expect: 'json' | 'sse' | 'any';
  signal?: AbortSignal | undefined;
  /** For JSON: the whole exchange. For SSE: until the response headers arrive. */
  timeoutMs?: number | undefined;
  taskId?: string | undefined;
  /** The message a send carries (for plugins). */
  messageId?: string | undefined;
  /** Non-2xx statuses to hand back instead of throwing (e.g. 304 for revalidation). */
  passStatuses?: number[] | undefined;
  /** The trace context to continue (the caller's, or the task's); none: a new trace. */
  trace?: RequestTrace | undefined;
}

/** A JSON answer with the context it came with (status included, for error messages). */
export interface JsonAnswer {
  body: unknown;
  context: ErrorContext;
  /** The credential values sent, to redact from what errors quote of the answer. */
  secrets: string[];
  /** The request as plugins see it, when any watch (its end is reported by {@link HttpClient.settle}). */
  observed?: WatchedRequest | undefined;
}

/** An open (2xx) answer whose body is still to be read; `link` must be disposed when done. */
export interface OpenResponse {
  response: Response;
  link: LinkedSignal;
  context: ErrorContext;
  /** The credential values sent, to redact from what errors quote of the answer. */
  secrets: string[];
  /** The request as plugins see it, when any watch (the stream reports its events and its end). */
  observed?: WatchedRequest | undefined;
}

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  fetch: FetchLike;
  /** For `expect: 'sse'` requests, when given (see `ConnectOptions.streamFetch`). */
  streamFetch?: FetchLike | undefined;
  credentials?: RequestCredentials | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  now?: (() => number) | undefined;
  /** The client's plugins and lifecycle listeners. */
  watch?: Watch | undefined;
  /** Where `traceparent`/`tracestate` go (see `ConnectOptions.traceHeaders`); default `true`. */
  traceHeaders?: boolean | 'same-origin' | undefined;
}

// The request surely never reached the agent: safe to retry elsewhere, even a send.
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

// What the usual first-run failures mean, and what to do, instead of the runtime's own text (issue 20;
// the message already names the URL, and the raw failure stays in `cause`).
const HINTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: is the agent running at this URL?',
  ENOTFOUND: 'host not found: check the host name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'not TLS: an https:// URL to a plain-HTTP agent? Try http://',
};
const MAX_REDIRECTS = 5;
const MAX_ERROR_BODY = 64 * 1024;

/**
 * The response headers an error carries: cookies and anything credential-like redacted, and so is
 * any credential of ours an agent echoes back (errors end up in logs).
 */
function headersRecord(headers: Headers, secrets: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = value;
  });
  return redact(out, { secrets }) as Record<string, string>;
}

// Values this short cannot be told from ordinary text: redacting them would garble messages.
const MIN_SECRET_LENGTH = 6;

function isJsonType(contentType: string): boolean {
  return /[/+]json\b/i.test(contentType);
}

/**
 * Sends A2A HTTP requests: auth (bound to allowed origins, one refresh after a 401),
 * redirects followed by hand so credentials never cross origins, timeouts and caller aborts,
 * and every failure turned into a typed error naming the operation, method, URL and status.
 */
export class HttpClient {
  /** @internal Its options (a binding of the caller's own reads the headers and credentials). */
  constructor(readonly options: HttpClientOptions) {}

  /** Sends and returns the parsed JSON body of a 2xx answer (`undefined` for an empty body). */
  async json(request: HttpRequest): Promise<JsonAnswer> {
    const open = await this.open(request);
    try {
      return await this.readJson(request, open);
    } catch (error) {
      open.observed?.end(error);
      throw error;
    } finally {
      open.link.dispose();
    }
  }

  /**
   * Runs what makes a JSON answer the call's result (the envelope's checks, the decoder) and reports
   * the request's end to the plugins with its outcome: the result, or the typed error it ends with.
   */
  settle<T>(answer: JsonAnswer, finish: () => T): T {
    let result: T;
    try {
      result = finish();
    } catch (error) {
      answer.observed?.end(error);
      throw error;
    }
    answer.observed?.end(undefined, result);
    return result;
  }

  private async readJson(request: HttpRequest, open: OpenResponse): Promise<JsonAnswer> {
    const { response, context, secrets } = open;
    const text = await readText(response, this.options.maxResponseBytes, context).catch((error: unknown) => {
      throw open.link.errorFor(context, this.timeoutOf(request), error) ?? error;
    });
    if (text.trim() === '') {
      if (request.expect === 'any') return { body: undefined, context, secrets, observed: open.observed };
      throw new TetherError('INVALID_RESPONSE', 'empty body where JSON was expected', context);
    }
    const type = response.headers.get('content-type') ?? '';
    if (type && !isJsonType(type)) {
      const quoted = quotableHead(text, secrets, MAX_ERROR_BODY);
      throw new TetherError('UNEXPECTED_CONTENT_TYPE', `expected JSON, got ${type}: ${snippet(quoted)}`, {
        ...context,
        bodySnippet: snippet(quoted, 512),
      });
    }
    try {
      return { body: JSON.parse(text) as unknown, context, secrets, observed: open.observed };
    } catch (error) {
      const quoted = quotableHead(text, secrets, MAX_ERROR_BODY);
      throw new TetherError('INVALID_RESPONSE', `body is not valid JSON: ${snippet(quoted)}`, {
        ...context,
        bodySnippet: snippet(quoted, 512),
        cause: parseCause(error, text, secrets),
      });
    }
  }

  /**
   * Sends and returns the open 2xx response. Non-2xx answers are read and thrown as typed errors.
   * For `expect: 'sse'` the content type is checked first: a JSON body is the agent's error.
   */
  async open(request: HttpRequest): Promise<OpenResponse> {
    const timeoutMs = this.timeoutOf(request);
    const link = new LinkedSignal(request.signal, timeoutMs);
    const headers = this.traceHeaders(request);
    // Plugins see the request before it is sent, and may refuse it (nothing sent).
    let observed: WatchedRequest | undefined;
    try {
      observed = this.options.watch?.hooks?.begin(
        { operation: request.operation, method: request.method, url: String(request.url), taskId: request.taskId, messageId: request.messageId, stream: request.expect === 'sse', parent: request.trace, attempt: request.trace?.attempt },
        headers,
      );
    } catch (error) {
      link.dispose();
      throw error;
    }
    const traceparent = headers['traceparent'];
    if (traceparent !== undefined) request.trace?.sent?.(traceparent);
    try {
      const { response, context, secrets } = await this.exchange(request, link, timeoutMs, headers);
      if (observed) observed.status = response.status;
      if (request.expect === 'sse') await this.checkEventStream(response, context, link, timeoutMs, secrets);
      return { response, link, context, secrets, observed };
    } catch (error) {
      link.dispose();
      observed?.end(error);
      throw error;
    }
  }

  /** W3C trace context: a new span of the request under the one it continues (or of a new trace). */
  private traceHeaders(request: HttpRequest): Record<string, string> {
    const where = this.options.traceHeaders ?? true;
    // A page's cross-origin request with a header its agent's CORS does not allow would fail.
    if (where === false || (where === 'same-origin' && new URL(request.url).origin !== (globalThis as { location?: { origin?: string } }).location?.origin)) return {};
    const headers: Record<string, string> = { traceparent: childTraceparent(request.trace?.traceparent) };
    if (request.trace?.tracestate) headers['tracestate'] = request.trace.tracestate;
    return headers;
  }

  private timeoutOf(request: HttpRequest): number | undefined {
    return request.timeoutMs ?? this.options.timeoutMs;
  }

  private async exchange(
    request: HttpRequest,
    link: LinkedSignal,
    timeoutMs: number | undefined,
    traced: Record<string, string>,
  ): Promise<{ response: Response; context: ErrorContext; secrets: string[] }> {
    let url = new URL(request.url);
    let method = request.method;
    let body = request.body === undefined ? undefined : JSON.stringify(request.body);
    let refreshed = false;
    // Every credential value sent so far: a redirect may echo one into the next URL.
    const sent: string[] = [];
    for (let hop = 0; ; hop++) {
      // The URL before credentials are added; credential-like query values in it are redacted too.
      let context: ErrorContext = { operation: request.operation, method, url: redact(url.href, { secrets: sent }), taskId: request.taskId };
      let applied: AppliedCredentials = { headers: {}, url, credentialed: false, secrets: [] };
      try {
        if (this.options.credentials) applied = await this.options.credentials.apply(url, method, refreshed, link.signal);
      } catch (error) {
        throw link.errorFor(context, timeoutMs, error) ?? credentialsError(error, context);
      }
      const fresh = applied.secrets.filter((s) => s.length >= MIN_SECRET_LENGTH && !sent.includes(s));
      if (fresh.length > 0) {
        sent.push(...fresh);
        context = { ...context, url: redact(url.href, { secrets: sent }) };
      }
      const headers: Record<string, string> = { ...this.options.headers, ...request.headers };
      // Trace context and plugins' headers over the caller's; credentials over everything.
      for (const [name, value] of Object.entries(traced)) setHeader(headers, name, value);
      for (const [name, value] of Object.entries(applied.headers)) setHeader(headers, name, value);
      if (body !== undefined) headers['Content-Type'] ??= 'application/json';
      // Aborted before the first request went out (e.g. a signal that had already fired): nothing was sent.
      const unsent = hop === 0 && link.signal.aborted;
      let response: Response;
      try {
        const fetch = request.expect === 'sse' ? (this.options.streamFetch ?? this.options.fetch) : this.options.fetch;
        response = await fetch(applied.url, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: link.signal,
          // With credentials we follow redirects ourselves, so they never reach another origin.
          redirect: applied.credentialed ? 'manual' : 'follow',
        });
      } catch (error) {
        throw (
          link.errorFor(unsent ? { ...context, maybeDelivered: false } : context, timeoutMs, error) ??
          fetchOwnError(error, context) ??
          networkError(error, context, sent)
        );
      }

      if (response.type === 'opaqueredirect') {
        throw new TetherError(
          'REDIRECT_BLOCKED',
          'the agent redirected a credentialed request and the browser hides where to; use the final URL',
          context,
        );
      }
      if (request.passStatuses?.includes(response.status)) {
        return { response, context: { ...context, status: response.status }, secrets: sent };
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) {
          throw new TetherError('HTTP_STATUS', `more than ${MAX_REDIRECTS} redirects`, {
            ...context,
            status: response.status,
          });
        }
        const next = new URL(response.headers.get('location') as string, url);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      if (response.status === 401 && applied.credentialed && !refreshed && this.options.credentials?.canRefresh) {
        await response.body?.cancel().catch(() => undefined);
        refreshed = true;
        continue;
      }
      if (!response.ok) {
        throw await this.errorFromResponse(response, context, link, timeoutMs, applied.credentialed, sent);
      }
      return { response, context: { ...context, status: response.status }, secrets: sent };
    }
  }

  private async errorFromResponse(
    response: Response,
    context: ErrorContext,
    link: LinkedSignal,
    timeoutMs: number | undefined,
    credentialed: boolean,
    secrets: string[],
  ): Promise<TetherError> {
    const headers = headersRecord(response.headers, secrets);
    const full: TetherErrorOptions = {
      ...context,
      status: response.status,
      headers,
      retryAfterMs: parseRetryAfter(headers['retry-after'], (this.options.now ?? Date.now)()),
      // 429 and 503: the agent (or its gateway) refused before acting; the request did nothing.
      ...(response.status === 429 || response.status === 503 ? { maybeDelivered: false } : {}),
    };
    let text = '';
    try {
      text = await readText(response, MAX_ERROR_BODY, full);
    } catch (error) {
      const aborted = link.errorFor(full, timeoutMs, error);
      if (aborted) return aborted;
    }
    // Parsed as sent; everything the error quotes of it has our credentials redacted.
    const parsed = isJsonType(headers['content-type'] ?? '') ? parseAgentError(safeJson(text)) : undefined;
    text = quotable(text, secrets);
    full.bodySnippet = snippet(text, 512);
    if (parsed) {
      const agentError = quotableAgentError(parsed, secrets);
      return createA2AError(agentError.a2aCode, agentError.message, { ...full, data: agentError.data, reason: agentError.reason });
    }
    if (response.status === 401 || response.status === 403) {
      const challenge = headers['www-authenticate'];
      const hint = credentialed
        ? 'credentials were rejected'
        : this.options.credentials && !this.options.credentials.allows(new URL(context.url ?? ''))
          ? `no credentials were sent: ${new URL(context.url ?? '').origin} is not an allowed origin (${this.options.credentials.origins.join(', ')}); add it to auth.origins`
          : 'no credentials were sent; pass `auth` to connect()';
      return new TetherError('UNAUTHENTICATED', `${hint}${challenge ? ` (WWW-Authenticate: ${challenge})` : ''}`, full);
    }
    const what = response.statusText ? `${response.statusText}` : 'error';
    return new TetherError('HTTP_STATUS', `${what}${full.bodySnippet ? `: ${snippet(text)}` : ''}`, full);
  }

  private async checkEventStream(
    response: Response,
    context: ErrorContext,
    link: LinkedSignal,
    timeoutMs: number | undefined,
    secrets: string[],
  ): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    if (/^text\/event-stream\b/i.test(type)) return;
    // Errors before the first event arrive as a plain JSON body (often HTTP 200).
    let text = '';
    try {
      text = await readText(response, MAX_ERROR_BODY, context);
    } catch (error) {
      throw link.errorFor(context, timeoutMs, error) ?? error;
    }
    const parsed = isJsonType(type) ? parseAgentError(safeJson(text)) : undefined;
    text = quotable(text, secrets);
    if (parsed) {
      const agentError = quotableAgentError(parsed, secrets);
      throw createA2AError(agentError.a2aCode, agentError.message, {
        ...context,
        data: agentError.data,
        reason: agentError.reason,
        bodySnippet: snippet(text, 512),
      });
    }
    throw new TetherError(
      'UNEXPECTED_CONTENT_TYPE',
      `expected text/event-stream, got ${type || 'no content type'}${text ? `: ${snippet(text)}` : ''}`,
      { ...context, bodySnippet: snippet(text, 512) },
    );
  }
}

/**
 * A failure to obtain the credentials (a token provider or `auth.headers()` threw): nothing was sent.
 * A `TetherError` of the credentials themselves (a value no header can carry) keeps its code.
 */
function credentialsError(error: unknown, context: ErrorContext): TetherError {
  if (error instanceof TetherError) {
    return new TetherError(error.code, error.message, { ...context, cause: error, isRetryable: false, maybeDelivered: false });
  }
  return new TetherError('UNAUTHENTICATED', `the credentials could not be obtained (auth): ${redact(describeCause(error))}`, {
    ...context,
    cause: error,
    isRetryable: false,
    maybeDelivered: false,
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Fetch refuses some ports outright (the Fetch standard's "bad port" list: 6000, 10080 …) before
 * any connection. undici says so in the cause; browsers give no detail, so there it stays NETWORK.
 */
function isBlockedPort(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    if ((current as { message?: unknown }).message === 'bad port') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A fetch that throws a `TetherError` itself (the Node SSRF guard's `ADDRESS_NOT_ALLOWED`, whose
 * message names no request) has decided the outcome: its code and classification stand, with this
 * request's context added.
 */
function fetchOwnError(error: unknown, context: ErrorContext): TetherError | undefined {
  if (!(error instanceof TetherError)) return undefined;
  return new TetherError(error.code, error.message, {
    ...context,
    cause: error,
    isRetryable: error.isRetryable,
    maybeDelivered: error.maybeDelivered,
  });
}

function networkError(error: unknown, context: ErrorContext, secrets: string[]): TetherError {
  if (isBlockedPort(error)) {
    // Permanent and local: a repeat gets the same refusal, and nothing left the process.
    const port = new URL(context.url ?? '').port;
    return new TetherError('NETWORK', `request failed: this runtime's fetch refuses port ${port} (a "bad port" in the Fetch standard); serve the agent on another port`, {
      ...context,
      cause: error,
      isRetryable: false,
      maybeDelivered: false,
    });
  }
  const code = causeCode(error) ?? '';
  const hint = HINTS[code];
  return new TetherError('NETWORK', `request failed: ${hint ? `${code}, ${hint}` : redact(describeCause(error), { secrets })}`, {
    ...context,
    cause: error,
    maybeDelivered: !CONNECT_CODES.has(code),
  });
}
