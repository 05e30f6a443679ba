import type { IncomingMessage } from 'node:http';

/** How reading a body ended: its bytes, or why reading stopped (past the limit, past the deadline). */
export type BodyRead =
  | { readonly kind: 'read'; readonly bytes: Uint8Array }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'timeout' };

const TOO_LARGE: BodyRead = { kind: 'too-large' };
const TIMEOUT: BodyRead = { kind: 'timeout' };

/**
 * Reads a Node request body, stopping (and pausing the request) as soon as it exceeds `limit` bytes
 * or is not complete `timeoutMs` after the read began: a stalled body holds nothing past its deadline.
 */
export function readNodeBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (read: BodyRead): void => {
      cleanup();
      req.pause();
      chunks.length = 0;
      resolve(read);
    };
    const timer = setTimeout(() => stop(TIMEOUT), timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) stop(TOO_LARGE);
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ kind: 'read', bytes: Buffer.concat(chunks, size) });
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the request was closed before its body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Reads a WHATWG request body, cancelling it as soon as it exceeds `limit` bytes or misses its deadline. */
export async function readWebBody(request: Request, limit: number, timeoutMs: number): Promise<BodyRead> {
  if (request.body === null) return { kind: 'read', bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === 'timeout') {
        // Not awaited: a source that never answers must not hold the answer too.
        reader.cancel('push body too slow').catch(() => {});
        return TIMEOUT;
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        reader.cancel('push body too large').catch(() => {});
        return TOO_LARGE;
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: 'read', bytes: body };
}
