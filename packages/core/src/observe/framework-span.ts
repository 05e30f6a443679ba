import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { FrameworkSpan, FrameworkSpanEnd, TetherPlugin } from './plugin.js';
import { childTraceparent, parseTraceparent, type TraceContext } from './trace-context.js';

/** A framework span, open: the context its children continue, and its end (told once). */
export interface OpenSpan {
  readonly context: TraceContext;
  end(end: FrameworkSpanEnd): void;
}

const warned = new Set<string>();

/** A plugin's hook threw: said once per plugin and hook, never thrown on (the workflow goes on without it). */
function failed(plugin: TetherPlugin, hook: string, cause: unknown): void {
  const key = `${plugin.name}\u0000${hook}`;
  if (warned.has(key)) return;
  warned.add(key);
  const error = new TetherError('PLUGIN_FAILED', `plugin "${plugin.name}" threw in ${hook}: ${redact(cause instanceof Error ? cause.message : String(cause))}`, { cause });
  console.warn(`[tether] ${error.message} (reported once; the workflow goes on without it)`);
}

/**
 * Opens a framework span with every plugin that has `onSpanStart`: the first trace context a plugin
 * returns is the one the span's children continue; when none does, a new span id in `span.parent`'s
 * trace (or a new trace), so the workflow's hops and calls still share one trace id.
 */
export function openSpan(plugins: readonly TetherPlugin[], span: FrameworkSpan): OpenSpan {
  let context: TraceContext | undefined;
  const told: TetherPlugin[] = [];
  for (const plugin of plugins) {
    if (!plugin.onSpanStart) continue;
    told.push(plugin);
    try {
      const given = plugin.onSpanStart(span);
      if (context === undefined && given && parseTraceparent(given.traceparent) !== undefined) context = given;
    } catch (error) {
      failed(plugin, 'onSpanStart', error);
    }
  }
  context ??= { traceparent: childTraceparent(span.parent?.traceparent), ...(span.parent?.tracestate ? { tracestate: span.parent.tracestate } : {}) };
  let ended = false;
  return {
    context,
    end(end) {
      if (ended) return;
      ended = true;
      for (const plugin of told) {
        try {
          plugin.onSpanEnd?.(span, end);
        } catch (error) {
          failed(plugin, 'onSpanEnd', error);
        }
      }
    },
  };
}
