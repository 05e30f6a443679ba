import { TetherError, isTetherError } from '../errors/tether-error.js';

export function invalid(message: string): TetherError {
  return new TetherError('INVALID_ARGUMENT', message, { maybeDelivered: false });
}

/** What the record keeps of an error: its code (`ERROR` when it is not Tether's) and message. */
export function errorInfo(error: unknown): { code: string; message: string } {
  if (isTetherError(error)) return { code: error.code, message: error.message };
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}
