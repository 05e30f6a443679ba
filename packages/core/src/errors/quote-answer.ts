// What errors quote of an agent's answer — an error page, a JSON error, a result that does not
// decode, a stream frame — with the credentials we sent redacted: an agent or its gateway may echo
// them into anything it answers, and errors end up in logs.
import type { ParsedAgentError } from './error-body.js';
import { redact } from './redact.js';

/** Text of an answer as errors may quote it: our credentials (and credential-like values) redacted. */
export function quotable(text: string, secrets: readonly string[]): string {
  return redact(text, { secrets });
}

/**
 * The first `max` characters of a (long) answer, as errors may quote them. Redacted before the cut:
 * a credential across the cut would otherwise leave its first part, which no longer matches the
 * secret. The window past the cut holds the longest secret, also URL-encoded.
 */
export function quotableHead(text: string, secrets: readonly string[], max: number): string {
  if (text.length <= max) return quotable(text, secrets);
  const longest = secrets.reduce((most, secret) => Math.max(most, encodeURIComponent(secret).length), 0);
  return quotable(text.slice(0, max + longest + 64), secrets).slice(0, max);
}

function holdsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => secret !== '' && (text.includes(secret) || text.includes(encodeURIComponent(secret))));
}

/** An agent error's `data` as the agent sent it, unless it echoes a credential of ours: then redacted. */
export function echoedData(data: unknown, secrets: readonly string[]): unknown {
  if (data === undefined || secrets.length === 0) return data;
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    // Not JSON data: redact() copies what it can.
  }
  return json === undefined || holdsSecret(json, secrets) ? redact(data, { secrets }) : data;
}

/** An agent-reported error as a typed error carries it: its message, reason and data redacted of our credentials. */
export function quotableAgentError(parsed: ParsedAgentError, secrets: readonly string[]): ParsedAgentError {
  const out: ParsedAgentError = { a2aCode: parsed.a2aCode, message: quotable(parsed.message, secrets) };
  if (parsed.data !== undefined) out.data = echoedData(parsed.data, secrets);
  if (parsed.reason !== undefined) out.reason = quotable(parsed.reason, secrets);
  return out;
}

/**
 * The error `JSON.parse(text)` threw, as an error's `cause` may carry it. The parser's message
 * quotes a few characters of the text, which may cut a credential (no longer found to redact): when
 * `text` holds one of ours, a `SyntaxError` that quotes nothing stands in.
 */
export function parseCause(error: unknown, text: string, secrets: readonly string[]): unknown {
  if (!holdsSecret(text, secrets)) return error;
  return new SyntaxError('the text is not valid JSON (the parser’s message is left out: it quotes the text, which holds a credential)');
}
