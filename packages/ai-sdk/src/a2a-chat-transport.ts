import type { A2AClient, CancelOutcome, ConnectOptions, Part, TaskHandle, TaskRecord } from '@a2a-tether/core';
import { connect, InvalidParamsError, isActiveRecord, isInterruptedState, randomId, TaskNotFoundError, TetherError } from '@a2a-tether/core';
import type { ChatRequestOptions, ChatTransport, UIMessage, UIMessageChunk } from 'ai';
import { ChatKeeper, type ChatMessageStore } from './chat-messages.js';
import { ChunkMapper } from './chunk-mapper.js';
import { assistantMessageId, latestTurn, repliesOf, replyTags, shownOf, turnTags } from './chat-tags.js';
import { partsOf, textOf } from './parts.js';
import { chunkStream, turnStream, type TurnEnd } from './turn-stream.js';

/**
 * What the chat's `stop()` does to the task behind the answer (only `stop()`: a reload, an unmount, a
 * navigation and StrictMode's second resume never cancel — they only stop following):
 * - `'cancel'` (default): asks the agent to cancel it (`handle.cancel()`: a request; the agent may
 *   finish anyway — `onStop` is told what was seen), and a reload does not follow it again;
 * - `'detach'`: only stops the stream. The task runs on at the agent, and a reload
 *   (`reconnectToStream`) shows it again from its beginning.
 */
export type StopMode = 'cancel' | 'detach';

/** What `stop()` did to a task (see {@link A2AChatTransportBaseOptions.onStop}). */
export type StopReport =
  | { taskId: string; mode: 'detach' }
  | { taskId: string; mode: 'cancel'; outcome: CancelOutcome }
  | { taskId: string; mode: 'cancel'; error: TetherError };

/** Options of {@link A2AChatTransport} besides where the agent is. */
export interface A2AChatTransportBaseOptions<UI_MESSAGE extends UIMessage = UIMessage> {
  /**
   * Where the chat's messages are kept, so that a reload shows the whole chat: the user's messages, the
   * answers, a pause's question (`loadMessages(chatId)` gives them back). Without it, only the running
   * answer comes back after a reload (`reconnectToStream`); the rest is the app's to keep.
   */
  messages?: ChatMessageStore<UI_MESSAGE> | undefined;
  /** What `stop()` does to the task: `'cancel'` (default) or `'detach'` (see {@link StopMode}). */
  stop?: StopMode | undefined;
  /**
   * Told what `stop()` did, once known: for `'cancel'`, whether the agent confirmed (`outcome.confirmed`)
   * or only received the request, or the cancel's error. What it throws is ignored.
   */
  onStop?: ((report: StopReport) => void) | undefined;
}

/** Options of {@link A2AChatTransport}: a connected client, or the agent's URL and `connect()`'s options. */
export type A2AChatTransportOptions<UI_MESSAGE extends UIMessage = UIMessage> = A2AChatTransportBaseOptions<UI_MESSAGE> &
  ({ client: A2AClient; url?: undefined } | ({ url: string | URL; client?: undefined } & ConnectOptions));

/** A task this transport follows, between the turn that paused it and the answer. */
interface Following {
  handle: TaskHandle;
  mapper: ChunkMapper;
  /** Its last stream ended at a pause: the next user message answers it. */
  paused: boolean;
}

const PROMPT_FALLBACK = '(no text)';


/**
 * The AI SDK's `ChatTransport` over A2A with Tether: each user turn is one durable Tether task, tagged
 * in the task store with its chat, so that a reload or a second tab (`useChat({ resume: true })` →
 * `reconnectToStream`) follows the same task again — replayed from its beginning, no second message
 * to the agent. An agent's pause (`input-required`, `auth-required`) ends the message with a
 * `data-a2a-pause` part; the chat's next user message answers that task. See docs/ai-sdk.md.
 */
export class A2AChatTransport<UI_MESSAGE extends UIMessage = UIMessage> implements ChatTransport<UI_MESSAGE> {
  /** `reconnectToStream` replays the task from its beginning: the chat resets the streaming message first. */
  readonly resumeStreamIsReplay = true;
  private clientPromise: Promise<A2AClient> | undefined;
  private readonly connectTo: (() => Promise<A2AClient>) | undefined;
  private readonly following = new Map<string, Following>();
  /** How many times each chat asked to be followed again (`reconnectToStream`): tells a stop from a newer resume. */
  private readonly reconnects = new Map<string, number>();
  /** Per chat abort signal, once aborted: whether it was the chat's `stop()` (else a resume replaced by a newer one). */
  private readonly verdicts = new WeakMap<AbortSignal, Promise<boolean>>();
  private readonly stopMode: StopMode;
  private readonly onStop: ((report: StopReport) => void) | undefined;
  private readonly kept: ChatKeeper<UI_MESSAGE> | undefined;

  /**
   * @param options `{ client }` — a connected Tether client (its store decides what survives a reload:
   *   the browser package's IndexedDB store, Node's file store); or `{ url, ...connectOptions }` —
   *   connected on first use, once (a failed connect is tried again by the next call).
   * @throws TetherError `INVALID_ARGUMENT` without a client or URL, or with an unknown `stop` mode.
   */
  constructor(options: A2AChatTransportOptions<UI_MESSAGE>) {
    const { stop = 'cancel', onStop, messages } = options;
    if (stop !== 'cancel' && stop !== 'detach') {
      throw new TetherError('INVALID_ARGUMENT', `A2AChatTransport: stop must be 'cancel' or 'detach', not ${JSON.stringify(stop)}`, { maybeDelivered: false });
    }
    this.stopMode = stop;
    this.onStop = onStop;
    this.kept = messages ? new ChatKeeper(messages) : undefined;
    if (options.client !== undefined) {
      this.clientPromise = Promise.resolve(options.client);
    } else if (options.url !== undefined) {
      const { url, stop: _stop, onStop: _onStop, messages: _messages, client: _client, ...connectOptions } = options;
      this.connectTo = () => connect(url, connectOptions);
    } else {
      throw new TetherError('INVALID_ARGUMENT', 'A2AChatTransport: pass { client } or { url }', { maybeDelivered: false });
    }
  }

  /** The client, connected once; a failed connect is forgotten so that the next call tries again. */
  private client(): Promise<A2AClient> {
    if (this.clientPromise) return this.clientPromise;
    const connecting = (this.connectTo as () => Promise<A2AClient>)();
    this.clientPromise = connecting;
    connecting.catch(() => {
      if (this.clientPromise === connecting) this.clientPromise = undefined;
    });
    return connecting;
  }

  /**
   * Sends the chat's last user message: as the answer to the chat's paused task when its latest task
   * waits for input, else as a new task (A2A `contextId` = the chat id). Resolves once the task is
   * stored, with the answer's chunks. Rejects with a typed `TetherError` (or `A2AError`) when nothing
   * could be started; an error after that ends the stream with an `error` chunk.
   */
  async sendMessages(
    options: {
      trigger: 'submit-message' | 'regenerate-message';
      chatId: string;
      messageId: string | undefined;
      messages: UI_MESSAGE[];
      abortSignal: AbortSignal | undefined;
    } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk>> {
    const { chatId, messages, trigger } = options;
    const abortSignal = options.abortSignal;
    this.watchStop(chatId, abortSignal);
    const user = messages.at(-1);
    if (!user || user.role !== 'user') {
      throw new TetherError('INVALID_ARGUMENT', 'A2AChatTransport.sendMessages: the last message is not a user message (nothing to send)', { maybeDelivered: false });
    }
    const parts = partsOf(user);
    // The user's message is kept before it leaves: a reload mid-answer shows it.
    await this.kept?.keep(chatId, messages);
    const client = await this.client();
    const latest = latestTurn(await client.tasks(), chatId);
    let stream: ReadableStream<UIMessageChunk> | undefined;
    if (trigger === 'submit-message' && latest && isActiveRecord(latest) && isInterruptedState(latest.state) && latest.cancel === undefined) {
      stream = await this.answer(client, latest, user.id, parts, abortSignal);
    }
    stream ??= await this.startTurn(client, chatId, latest, user.id, parts, abortSignal);
    return this.kept ? this.kept.record(chatId, messages, stream) : stream;
  }

  /**
   * The chat's messages as last kept in the `messages` store — the user's messages, the answers, a
   * pause's question — for `useChat({ id, messages })` after a reload; the running answer, if any, then
   * continues through `resume: true`. `[]` without a store or for a chat never kept.
   */
  async loadMessages(chatId: string): Promise<UI_MESSAGE[]> {
    return this.kept ? this.kept.load(chatId) : [];
  }

  /**
   * The chat's latest task, followed again when it is still live: its answer replayed from its
   * beginning (the chat resets the message first), then live to its end — or to its pause, shown again.
   * `null` when the chat has no task, or its latest one finished, was lost, or was stopped.
   */
  async reconnectToStream(options: { chatId: string; abortSignal?: AbortSignal | undefined } & ChatRequestOptions): Promise<ReadableStream<UIMessageChunk> | null> {
    // Counted before anything else: the chat aborted the resume this one replaces just before calling.
    this.reconnects.set(options.chatId, (this.reconnects.get(options.chatId) ?? 0) + 1);
    const abortSignal = options.abortSignal;
    this.watchStop(options.chatId, abortSignal);
    const client = await this.client();
    const record = latestTurn(await client.tasks(), options.chatId);
    if (!record || !isActiveRecord(record) || record.cancel !== undefined) return null;
    this.forget(record.taskId);
    const handle = await client.resume(record.taskId);
    const replies = repliesOf(record);
    const mapper = new ChunkMapper(assistantMessageId(record.taskId, replies), record.taskId, () => handle.view.contextId, replies > 0 ? shownOf(record) : {});
    const stream = this.follow(handle, mapper, abortSignal);
    return this.kept ? this.kept.record(options.chatId, await this.kept.load(options.chatId), stream) : stream;
  }

  /** A new task for the user's message, tagged with its chat. */
  private async startTurn(client: A2AClient, chatId: string, latest: TaskRecord | undefined, userMessageId: string, parts: Part[], signal: AbortSignal | undefined): Promise<ReadableStream<UIMessageChunk>> {
    // A pause left unanswered (the user regenerated instead): its handle is no longer needed here.
    if (latest && this.following.get(latest.taskId)?.paused) this.forget(latest.taskId);
    // The chat is the A2A context; an agent that would not take the chat id named another context, kept since.
    const contextId = latest?.contextId || chatId;
    const messageId = randomId();
    const tags = turnTags(chatId, userMessageId, textOf(parts) || PROMPT_FALLBACK);
    let handle: TaskHandle;
    try {
      handle = await client.start({ parts, contextId, messageId }, { tags });
    } catch (error) {
      // An error answer to the send is proof that nothing was started: the same message once more, without
      // a context of our choosing. InvalidParams: an agent that names its contexts; TaskNotFound: a context
      // it (or the relay route in front of it, docs/relay.md) never saw created. Only for the chat id.
      if (!(error instanceof InvalidParamsError || error instanceof TaskNotFoundError) || contextId !== chatId) throw error;
      handle = await client.start({ parts, messageId }, { tags });
    }
    if (handle.kind === 'message' && handle.message) {
      const mapper = new ChunkMapper(`a2a-message-${handle.message.messageId}`, '', () => handle.message?.contextId ?? '');
      return chunkStream([...mapper.begin(), ...mapper.answer(handle.message)]);
    }
    const taskId = handle.taskId as string;
    return this.follow(handle, new ChunkMapper(assistantMessageId(taskId, 0), taskId, () => handle.view.contextId), signal);
  }

  /**
   * The user's message as the answer to the chat's paused task: on the handle whose stream paused, or
   * on the task followed again (its replay read silently up to the pause: what the earlier messages
   * showed). `undefined` when the task no longer waits (another tab answered it): the message then
   * starts a new task.
   */
  private async answer(client: A2AClient, record: TaskRecord, userMessageId: string, parts: Part[], signal: AbortSignal | undefined): Promise<ReadableStream<UIMessageChunk> | undefined> {
    const { taskId } = record;
    let held = this.following.get(taskId);
    if (!held?.paused) {
      this.forget(taskId);
      const handle = await client.resume(taskId);
      const mapper = new ChunkMapper('', taskId, () => handle.view.contextId);
      const seen = await readToPause(handle, mapper, signal);
      if (seen !== 'paused') {
        handle.detach();
        if (signal?.aborted) throw new TetherError('ABORTED', `stopped before the answer to task ${taskId} was sent`, { taskId, maybeDelivered: false });
        return undefined;
      }
      held = { handle, mapper, paused: true };
    }
    const { handle } = held;
    const replies = repliesOf(record) + 1;
    const shown = held.mapper.mark();
    this.following.delete(taskId);
    try {
      // Numbered before the answer leaves, so a reload mid-answer finds the message it continues.
      await client.store.update(client.taskKey(taskId), (current) => (current ? { ...current, tags: replyTags(current, userMessageId, replies, shown) } : current));
      await handle.reply({ parts });
    } catch (error) {
      handle.detach();
      throw error;
    }
    return this.follow(handle, held.mapper.continueAs(assistantMessageId(taskId, replies)), signal);
  }

  /** The task's chunks; the transport keeps a paused task's handle for the answer, and applies the stop mode. */
  private follow(handle: TaskHandle, mapper: ChunkMapper, signal: AbortSignal | undefined): ReadableStream<UIMessageChunk> {
    const taskId = handle.taskId as string;
    const held: Following = { handle, mapper, paused: false };
    this.following.set(taskId, held);
    const ended = (end: TurnEnd): void => {
      if (end === 'paused') {
        held.paused = true;
        return;
      }
      if (this.following.get(taskId) === held) this.following.delete(taskId);
      if (end === 'stopped') void this.wasStop(signal).then((stopped) => (stopped ? this.stopTask(handle, taskId) : handle.detach()));
      else if (end === 'detached') handle.detach();
    };
    return turnStream({ handle, mapper, signal, ended });
  }

  /**
   * The chat's abort signal, told whether its abort was the chat's `stop()`. The AI SDK aborts a request's
   * signal in two cases: `stop()`, and a resume (`reconnectToStream`) replaced by a newer one of the same
   * chat — `useChat({ resume: true })`'s effect run again (StrictMode mounts twice; a remount). It aborts the
   * older one right before it calls this transport again, in the same synchronous run: so the verdict is
   * taken a microtask after the abort — a stop when the chat did not ask to be followed again meanwhile.
   * Anything else that ends a stream (a reload, a navigation, an unmount) never aborts: it only detaches.
   */
  private watchStop(chatId: string, signal: AbortSignal | undefined): void {
    if (!signal || this.verdicts.has(signal)) return;
    const stopped = new Promise<boolean>((resolve) => {
      const aborted = (): void => {
        const asked = this.reconnects.get(chatId) ?? 0;
        queueMicrotask(() => resolve((this.reconnects.get(chatId) ?? 0) === asked));
      };
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
    this.verdicts.set(signal, stopped);
  }

  /** Whether the abort of `signal` was the chat's `stop()`; a signal this transport did not watch: yes. */
  private wasStop(signal: AbortSignal | undefined): Promise<boolean> {
    return (signal && this.verdicts.get(signal)) ?? Promise.resolve(true);
  }

  /** The chat's `stop()`: cancel (reported, a request is not a confirmation) or only stop watching. */
  private stopTask(handle: TaskHandle, taskId: string): void {
    const report = (value: StopReport): void => {
      try {
        this.onStop?.(value);
      } catch {
        // The app's callback: its failure is not the transport's.
      }
    };
    if (this.stopMode === 'detach') {
      handle.detach();
      report({ taskId, mode: 'detach' });
      return;
    }
    handle.cancel({ reason: 'stopped in the chat' }).then(
      (outcome) => {
        if (!outcome.confirmed) handle.detach();
        report({ taskId, mode: 'cancel', outcome });
      },
      (error: unknown) => {
        handle.detach();
        report({ taskId, mode: 'cancel', error: error instanceof TetherError ? error : new TetherError('NETWORK', String(error), { cause: error, taskId }) });
      },
    );
  }

  /** Stops following a task this transport followed (a newer stream takes it over). */
  private forget(taskId: string): void {
    const held = this.following.get(taskId);
    if (!held) return;
    this.following.delete(taskId);
    held.handle.detach();
  }
}

/**
 * Reads a followed task's events into `mapper`, silently, until its state says how it stands: a pause,
 * its end, or a failure. Bounded by the follow (it ends by the engine's budgets).
 */
async function readToPause(handle: TaskHandle, mapper: ChunkMapper, signal: AbortSignal | undefined): Promise<TurnEnd> {
  try {
    for await (const event of handle.events({ signal })) {
      const step = mapper.apply(event);
      if (step.end) return step.end;
    }
    return 'detached';
  } catch {
    return 'error';
  }
}
