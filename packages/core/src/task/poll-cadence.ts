/** Polling settings (see `RESILIENCE_DEFAULTS`). */
export interface PollCadenceOptions {
  pollMinMs: number;
  pollMaxMs: number;
  pollFactor: number;
}

/**
 * How long to wait between two GetTask polls: `pollMinMs` right after a change, then growing by
 * `pollFactor` per unchanged poll up to `pollMaxMs`; each wait jittered by ±20 % so many tasks
 * (or tabs) do not poll in step.
 */
export class PollCadence {
  private base: number;

  constructor(
    private readonly options: PollCadenceOptions,
    private readonly random: () => number,
  ) {
    this.base = options.pollMinMs;
  }

  /** The next wait, after a poll that did (or did not) show something new. */
  after(changed: boolean): number {
    const next = nextPollWait(this.base, changed, this.options, this.random);
    this.base = next.baseMs;
    return next.delayMs;
  }

  /** The wait that {@link after} would give for an unchanged poll, without moving. */
  get current(): number {
    return this.base;
  }
}

/** The cadence as a value: from the current base wait and whether the poll showed something new, the next base and the jittered wait. */
export function nextPollWait(baseMs: number, changed: boolean, options: PollCadenceOptions, random: () => number): { baseMs: number; delayMs: number } {
  const { pollMinMs, pollMaxMs, pollFactor } = options;
  const next = changed ? pollMinMs : Math.min(pollMaxMs, baseMs * pollFactor);
  return { baseMs: next, delayMs: Math.round(next * (0.8 + 0.4 * random())) };
}
