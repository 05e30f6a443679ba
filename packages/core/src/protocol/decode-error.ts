/**
 * A wire object did not match the protocol. Transports turn it into a `TetherError`
 * (`INVALID_RESPONSE` for answers, `MALFORMED_EVENT` for stream events) with the call's context.
 */
export class DecodeError extends Error {
  constructor(
    message: string,
    readonly path: string = '',
  ) {
    super(path ? `${path}: ${message}` : message);
    this.name = 'DecodeError';
  }
}
