import type { TaskEvent, TaskHandle } from '@a2a-tether/core';
import { TetherError } from '@a2a-tether/core';
import type { UIMessageChunk } from 'ai';
import type { ChunkMapper, StepEnd } from './chunk-mapper.js';

/** How a turn's stream ended: the mapper's end, a typed error, the chat's stop, or the follow ended quietly (detached). */
export type TurnEnd = StepEnd | 'error' | 'stopped' | 'detached';

/** What {@link turnStream} reads and whom it tells how it ended. */
export interface TurnStreamInput {
  handle: TaskHandle;
  mapper: ChunkMapper;
  /** The chat's abort signal (`stop()`). */
  signal: AbortSignal | undefined;
  /** Told once, when the stream ended (never called back into while it runs). */
  ended: (end: TurnEnd) => void;
}

/**
 * A task's events as the AI SDK's chunks, read as the chat reads (a pull reads the next event): the
 * message's `start`, its content, and its end — `finish` at the task's end or a pause, an `error` chunk
 * for a failed task or a follow that failed (its typed error's message). The stream always ends:
 * the follow behind it ends by the engine's budgets (a typed error at worst).
 */
export function turnStream(input: TurnStreamInput): ReadableStream<UIMessageChunk> {
  const { handle, mapper, signal, ended } = input;
  const events = handle.events({ signal })[Symbol.asyncIterator]();
  let over = false;
  const end = (how: TurnEnd): void => {
    if (over) return;
    over = true;
    // The reader is released so that a later reader of the handle (the answer to a pause) continues here.
    void events.return?.().catch(() => undefined);
    ended(how);
  };
  let started = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      if (!started) {
        started = true;
        for (const chunk of mapper.begin()) controller.enqueue(chunk);
        return;
      }
      // One event per pull; events that say nothing to the chat (connection changes) are read on.
      for (;;) {
        if (signal?.aborted) {
          end('stopped');
          controller.close();
          return;
        }
        let next: IteratorResult<TaskEvent>;
        try {
          next = await events.next();
        } catch (error) {
          if (signal?.aborted) {
            end('stopped');
            controller.close();
            return;
          }
          for (const chunk of mapper.closeTexts()) controller.enqueue(chunk);
          controller.enqueue({ type: 'error', errorText: describe(error) });
          end('error');
          controller.close();
          return;
        }
        if (next.done) {
          // The follow ended without a terminal status of its own: detached (another reader took the task over).
          for (const chunk of mapper.closeTexts()) controller.enqueue(chunk);
          end(signal?.aborted ? 'stopped' : 'detached');
          controller.close();
          return;
        }
        const step = mapper.apply(next.value);
        for (const chunk of step.chunks) controller.enqueue(chunk);
        if (step.end) {
          end(step.end);
          controller.close();
          return;
        }
        if (step.chunks.length > 0) return;
      }
    },
    cancel() {
      end(signal?.aborted ? 'stopped' : 'detached');
    },
  });
}

/** A stream of chunks given up front (a direct message answer). */
export function chunkStream(chunks: readonly UIMessageChunk[]): ReadableStream<UIMessageChunk> {
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** An error's text for an `error` chunk: a typed error's message names the operation, URL, status and task. */
function describe(error: unknown): string {
  if (error instanceof TetherError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
