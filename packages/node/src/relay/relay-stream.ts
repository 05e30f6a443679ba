import { payloadOf } from './relay-ids.js';

/** What {@link relayEvents} needs from the relay. */
export interface EventRelayOptions {
  /** Cuts the agent's credentials out of an event's text. */
  readonly redact: (text: string) => string;
  /** Whether an event's payload may reach the browser (its ids are the owner's, or now claimed for it). */
  readonly admit: (payload: unknown) => Promise<boolean>;
  /** The largest event, in characters; past it the stream is cut. */
  readonly maxEventChars: number;
  /** Called once when the stream ends, however it ends. */
  readonly onEnd: () => void;
  /** Aborts the request to the agent (the browser went away, or the stream was cut). */
  readonly abort: () => void;
}

function payloadOfEvent(event: string): unknown {
  const data = event
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  if (data === '') return undefined;
  try {
    // Some agents put an RFC 7464 record separator before the JSON.
    return payloadOf(JSON.parse(data.charCodeAt(0) === 0x1e ? data.slice(1) : data) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * The agent's SSE stream as the browser gets it: event by event (line ends made `\n`), each one checked
 * (`admit`: whose task it names) and redacted before any of it is sent, `id:` lines and all kept (so the
 * browser's `Last-Event-ID` works). A cut of the agent's stream cuts the browser's (an error, never a clean
 * end), so the browser resubscribes through the relay; the browser going away aborts the agent's request.
 */
export function relayEvents(upstream: ReadableStream<Uint8Array>, options: EventRelayOptions): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  // A CR at the end of a chunk may be half of a CRLF: held until the next chunk.
  let heldCr = '';
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    options.onEnd();
  };
  const take = (text: string, last: boolean): void => {
    let chunk = heldCr + text;
    heldCr = !last && chunk.endsWith('\r') ? '\r' : '';
    if (heldCr) chunk = chunk.slice(0, -1);
    buffer += chunk.replace(/\r\n?/g, '\n');
  };
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: Error): void => {
    end();
    options.abort();
    void reader.cancel(error).catch(() => undefined);
    controller.error(error);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const boundary = buffer.indexOf('\n\n');
        if (boundary !== -1) {
          const event = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          if (!(await options.admit(payloadOfEvent(event)))) return fail(controller, new Error('the agent sent an event of a task this owner may not see: stream cut'));
          controller.enqueue(encoder.encode(`${options.redact(event)}\n\n`));
          return;
        }
        if (buffer.length > options.maxEventChars) return fail(controller, new Error('an event of the agent is too large: stream cut'));
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          // The agent's stream broke: the browser's breaks too, and the browser resubscribes.
          return fail(controller, error instanceof Error ? error : new Error(String(error)));
        }
        if (next.done) {
          take(decoder.decode(), true);
          // A last event without its blank line is not complete: it is not sent.
          end();
          controller.close();
          return;
        }
        take(decoder.decode(next.value, { stream: true }), false);
      }
    },
    cancel(reason) {
      end();
      options.abort();
      return reader.cancel(reason).catch(() => undefined);
    },
  });
}
