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

/**
 * A value as an error message shows it: JSON, cut to `max` characters. A hostile agent's 1 MB
 * role name must not become a 1 MB message (messages end up in logs).
 */
export function quote(value: string | number, max = 64): string {
  const text = typeof value === 'string' && value.length > max ? value.slice(0, max) : value;
  const json = JSON.stringify(text);
  return text === value ? json : `${json}… (${(value as string).length} characters)`;
}
