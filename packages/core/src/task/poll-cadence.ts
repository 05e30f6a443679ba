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
    const { pollMinMs, pollMaxMs, pollFactor } = this.options;
    this.base = changed ? pollMinMs : Math.min(pollMaxMs, this.base * pollFactor);
    return Math.round(this.base * (0.8 + 0.4 * this.random()));
  }

  /** The wait that {@link after} would give for an unchanged poll, without moving. */
  get current(): number {
    return this.base;
  }
}
