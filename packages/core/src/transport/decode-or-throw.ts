import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { DecodeError } from '../protocol/decode-error.js';

/** Runs a decoder, turning a DecodeError into INVALID_RESPONSE with the call's context. */
export function decodeOrThrow<T>(decode: () => T, context: ErrorContext): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof DecodeError) {
      throw new TetherError('INVALID_RESPONSE', `the answer does not match the protocol: ${error.message}`, {
        ...context,
        cause: error,
      });
    }
    throw error;
  }
}
