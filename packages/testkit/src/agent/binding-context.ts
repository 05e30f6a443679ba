import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentError } from './agent-error.js';
import type { RequestBody } from './http-io.js';
import type { AgentOperations } from './operations.js';
import type { ResolvedOptions } from './options.js';
import { SseWriter } from './sse.js';
import { StreamSession } from './stream-session.js';
import type { StreamItem } from './wire-codec.js';

/** What a binding handler gets for one request. */
export interface BindingRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Path below the binding's mount point (e.g. `/message:send`). */
  path: string;
  body: RequestBody;
  ops: AgentOperations;
  options: ResolvedOptions;
}

/** The `A2A-Version` the request asked for (header, or the `A2A-Version` query parameter). */
export function requestedVersion(request: BindingRequest): string | undefined {
  const header = request.req.headers['a2a-version'];
  const value = (Array.isArray(header) ? header[0] : header) ?? request.url.searchParams.get('A2A-Version') ?? undefined;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export const isV1Version = (value: string | undefined): boolean => value !== undefined && /^1\.0(\.\d+)?$/.test(value);
export const isV03Version = (value: string | undefined): boolean => value !== undefined && /^0\.3(\.\d+)?$/.test(value);

/** Open an SSE session on this response, with the current behaviour switches. */
export function openStream(
  request: BindingRequest,
  encode: (item: StreamItem) => unknown,
  encodeError: (error: AgentError) => unknown,
  plainError: (error: AgentError) => void,
): StreamSession {
  const behaviour = request.options.behaviour;
  const session = new StreamSession(
    { sse: new SseWriter(request.res), encode, encodeError, plainError },
    {
      sseIds: behaviour.sseIds === true,
      closeAtInterrupted: behaviour.closeAtInterrupted !== false,
      agentWide: request.ops.agentWideMisbehaviour(),
      others: (entry) => request.ops.otherTasks(entry),
    },
  );
  request.res.on('close', () => session.close());
  return session;
}

export function lastEventId(request: BindingRequest): string | undefined {
  const value = request.req.headers['last-event-id'];
  return Array.isArray(value) ? value[0] : value;
}
