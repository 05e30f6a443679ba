/** The CLI-local error codes of the a2a-cli specification (Appendix D). */
export type CliErrorCode =
  | 'A2ACLI_ERR_USAGE'
  | 'A2ACLI_ERR_CARD_NOT_FOUND'
  | 'A2ACLI_ERR_CARD_INVALID'
  | 'A2ACLI_ERR_UNREACHABLE'
  | 'A2ACLI_ERR_CREDENTIALS_MISSING'
  | 'A2ACLI_ERR_AUTH_FAILED'
  | 'A2ACLI_ERR_TIMEOUT'
  | 'A2ACLI_ERR_INTERNAL';

/** The exit status of each CLI-local code (Appendix D's Exit column). */
export const EXIT_OF: Readonly<Record<CliErrorCode, number>> = Object.freeze({
  A2ACLI_ERR_USAGE: 2,
  A2ACLI_ERR_CARD_NOT_FOUND: 3,
  A2ACLI_ERR_CARD_INVALID: 1,
  A2ACLI_ERR_UNREACHABLE: 3,
  A2ACLI_ERR_CREDENTIALS_MISSING: 4,
  A2ACLI_ERR_AUTH_FAILED: 4,
  A2ACLI_ERR_TIMEOUT: 5,
  A2ACLI_ERR_INTERNAL: 1,
});

/** A failure the CLI itself owns: a usage error, a card it cannot read, a timeout. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The exit status this error ends the process with. */
  get exitCode(): number {
    return EXIT_OF[this.code];
  }

  /** Invalid arguments, flags or combination (exit 2). */
  static usage(message: string, hint?: string): CliError {
    return new CliError('A2ACLI_ERR_USAGE', message, hint ?? 'see `tether help` or `tether <command> --help`');
  }
}
