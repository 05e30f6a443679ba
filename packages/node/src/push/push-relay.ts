import { createHash } from 'node:crypto';
import type { VerifiedHmac } from './hmac-check.js';
import type { VerifiedJwt } from './jwt-check.js';
import { isRefusal, type Verdict } from './push-answer.js';

/** A registration as a relay shares it: a token's SHA-256 (with its task once named), or a task id alone. Never a token. */
export interface RelayRegistration {
  readonly tokenSha256?: string | undefined;
  readonly taskId?: string | undefined;
}

/**
 * What the relay holds for a token's SHA-256: the inbox of the replica that holds its registration and the
 * task it is bound to (`undefined`: not named yet), or `gone`: the registration was forgotten lately (its
 * task's follow ended), so a late push is told so rather than refused as forged.
 */
export type TokenEntry = { readonly inbox: string; readonly taskId: string | undefined } | { readonly gone: true; readonly taskId: string | undefined };

/**
 * A push handed to the replica that holds its registration: its raw body and what its credentials proved on
 * the replica it landed on (never the credentials themselves), so that replica decides and admits it exactly
 * as a push received there (see `decideCredential`).
 */
export interface RelayedPush {
  /** The registration of this token's SHA-256; `undefined`: the registrations without a token of `taskId`. */
  readonly tokenSha256: string | undefined;
  /** The task the body names. */
  readonly taskId: string;
  readonly receiverToken: boolean;
  readonly jwt: { readonly claims: VerifiedJwt; readonly bodyMatches: boolean } | undefined;
  readonly hmac: VerifiedHmac | string | undefined;
  /** The raw body (valid UTF-8, as read). */
  readonly body: string;
}

/**
 * Shares the push receivers of several replicas (orchestrator processes behind a load balancer). Each
 * replica registers what it follows — a task's token by its SHA-256 (never the token), a task without one by
 * its id — and renews it. A push that lands on a replica is authenticated there from what needs no state
 * (the token's registration, found by its hash; a JWT or HMAC signature), then handed to the replica holding
 * the registration, which decides and admits it as if received itself (replays, repeats, per-task bounds,
 * early pushes) and sends its verdict back: the agent is answered what that replica decided, or 503 when no
 * live replica answered. `createRedisTaskStore()`'s `pushRelay()` is one; `connect({ store, push })` of
 * `@a2a-tether/node` wires it to the receiver by itself.
 */
export interface PushRelay {
  /** This replica's inbox: where other replicas hand pushes for its registrations. */
  readonly inbox: string;
  /** This replica holds the registration (and keeps it registered until `unregister`); resolves once stored. */
  register(registration: RelayRegistration): Promise<void>;
  /** This replica no longer holds the registration (a token's is remembered as gone for a while). */
  unregister(registration: RelayRegistration): Promise<void>;
  /** Who holds the registration of this token's SHA-256, if anyone does. */
  findToken(tokenSha256: string): Promise<TokenEntry | undefined>;
  /** The inboxes of the replicas holding a registration without a token for `taskId`. */
  findTask(taskId: string): Promise<string[]>;
  /** Hands a push to `inbox` and waits for that replica's verdict; `undefined` when no live replica answered. */
  handOver(inbox: string, push: RelayedPush): Promise<Verdict | undefined>;
  /** Admits the pushes handed to this replica with `admit`, whose verdict goes back to the replica that handed each over. */
  serve(admit: (push: RelayedPush) => Verdict): void;
  /** Stops serving and renewing, and unregisters everything. */
  close(): Promise<void>;
}

/** SHA-256 (hex) of a push token: how registrations are found, locally and in a relay. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A relayed push as one string: its header (JSON, one line), a newline, the body as it was. */
export function encodeRelayed(push: RelayedPush): string {
  const { body, ...header } = push;
  return `${JSON.stringify(header)}\n${body}`;
}

/** The push {@link encodeRelayed} wrote; `undefined` for anything else. */
export function decodeRelayed(text: string): RelayedPush | undefined {
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  try {
    const header = JSON.parse(text.slice(0, newline)) as Partial<RelayedPush>;
    if (typeof header.taskId !== 'string' || typeof header.receiverToken !== 'boolean') return undefined;
    if (header.tokenSha256 !== undefined && typeof header.tokenSha256 !== 'string') return undefined;
    return { tokenSha256: header.tokenSha256, taskId: header.taskId, receiverToken: header.receiverToken, jwt: header.jwt, hmac: header.hmac, body: text.slice(newline + 1) };
  } catch {
    return undefined;
  }
}

/** A verdict read back from a relay; `undefined` unless it has a verdict's shape. */
export function verdictOf(value: unknown): Verdict | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const verdict = value as Verdict;
  if (typeof verdict.status !== 'number') return undefined;
  if (isRefusal(verdict)) return typeof verdict.reason === 'string' ? verdict : undefined;
  return verdict.kind === 'accepted' && (verdict.status === 200 || verdict.status === 202) ? verdict : undefined;
}
