import type { ProtocolVersion } from '../card/card-types.js';
import type { Transport } from './transport.js';

/** What a {@link CustomBinding} is given to talk to one of the card's interfaces. */
export interface BindingContext {
  /** The card's interface: the binding's name as the card spells it, its URL, protocol version and tenant. */
  readonly iface: { readonly binding: string; readonly url: string; readonly protocolVersion: ProtocolVersion; readonly tenant?: string | undefined };
  /** Extension URIs to activate on every call (`connect(url, { extensions })`). */
  readonly extensions: readonly string[];
  /** The largest event to accept, in characters (`connect(url, { maxEventSize })`). */
  readonly maxEventSize: number;
  /**
   * The headers the client would send to `url` (default: the interface's): `connect()`'s `headers`, then the
   * credentials the card's scheme and `auth` give — none when `auth` does not allow that origin. Call it per
   * connection: a token provider may have a fresh token. Credentials an API key puts in the query are not
   * included.
   */
  headers(url?: string, signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * The client's time limit of a call, in ms (`connect(url, { timeoutMs })`, else `DEFAULTS.timeoutMs`): apply
   * it to every call whose options name no `timeoutMs` — for a stream, until it opens — and fail it with
   * `TIMEOUT`, as the built-in bindings do. A call without a limit can hang a task's follow forever.
   */
  readonly timeoutMs: number;
  /**
   * `text` as an error may quote it: every credential `headers()` gave (also URL-encoded) and credential-like
   * values (`authorization: …`, `token=…`) replaced by `[REDACTED]`. Pass what an agent answered through it
   * before an error message, `data` or `cause` quotes it: an agent may echo the credentials it was sent.
   */
  redact(text: string): string;
}

/**
 * A protocol binding of your own (WebSocket, a message bus …) for `connect(url, { bindings: [...] })`: the
 * client uses it for a card interface whose `protocolBinding` is `name`, negotiated like the built-in
 * JSON-RPC and HTTP+JSON (the card's order, or `preferredBindings`). `create` returns a {@link Transport}:
 * one method per A2A operation, in the normalized model; the codecs of `@a2a-tether/core/protocol` encode
 * and decode the wire objects, `eventFeed()` turns a stream of events into what `openStream` returns, and
 * the errors are `TetherError`s (`createA2AError` for the agent's). The task engine's guarantees hold over
 * it: end a stream that breaks (or throw `NETWORK`), and the engine resumes the task.
 */
export interface CustomBinding {
  /** The card's `protocolBinding` this speaks, e.g. `WEBSOCKET` (compared without regard to case). */
  readonly name: string;
  /** The protocol versions it speaks. Default `['1.0']`. */
  readonly protocolVersions?: readonly ProtocolVersion[] | undefined;
  /** The transport for one interface; called once per interface the client uses. */
  create(context: BindingContext): Transport | Promise<Transport>;
}
