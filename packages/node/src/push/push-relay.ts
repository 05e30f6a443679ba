import { createHash, timingSafeEqual } from 'node:crypto';

/** Where a task's pushes go when they reach another replica (see {@link PushRelay}). */
export interface RelayedTask {
  /** The inbox of the replica that follows the task. */
  inbox: string;
  /** SHA-256 (hex) of the task's own push token, when it has one: never the token itself. */
  tokenSha256?: string | undefined;
}

/**
 * Shares the push receivers of several replicas (orchestrator processes behind a load balancer): each
 * replica registers the tasks it follows (with the SHA-256 of the task's push token, never the token), and a
 * push that reaches a replica that does not follow its task is verified there and handed to the inbox of
 * the replica that does. `createRedisTaskStore()`'s `pushRelay()` is one; `connect({ store, push })` of
 * `@a2a-tether/node` wires it to the receiver by itself.
 */
export interface PushRelay {
  /** This replica's inbox: where other replicas hand pushes for its tasks. */
  readonly inbox: string;
  /** This replica follows `taskId` (its pushes come to this inbox). */
  register(taskId: string, tokenSha256: string | undefined): Promise<void>;
  /** This replica no longer follows `taskId` (only if it is still this replica's). */
  unregister(taskId: string): Promise<void>;
  /** Which replica follows `taskId`, if any does. */
  lookup(taskId: string): Promise<RelayedTask | undefined>;
  /** Stores a verified push (its raw JSON body) in `inbox`; resolves once stored, so it can be acknowledged. */
  handOver(inbox: string, taskId: string, body: string): Promise<void>;
  /** Delivers the pushes handed to this replica's inbox, in order, from now on. */
  listen(deliver: (taskId: string, body: string) => void): void;
  /** Stops listening. */
  close(): Promise<void>;
}

/** SHA-256 (hex) of a push token, as a relay shares it. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `presented` is the token whose SHA-256 is `expectedHex` (compared in constant time). */
export function tokenMatches(presented: string | undefined, expectedHex: string): boolean {
  if (presented === undefined) return false;
  const got = Buffer.from(tokenSha256(presented), 'hex');
  const want = Buffer.from(expectedHex, 'hex');
  return want.length === got.length && timingSafeEqual(got, want);
}
