import { setTimeout as sleep } from 'node:timers/promises';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { parseCommand } from './scenario.js';

/** How a {@link scriptedModel} answers. */
export interface ScriptedModelOptions {
  /** Delay before each delta of an ordinary answer (ms). */
  readonly deltaDelayMs: number;
  /** Deltas of a `slow` answer, unless the message says `steps=`. */
  readonly slowSteps: number;
  /** Delay before each delta of a `slow` answer (ms), unless the message says `delayMs=`. */
  readonly slowDelayMs: number;
  /** Aborted when the server closes, so no scripted delay outlives it. */
  readonly closed: AbortSignal;
  /** Called with the user's text once per model call. */
  readonly onCall: (text: string) => void;
}

interface Script {
  readonly deltas: readonly string[];
  readonly delayMs: number;
  /** Thrown instead of answering. */
  readonly failure: Error | undefined;
}

const STOP: LanguageModelV3FinishReason = { unified: 'stop', raw: 'stop' };

function usage(outputTokens: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

/** The text of the last user message in the prompt (the agent may add a system message before it). */
export function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'user') continue;
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }
  return '';
}

/** What the scripted model answers to `text`. */
export function scriptFor(text: string, options: Pick<ScriptedModelOptions, 'deltaDelayMs' | 'slowSteps' | 'slowDelayMs'>): Script {
  const command = parseCommand(text);
  const intArg = (key: string, fallback: number): number => {
    const value = Number(command.args.get(key));
    return Number.isInteger(value) && value >= 0 ? value : fallback;
  };
  switch (command.name) {
    case 'fail':
      return { deltas: [], delayMs: 0, failure: new Error(`scripted failure for "${text}"`) };
    case 'slow': {
      const steps = intArg('steps', options.slowSteps);
      return {
        deltas: Array.from({ length: steps }, (_, i) => `tick-${i + 1};`),
        delayMs: intArg('delayMs', options.slowDelayMs),
        failure: undefined,
      };
    }
    default: {
      const words = `echo: ${text}`.split(/(?=\s)/);
      return { deltas: words, delayMs: options.deltaDelayMs, failure: undefined };
    }
  }
}

/**
 * A language model (AI SDK `LanguageModelV3`, the spec `ai` 6 and `@voltagent/core` 2.10 call)
 * that answers from a script instead of an LLM. The user's text picks the script:
 *
 * - `fail …`: the call throws, as a provider does when its API answers an error;
 * - `slow steps=N delayMs=M`: N deltas `tick-1;tick-2;…`, M ms apart (defaults from the options);
 * - anything else: `echo: <text>`, one delta per word, `deltaDelayMs` apart.
 *
 * An aborted call (the agent's abort signal, a cancelled reader, or `closed`) ends the way a
 * provider's aborted fetch does: the stream errors with an AbortError.
 */
export function scriptedModel(options: ScriptedModelOptions): LanguageModelV3 {
  const begin = (call: LanguageModelV3CallOptions, ...more: AbortSignal[]): { script: Script; signal: AbortSignal } => {
    const text = lastUserText(call.prompt);
    options.onCall(text);
    const signals = [options.closed, ...more, ...(call.abortSignal === undefined ? [] : [call.abortSignal])];
    return { script: scriptFor(text, options), signal: AbortSignal.any(signals) };
  };

  return {
    specificationVersion: 'v3',
    provider: 'tether-scripted',
    modelId: 'scripted',
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV3GenerateResult> {
      const { script, signal } = begin(call);
      if (script.failure) throw script.failure;
      for (let i = 0; i < script.deltas.length; i++) await sleep(script.delayMs, undefined, { signal });
      return {
        content: [{ type: 'text', text: script.deltas.join('') }],
        finishReason: STOP,
        usage: usage(script.deltas.length),
        warnings: [],
      };
    },

    async doStream(call): Promise<LanguageModelV3StreamResult> {
      // The reader may cancel while a delay is pending: end the delay too.
      const cancelled = new AbortController();
      const { script, signal } = begin(call, cancelled.signal);
      if (script.failure) throw script.failure;
      const parts = (async function* (): AsyncGenerator<LanguageModelV3StreamPart> {
        yield { type: 'stream-start', warnings: [] };
        yield { type: 'text-start', id: 'text-0' };
        for (const delta of script.deltas) {
          await sleep(script.delayMs, undefined, { signal });
          yield { type: 'text-delta', id: 'text-0', delta };
        }
        yield { type: 'text-end', id: 'text-0' };
        yield { type: 'finish', finishReason: STOP, usage: usage(script.deltas.length) };
      })();
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          try {
            const next = await parts.next();
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          } catch (error) {
            controller.error(error);
          }
        },
        cancel(reason) {
          cancelled.abort(reason);
        },
      });
      return { stream };
    },
  };
}
