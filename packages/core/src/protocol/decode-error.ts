import { TetherError } from '../errors/tether-error.js';

/**
 * A wire object did not match the protocol: a `TetherError` with code `INVALID_RESPONSE`, thrown by
 * the decoders of `@a2a-tether/core/protocol`. Transports turn it into a `TetherError` with the
 * call's context (`INVALID_RESPONSE` for answers, `MALFORMED_EVENT` for stream events).
 */
export class DecodeError extends TetherError {
  static override readonly errorName: string = 'DecodeError';

  constructor(
    message: string,
    readonly path: string = '',
  ) {
    super('INVALID_RESPONSE', path ? `${path}: ${message}` : message, { isRetryable: false });
  }
}

/**
 * A value as an error message shows it: JSON, cut to `max` characters. A hostile agent's 1 MB
 * role name must not become a 1 MB message (messages end up in logs).
 */
export function quote(value: string | number, max = 64): string {
  const text = typeof value === 'string' && value.length > max ? value.slice(0, max) : value;
  const json = JSON.stringify(text);
  return text === value ? json : `${json}… (${(value as string).length} characters)`;
}
