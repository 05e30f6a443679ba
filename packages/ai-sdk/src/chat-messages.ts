import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';

/**
 * Where a chat's messages are kept between page loads, as the AI SDK's `UIMessage`s: the browser
 * package's `createIndexedDbChatStore()` (`@a2a-tether/browser/chats`), or any `{ get, set }` of yours.
 * The task records say which task a chat follows; this keeps what the chat showed.
 */
export interface ChatMessageStore<UI_MESSAGE extends UIMessage = UIMessage> {
  /**
   * The chat's messages, oldest first, as `set` kept them; `undefined` for a chat never kept. (Typed
   * loosely so that a store of any value fits, e.g. `createIndexedDbChatStore()` without a type argument.)
   */
  get(chatId: string): Promise<readonly unknown[] | undefined>;
  /** Keeps the chat's messages, replacing what was kept. */
  set(chatId: string, messages: UI_MESSAGE[]): Promise<void>;
}

/**
 * A chat's messages, kept one write after another (a later write never lands before an earlier one).
 * A failed write is not the chat's failure: the chat goes on, and that state is not kept.
 */
export class ChatKeeper<UI_MESSAGE extends UIMessage> {
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly store: ChatMessageStore<UI_MESSAGE>) {}

  /** The chat's messages as last kept (`[]` for a chat never kept). */
  async load(chatId: string): Promise<UI_MESSAGE[]> {
    await this.writes;
    // What set() kept: this transport's own messages.
    return [...((await this.store.get(chatId)) ?? [])] as UI_MESSAGE[];
  }

  /** Keeps `messages` as the chat's messages. */
  keep(chatId: string, messages: UI_MESSAGE[]): Promise<void> {
    this.writes = this.writes.then(() => this.store.set(chatId, messages)).catch(() => undefined);
    return this.writes;
  }

  /**
   * The answer's chunks, passed on as they are read; once the stream ends by itself (a finish, a pause,
   * an error), the message the AI SDK builds from them is kept after `before` (in place of an earlier
   * message of the same id: a replay). A stream the chat cancels after reading some of it (`stop()`)
   * keeps what it showed; one cancelled unread (a resume replaced by a newer one) keeps nothing.
   */
  record(chatId: string, before: UI_MESSAGE[], stream: ReadableStream<UIMessageChunk>): ReadableStream<UIMessageChunk> {
    let copy!: ReadableStreamDefaultController<UIMessageChunk>;
    const copied = new ReadableStream<UIMessageChunk>({ start: (controller) => void (copy = controller) });
    const built = lastOf(readUIMessageStream<UI_MESSAGE>({ stream: copied, onError: () => undefined }));
    const reader = stream.getReader();
    const keepBuilt = async (): Promise<void> => {
      copy.close();
      const message = await built;
      if (message && message.parts.length > 0) await this.keep(chatId, [...before.filter((m) => m.id !== message.id), message]);
    };
    return new ReadableStream<UIMessageChunk>({
      pull: async (controller) => {
        const next = await reader.read();
        if (!next.done) {
          copy.enqueue(next.value);
          controller.enqueue(next.value);
          return;
        }
        // Kept before the chat hears of the end: what it then shows is what a reload shows.
        await keepBuilt();
        controller.close();
      },
      cancel: async (reason) => {
        await reader.cancel(reason);
        await keepBuilt();
      },
    });
  }
}

/** The last value of an async iterable (`undefined` when it failed or had none). */
async function lastOf<T>(values: AsyncIterable<T>): Promise<T | undefined> {
  let last: T | undefined;
  try {
    for await (const value of values) last = value;
  } catch {
    // Chunks the AI SDK would refuse too: nothing to keep.
    return undefined;
  }
  return last;
}
