import type { StreamEvent, Task, TaskStatus } from '@a2a-tether/core';

/**
 * What a subscriber receives: "task X moved; here is the latest we got". Pushes that arrive while
 * the subscriber is still busy with the previous notice are merged into one, so `pushes` may be
 * more than 1. A push is a hint: fetch the task (GetTask) for the full, authoritative state.
 */
export interface PushNotice {
  readonly taskId: string;
  /**
   * The task's latest status among the merged pushes. Only ever moves forward: never back to
   * `submitted`, never from a terminal state to another one, never to an older `timestamp`.
   */
  readonly status: TaskStatus | undefined;
  /** The latest whole task among the merged pushes (every v0.3 push is one); its status may be older than `status`. */
  readonly task: Task | undefined;
  /** The last event merged into this notice. */
  readonly event: StreamEvent;
  /** How many accepted pushes this notice stands for (at least 1). */
  readonly pushes: number;
}

/** Receives the notices of one task; the next notice waits until the returned promise settles. */
export type PushListener = (notice: PushNotice) => void | Promise<void>;
