/** Where the CLI writes and what it runs in: the process's streams in `tether`, buffers in tests. */
export interface CliIO {
  /** Writes the payload (stdout). */
  out(text: string): void;
  /** Writes diagnostics (stderr). */
  err(text: string): void;
  /** The working directory (relative card paths, the local `.env`). */
  cwd: string;
  /** Whether stdout is a terminal (only the renderer choice reads it). */
  isTTY: boolean;
}
