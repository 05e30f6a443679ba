import { quotable } from '../errors/quote-answer.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { DecodeError } from '../protocol/decode-error.js';

/** How a decoder marks a value it cut (`quote()`: `"…the first 64 characters"… (n characters)`). */
const CUT = '"… (';
/** The shortest start of a credential worth redacting where a cut left it. */
const MIN_CUT_SECRET = 4;

/** How much of `secret`'s start `head` ends with (at least {@link MIN_CUT_SECRET} characters), if any. */
function cutSecretLength(head: string, secret: string): number | undefined {
  for (let length = Math.min(secret.length - 1, head.length); length >= MIN_CUT_SECRET; length--) {
    if (head.endsWith(secret.slice(0, length))) return length;
  }
  return undefined;
}

/** A credential whose start ends a cut quote (the cut fell inside it) is redacted there too. */
function redactCutSecrets(message: string, secrets: readonly string[]): string {
  const parts = message.split(CUT);
  for (let i = 0; i < parts.length - 1; i++) {
    const head = parts[i] as string;
    for (const secret of secrets) {
      const length = cutSecretLength(head, secret);
      if (length === undefined) continue;
      parts[i] = `${head.slice(0, head.length - length)}[REDACTED]`;
      break;
    }
  }
  return parts.join(CUT);
}

/**
 * A DecodeError as an error may carry it: what it quotes of the answer (a value it could not read)
 * with our credentials redacted, also where its cut of a long value fell inside one. A path that
 * would need redacting is dropped.
 */
export function quotableDecodeError(error: DecodeError, secrets: readonly string[]): DecodeError {
  const message = redactCutSecrets(quotable(error.message, secrets), secrets);
  if (message === error.message) return error;
  const prefix = `${error.path}: `;
  const keepPath = error.path !== '' && quotable(error.path, secrets) === error.path && message.startsWith(prefix);
  return keepPath ? new DecodeError(message.slice(prefix.length), error.path) : new DecodeError(message);
}

/**
 * Runs a decoder, turning a DecodeError into INVALID_RESPONSE with the call's context; `secrets`
 * (the credentials sent) are redacted from what it quotes of the answer.
 */
export function decodeOrThrow<T>(decode: () => T, context: ErrorContext, secrets: readonly string[]): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof DecodeError) {
      const quoted = quotableDecodeError(error, secrets);
      throw new TetherError('INVALID_RESPONSE', `the answer does not match the protocol: ${quoted.message}`, {
        ...context,
        cause: quoted,
      });
    }
    throw error;
  }
}
