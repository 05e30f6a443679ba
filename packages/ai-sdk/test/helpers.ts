import { AbstractChat, readUIMessageStream, type ChatState, type ChatStatus, type ChatTransport, type UIMessage, type UIMessageChunk } from 'ai';

/** Every chunk of a stream, in order. */
export async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

/** A stream of given chunks (to turn collected chunks into a message). */
export function streamOf(chunks: readonly UIMessageChunk[]): ReadableStream<UIMessageChunk> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** The message the AI SDK builds from chunks (its own `readUIMessageStream`). */
export async function messageOf(chunks: readonly UIMessageChunk[]): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream: streamOf(chunks) })) last = message;
  return last;
}

/** The text parts of a message, joined. */
export function textOfMessage(message: UIMessage | undefined): string {
  return (message?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The concatenated text deltas among chunks. */
export function deltas(chunks: readonly UIMessageChunk[]): string {
  return chunks.map((c) => (c.type === 'text-delta' ? c.delta : '')).join('');
}

/** A plain in-memory `ChatState`, as the framework bindings keep theirs. */
class MemoryChatState implements ChatState<UIMessage> {
  private current: ChatStatus = 'ready';
  constructor(
    messages: UIMessage[] = [],
    private readonly onStatus?: ((status: ChatStatus) => void) | undefined,
  ) {
    this.messages = messages;
  }
  get status(): ChatStatus {
    return this.current;
  }
  set status(status: ChatStatus) {
    this.current = status;
    this.onStatus?.(status);
  }
  error: Error | undefined = undefined;
  messages: UIMessage[];
  pushMessage = (message: UIMessage): void => {
    this.messages = [...this.messages, message];
  };
  popMessage = (): void => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's own chat logic (`AbstractChat`) on an in-memory state: what `useChat` runs. */
export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: { id: string; transport: ChatTransport<UIMessage>; messages?: UIMessage[] | undefined; onStatus?: ((status: ChatStatus) => void) | undefined }) {
    super({ id: init.id, transport: init.transport, state: new MemoryChatState(init.messages, init.onStatus) });
  }
}

/** A gate a scenario waits on and the test opens. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** A promise settled when `predicate` holds for a value `watch` is told of. */
export function when<T>(predicate: (value: T) => boolean): { tell: (value: T) => void; reached: Promise<void> } {
  let resolve!: () => void;
  const reached = new Promise<void>((r) => (resolve = r));
  return { tell: (value) => void (predicate(value) && resolve()), reached };
}
