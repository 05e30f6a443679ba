import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';

/**
 * Whether a request asks for an event stream (Tether's SSE calls say so in `Accept`). Those are
 * sent with `dispatcher.request()` instead of `fetch`: a long-lived stream read chunk by chunk
 * needs none of fetch's WHATWG machinery (Request, Response, ReadableStream), which costs memory
 * per open stream and time per chunk.
 */
export function wantsEventStream(init: RequestInit | undefined): boolean {
  const headers = init?.headers;
  if (!headers || typeof headers !== 'object' || Array.isArray(headers) || headers instanceof Headers) return false;
  for (const [name, value] of Object.entries(headers as Record<string, string>)) {
    if (name.toLowerCase() === 'accept') return /\btext\/event-stream\b/i.test(value);
  }
  return false;
}

/** Reads a Node stream as WHATWG-style `read()` results, without a ReadableStream. */
class ChunkReader {
  private pending: { resolve(result: ReadableStreamReadResult<Uint8Array>): void; reject(error: unknown): void } | undefined;
  private ended = false;
  private failure: unknown;

  constructor(private readonly body: Readable) {
    body.on('readable', () => this.settle());
    body.on('end', () => {
      this.ended = true;
      this.settle();
    });
    body.on('error', (error) => {
      this.failure ??= error;
      this.settle();
    });
    body.on('close', () => {
      if (!this.ended) this.failure ??= Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
      this.settle();
    });
  }

  private next(): ReadableStreamReadResult<Uint8Array> | undefined {
    const chunk = this.body.read() as Uint8Array | null;
    if (chunk !== null) return { done: false, value: chunk };
    if (this.ended) return { done: true, value: undefined };
    return undefined;
  }

  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    const result = this.next();
    if (result) {
      this.pending = undefined;
      pending.resolve(result);
    } else if (this.failure !== undefined) {
      this.pending = undefined;
      pending.reject(this.failure);
    }
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const result = this.next();
    if (result) return Promise.resolve(result);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }

  cancel(): Promise<void> {
    this.ended = true;
    this.body.destroy();
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ done: true, value: undefined });
    return Promise.resolve();
  }

  releaseLock(): void {
    // Nothing to release: one reader per body.
  }
}

function decoded(body: Readable, encoding: string | undefined): Readable {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return body.pipe(createGunzip());
    case 'deflate':
      return body.pipe(createInflate());
    case 'br':
      return body.pipe(createBrotliDecompress());
    default:
      return body;
  }
}

/**
 * Sends a request with undici's `dispatcher.request()` and answers with the part of a `Response`
 * that Tether reads: status, headers, and a body read with `getReader()`. Redirects are not
 * followed (Tether follows them itself, so credentials never cross origins).
 */
export async function streamRequest(dispatcher: Dispatcher, input: string | URL, init: RequestInit): Promise<Response> {
  const url = new URL(String(input));
  const headers = { ...(init.headers as Record<string, string>), 'accept-encoding': 'identity' };
  const answer = await dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body: typeof init.body === 'string' ? init.body : null,
    signal: init.signal ?? undefined,
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
    else if (value !== undefined) responseHeaders.set(name, value);
  }
  const body = decoded(answer.body, responseHeaders.get('content-encoding') ?? undefined);
  const reader = new ChunkReader(body);
  const status = answer.statusCode;
  const response = {
    status,
    statusText: STATUS_CODES[status] ?? '',
    ok: status >= 200 && status < 300,
    type: 'basic',
    redirected: false,
    url: url.href,
    headers: responseHeaders,
    body: { getReader: () => reader, cancel: () => reader.cancel() },
  };
  // Tether reads only the members above (see `HttpResponse` in @a2a-tether/core).
  return response as unknown as Response;
}
