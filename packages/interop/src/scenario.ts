/**
 * The scenario grammar both official servers speak, independent of SDK version.
 *
 * The first text part of a user message selects a scenario: `<name> key=value …`.
 * A scenario only says what happens ("open a task", "status working", "artifact chunk");
 * each server's executor turns that into its own SDK's event shapes, so the v1.0 and
 * v0.3 servers behave the same and fixtures from both can be compared line by line.
 */

export type ScenarioState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected';

export interface ArtifactChunk {
  readonly artifactId: string;
  readonly name: string;
  readonly text: string;
  readonly append: boolean;
  readonly lastChunk: boolean;
}

/** What a scenario can publish; implemented once per SDK version. */
export interface ScenarioSink {
  /** A direct Message reply: no task is created. */
  reply(text: string): void;
  /** The Task that opens a new task (first event of the turn). */
  openTask(state: ScenarioState): void;
  /** A follow-up turn on an existing task starts here (v1 re-publishes the Task, v0.3 does nothing). */
  resumeTask(): void;
  status(state: ScenarioState, text?: string): void;
  artifact(chunk: ArtifactChunk): void;
}

export interface ScenarioTurn {
  readonly taskId: string;
  /** The first text part of the user message ('' when there is none). */
  readonly text: string;
  /** The message names an existing task, i.e. it answers an `input` task. */
  readonly followUp: boolean;
}

export interface ParsedCommand {
  readonly name: string;
  readonly args: ReadonlyMap<string, string>;
}

export function parseCommand(text: string): ParsedCommand {
  const [name = '', ...rest] = text.trim().split(/\s+/);
  const args = new Map<string, string>();
  for (const token of rest) {
    const eq = token.indexOf('=');
    if (eq > 0) args.set(token.slice(0, eq), token.slice(eq + 1));
  }
  return { name, args };
}

function intArg(command: ParsedCommand, key: string, fallback: number): number {
  const raw = command.args.get(key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}

/**
 * Runs scenarios and owns everything that outlives a single event: pending delays
 * (so `close()` can stop them and the test process can exit) and cancel requests
 * (the SDK calls `cancelTask` out of band; the loop publishes `canceled` at its next step).
 */
export class ScenarioRunner {
  readonly #cancelRequested = new Set<string>();
  readonly #looping = new Set<string>();
  readonly #sleeps = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  #closed = false;

  async run(turn: ScenarioTurn, sink: ScenarioSink): Promise<void> {
    if (turn.followUp) {
      this.#answerInput(turn, sink);
      return;
    }
    const command = parseCommand(turn.text);
    switch (command.name) {
      case 'stream':
        await this.#loop(turn.taskId, sink, {
          updates: intArg(command, 'updates', 3),
          chunks: intArg(command, 'chunks', 5),
          delayMs: intArg(command, 'delayMs', 5),
        });
        return;
      case 'slow': {
        const steps = intArg(command, 'steps', 50);
        await this.#loop(turn.taskId, sink, { updates: steps, chunks: steps, delayMs: intArg(command, 'delayMs', 20) });
        return;
      }
      case 'stubborn': {
        // Like `slow`, but a cancel request is taken and ignored: the task completes all the same.
        const steps = intArg(command, 'steps', 50);
        await this.#loop(turn.taskId, sink, { updates: steps, chunks: steps, delayMs: intArg(command, 'delayMs', 20), ignoreCancel: true });
        return;
      }
      case 'work':
        this.#work(turn.text, command.name, sink);
        return;
      case 'input':
        sink.openTask('submitted');
        sink.status('working');
        sink.status('input-required', 'need input');
        return;
      case 'fail':
        sink.openTask('submitted');
        sink.status('working');
        sink.status('failed', 'failed on purpose');
        return;
      case 'reject':
        sink.openTask('submitted');
        sink.status('rejected', 'rejected on purpose');
        return;
      default:
        // `echo` and anything unknown: the whole text comes back, so a reply is easy to match.
        sink.reply(`echo: ${turn.text}`);
    }
  }

  /**
   * Records a cancel request. Returns false when no loop is running for the task
   * (e.g. it waits in input-required): the caller must then publish `canceled` itself,
   * because the SDK waits for a terminal event after calling the executor's cancelTask.
   */
  requestCancel(taskId: string): boolean {
    if (!this.#looping.has(taskId)) return false;
    this.#cancelRequested.add(taskId);
    return true;
  }

  /** Stops every pending delay; running loops return without publishing anything more. */
  close(): void {
    this.#closed = true;
    for (const sleep of this.#sleeps) {
      clearTimeout(sleep.timer);
      sleep.wake();
    }
    this.#sleeps.clear();
  }

  #answerInput(turn: ScenarioTurn, sink: ScenarioSink): void {
    sink.resumeTask();
    sink.status('working');
    sink.artifact({ artifactId: 'answer', name: 'answer', text: `got: ${turn.text}`, append: false, lastChunk: true });
    sink.status('completed');
  }

  /**
   * `work <text…>`: a task that works one step and completes with one whole artifact `result` whose
   * text is `done(<text…>)` — the words after the command, so what a task produced shows what it was given.
   */
  #work(text: string, name: string, sink: ScenarioSink): void {
    const given = text.trim().slice(name.length).trim();
    sink.openTask('submitted');
    sink.status('working');
    sink.artifact({ artifactId: 'result', name: 'result', text: `done(${given})`, append: false, lastChunk: true });
    sink.status('completed');
  }

  /**
   * `updates` working statuses (`step i`) interleaved with `chunks` chunks of one artifact,
   * one of each per step, `delayMs` apart; cancel requests are honoured before every step
   * and once more before completing, so a cancel never loses the race to `completed`.
   */
  async #loop(
    taskId: string,
    sink: ScenarioSink,
    plan: { updates: number; chunks: number; delayMs: number; ignoreCancel?: boolean },
  ): Promise<void> {
    this.#looping.add(taskId);
    const cancelled = (): boolean => plan.ignoreCancel !== true && this.#cancelRequested.has(taskId);
    try {
      sink.openTask('submitted');
      const steps = Math.max(plan.updates, plan.chunks);
      for (let i = 0; i < steps; i++) {
        if (cancelled()) {
          sink.status('canceled', `canceled at step ${i}`);
          return;
        }
        if (i < plan.updates) sink.status('working', `step ${i}`);
        if (i < plan.chunks) {
          sink.artifact({
            artifactId: 'result',
            name: 'result',
            text: `chunk-${i};`,
            append: i > 0,
            lastChunk: i === plan.chunks - 1,
          });
        }
        await this.#sleep(plan.delayMs);
        if (this.#closed) return;
      }
      if (cancelled()) {
        sink.status('canceled', `canceled at step ${steps}`);
        return;
      }
      sink.status('completed');
    } finally {
      this.#looping.delete(taskId);
      this.#cancelRequested.delete(taskId);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const sleep = {
        timer: setTimeout(() => {
          this.#sleeps.delete(sleep);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.#sleeps.add(sleep);
    });
  }
}
