import { redact } from '../errors/redact.js';
import type { StreamEvent } from '../model/types.js';
import type { LifecycleEvent, RequestInfo, RequestOutcome, TetherPlugin } from './plugin.js';

/**
 * Where `connect(url, { log })` writes: console-shaped, each level optional. `console` and pino
 * loggers work as they are. Every line is one string, credentials redacted (`redact()`).
 */
export interface Logger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
}

type Level = keyof Logger;

/** One short line per stream event: its kind and ids and state, never its content. */
function describeEvent(event: StreamEvent): string {
  switch (event.kind) {
    case 'task':
      return `task ${event.id} ${event.status.state} (${event.artifacts.length} artifact(s), ${event.history.length} message(s))`;
    case 'status-update':
      return `status ${event.status.state}${event.final ? ' (final)' : ''}`;
    case 'artifact-update':
      return `artifact ${event.artifact.artifactId} ${event.append ? 'append' : 'replace'} ${event.artifact.parts.length} part(s)${event.lastChunk ? ' (last chunk)' : ''}`;
    case 'message':
      return `message ${event.messageId} from ${event.role}`;
  }
}

/**
 * The card was found at the host's root after the URL's own path had none (`missedAt`): it may be
 * another agent's. Said through the debug log, at `warn`.
 */
export function warnRootCard(logger: Logger, missedAt: string, cardUrl: string): void {
  (logger.warn ?? logger.info)?.call(logger, `[tether] ${redact(`no agent card at ${missedAt}: using the host's root card ${cardUrl} (another agent's?); check the URL's path`)}`);
}

/**
 * Tether's debug log as a plugin: every request and its answer, each stream event (kind, ids, state —
 * not content) at `debug`; reconnects, polling and push waits at `info`; failures at `warn`. Off unless
 * `connect(url, { log })`, `TETHER_DEBUG=1` (Node) or `localStorage.tetherDebug` (a page) asks for it.
 */
export function logPlugin(logger: Logger): TetherPlugin {
  const write = (level: Level, message: string): void => {
    const line = `[tether] ${redact(message)}`;
    (logger[level] ?? logger.info)?.call(logger, line);
  };
  const task = (taskId: string | undefined): string => (taskId === undefined ? '' : ` task ${taskId}`);
  return {
    name: 'tether-log',
    lifecycle: ['connection-changed', 'state-changed', 'task-created', 'cancel-requested', 'cancel-confirmed', 'plugin-failed', 'lease', 'cost'],
    onRequest(request: RequestInfo): void {
      write('debug', `→ ${request.operation} ${request.method} ${request.url}${task(request.taskId)}${request.messageId ? ` message ${request.messageId}` : ''}${request.attempt ? ` (retry ${request.attempt})` : ''}`);
    },
    onResponse(request: RequestInfo, outcome: RequestOutcome): void {
      const status = outcome.status === undefined ? 'no answer' : `HTTP ${outcome.status}`;
      const events = outcome.events === undefined ? '' : `, ${outcome.events} event(s)`;
      if (outcome.error) write('warn', `← ${request.operation} ${status} after ${outcome.durationMs} ms${events}: ${outcome.error.code} ${outcome.error.message}`);
      else write('debug', `← ${request.operation} ${status} in ${outcome.durationMs} ms${events}`);
    },
    onStreamEvent(event: StreamEvent, request: RequestInfo): void {
      write('debug', `  ${request.operation}${task(request.taskId)} event: ${describeEvent(event)}`);
    },
    onLifecycle(event: LifecycleEvent): void {
      switch (event.type) {
        case 'connection-changed': {
          const why = event.error ? ` (${event.error.code}: ${event.error.message})` : '';
          const wait = event.delayMs === undefined ? '' : ` in ${event.delayMs} ms, attempt ${event.attempt ?? '?'}`;
          write(event.state === 'reconnecting' ? 'info' : 'debug', `task ${event.taskId ?? '?'} link ${event.state}${wait}${why}`);
          break;
        }
        case 'state-changed':
          write('debug', `task ${event.taskId ?? '?'} ${event.from} → ${event.to} (${event.source})`);
          break;
        case 'task-created':
          write('info', `task ${event.taskId ?? '?'} created by message ${event.messageId}`);
          break;
        case 'cancel-requested':
        case 'cancel-confirmed':
          write('info', `task ${event.taskId ?? '?'} ${event.type}`);
          break;
        case 'plugin-failed':
          write('warn', event.error.message);
          break;
        case 'lease':
          write(event.change === 'lost' ? 'warn' : 'info', `task ${event.taskId ?? '?'} lease ${event.change}${event.fence === undefined ? '' : ` (fence ${event.fence})`}${event.reason ? `: ${event.reason}` : ''}`);
          break;
        case 'cost':
          write('info', `task ${event.taskId ?? '?'} cost ${event.amount} ${event.unit}`);
          break;
        default:
          break;
      }
    },
  };
}

