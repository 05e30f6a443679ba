import { refusal, type Refusal } from './push-answer.js';
import type { BodyRead } from './read-body.js';
import type { UnverifiedBudget } from './unverified-budget.js';

/** Reads a body of at most `limit` bytes within `timeoutMs` (read-body.ts, for Node or WHATWG requests). */
export type BodyReader = (limit: number, timeoutMs: number) => Promise<BodyRead>;

/** What reading needs to know of the receiver. */
export interface ReadLimits {
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly retryAfterSec: number;
}

/**
 * The body stage. A push whose credentials were verified from its headers (`verifiable`) is read within
 * `maxBodyBytes`; one that only a signature over its bytes can vouch for first reserves room in the budget
 * every such body shares (anyone who can reach the port can send one), and is refused 503 at once, unread,
 * when there is none. 408 too slow, 413 too large, 400 broken off.
 */
export async function readWithinBudget(read: BodyReader, verifiable: boolean, declared: number, budget: UnverifiedBudget, limits: ReadLimits): Promise<Uint8Array | Refusal> {
  const reserved = verifiable ? 0 : budget.reserve(declared);
  if (!verifiable && reserved === 0) {
    return refusal(503, `unverified bodies already hold ${budget.reserved} bytes`, { retryAfterSec: limits.retryAfterSec });
  }
  const limit = verifiable ? limits.maxBodyBytes : reserved;
  try {
    const body = await read(limit, limits.bodyTimeoutMs);
    if (body.kind === 'timeout') return refusal(408, `body not received within ${limits.bodyTimeoutMs} ms`);
    if (body.kind === 'too-large') return refusal(413, `body exceeds ${limit} bytes`);
    return body.bytes;
  } catch (error) {
    return refusal(400, `body could not be read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    budget.release(reserved);
  }
}
