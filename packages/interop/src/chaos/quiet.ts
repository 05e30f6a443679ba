const NOISE = /^(Pre-stream error for request|Resubscribe: No active event bus)/;

/**
 * The official SDK servers log every refused subscription (to a task that already finished) with a
 * stack trace: under chaos, hundreds of lines of expected noise. Drops exactly those lines from
 * `console.error` / `console.warn`; anything else gets through. Returns the undo.
 */
export function quietOfficialServers(): () => void {
  const { error, warn } = console;
  const filter =
    (write: (...args: unknown[]) => void) =>
    (...args: unknown[]): void => {
      if (typeof args[0] === 'string' && NOISE.test(args[0])) return;
      write(...args);
    };
  console.error = filter(error.bind(console));
  console.warn = filter(warn.bind(console));
  return () => {
    console.error = error;
    console.warn = warn;
  };
}
