import { TetherError } from '../errors/tether-error.js';
import { isTerminalState } from '../model/task-state.js';
import type { Message, Task } from '../model/types.js';
import { DEFAULTS } from '../defaults.js';
import { isActiveRecord } from '../store/task-store.js';
import type { TimerHandle } from '../util/scheduler.js';
import { alignAppends, carried, carriedEvent, restored, restoredEvent, type CoordinationMessage, type TaskClaim } from './coordinator.js';
import type { FollowContext } from './follow-context.js';
import type { FollowCore } from './follow-core.js';
import type { Reconciler } from './reconciler.js';
import type { ConnectionState, TaskEvent } from './task-event.js';
import { taskKey } from '../store/task-key.js';

/** What a {@link TabLink} needs of the follow it belongs to (the follower; never imported here). */
export interface LinkedFollow {
  readonly taskId: string | undefined;
  /** The follow's reconciled view of the task (once the agent named it). */
  readonly view: Reconciler | undefined;
  /** The follow ended. */
  readonly finished: boolean;
  /** The link state the app was last told. */
  readonly connection: ConnectionState;
  /** The driver's link state is this follow's now (`show`: the app is told). */
  mirrorConnection(state: ConnectionState, show: boolean): void;
  /** Hands events to the app (a mirror does not pass them on). */
  show(events: TaskEvent[]): void;
  /** The driver's final task: the follow's result. */
  finalTask(task: Task): void;
  /** Ends the follow as the driver's ended (`done`, or `failed` with its error): nothing was opened. */
  end(how: { name: 'done' } | { name: 'failed'; error: TetherError }): void;
  /** Sends a mirror's reply to the agent (this follow drives). */
  reply(message: Message): Promise<void>;
  /** The driver went away: follow the task from the view (only what is new is emitted); `look` asks GetTask first. */
  takeOver(look: boolean): void;
  /** Resolves when the follow ended, or after `ms`. */
  settledWithin(ms: number): Promise<void>;
  /** Resolves when the follow's record writes so far landed. */
  flush(): Promise<void>;
}

/** What the loop does for a link; the rest {@link linkedFollow} reads from the follow's core. */
export interface LinkHooks {
  show(events: TaskEvent[]): void;
  reply(message: Message): Promise<void>;
  /** Ends the follow (the reducer already heard how). */
  finish(): void;
  /** Follows the task from here on (the reducer already heard of the takeover). */
  resume(): void;
  flush(): Promise<void>;
}

/** A follow as its tab link sees it: read from `core`, changed through its reducer and `hooks`. */
export function linkedFollow(core: FollowCore, hooks: LinkHooks): LinkedFollow {
  return {
    get taskId() {
      return core.taskId;
    },
    get view() {
      return core.view;
    },
    get finished() {
      return core.finished;
    },
    get connection() {
      return core.state.connection;
    },
    mirrorConnection: (connection, show) => core.dispatch({ type: 'mirrored', connection, show }),
    show: hooks.show,
    finalTask: (task) => core.dispatch({ type: 'mirrored-final', task }),
    end: (phase) => {
      core.dispatch({ type: 'mirror-ended', phase });
      hooks.finish();
    },
    reply: hooks.reply,
    takeOver: (look) => {
      core.dispatch({ type: 'took-over', look });
      hooks.resume();
    },
    settledWithin: (ms) => core.settledWithin(ms),
    flush: hooks.flush,
  };
}

interface Relay {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * A follow's link to the other tabs of its task (a coordinator's claim). Driving, it publishes
 * everything the app is told, answers a mirror's `sync` with a snapshot and sends a mirror's reply.
 * Mirroring, it applies what the driver saw to the follow's own view and hands it to the app,
 * unchanged, opening nothing — until the claim is granted (the driver went away): then the follow
 * takes over from that view.
 */
export class TabLink {
  private claim: TaskClaim | undefined;
  private synced = false;
  /** When this link began to mirror (a driver's error recorded since then ended the driver's follow). */
  private readonly mirroredSince: number;
  private syncTimer: TimerHandle | undefined;
  /** Replies this mirror asked the driver to send, by request id. */
  private readonly relayed = new Map<string, Relay>();

  constructor(
    claim: TaskClaim,
    /** This link mirrors another tab's driver (until the claim is granted). */
    public mirroring: boolean,
    private readonly context: FollowContext,
    private readonly follow: LinkedFollow,
  ) {
    this.claim = claim;
    this.mirroredSince = context.scheduler.now();
    claim.onMessage((message) => this.onMessage(message));
    if (!mirroring) return;
    this.resync();
    void claim.granted.then(() => this.takeOver());
  }

  /** A mirror's reply is on its way through the driver. */
  get relaying(): boolean {
    return this.relayed.size > 0;
  }

  /** Driving: passes what the app was told on to the mirrors (with where each artifact now ends). */
  publish(events: TaskEvent[]): void {
    const r = this.follow.view;
    if (!this.claim || this.mirroring || !r) return;
    let ends: Record<string, number> | undefined;
    for (const e of events) if (e.type === 'artifact') (ends ??= {})[e.artifactId] = r.partCount(e.artifactId);
    this.claim.send({ type: 'events', events: events.map(carriedEvent), ...(ends ? { ends } : {}) });
  }

  /** Driving: tells the mirrors how the follow ended. */
  ended(how: { task: Task } | { error: TetherError }): void {
    if (!this.claim || this.mirroring) return;
    this.claim.send('task' in how ? { type: 'finished', task: how.task } : { type: 'failed', error: carried(how.error) });
  }

  /** Mirroring: asks the driver to send `message` to the agent; resolves with the driver's answer. */
  async relay(message: Message): Promise<void> {
    const claim = this.claim as TaskClaim;
    const id = this.context.newId();
    let relay!: Relay;
    const answered = new Promise<void>((resolve, reject) => (relay = { resolve, reject }));
    this.relayed.set(id, relay);
    claim.send({ type: 'reply', id, message });
    const ms = DEFAULTS.tabs.relayTimeoutMs;
    const timer = this.context.scheduler.setTimeout(() => {
      if (!this.relayed.delete(id)) return;
      relay.reject(
        new TetherError('DELIVERY_UNKNOWN', `task ${this.follow.taskId ?? ''}: the tab driving the task did not answer the reply within ${ms} ms`, {
          taskId: this.follow.taskId,
          messageId: message.messageId,
          maybeDelivered: true,
        }),
      );
    }, ms);
    try {
      await answered;
    } finally {
      this.context.scheduler.clearTimeout(timer);
    }
  }

  /** Gives the claim up: a driver once its last record write landed (whoever takes over reads how it ended). */
  close(): void {
    const claim = this.claim;
    if (!claim) return;
    const driving = !this.mirroring;
    this.stopMirroring();
    this.claim = undefined;
    if (driving) void this.follow.flush().then(() => claim.release(), () => claim.release());
    else claim.release();
  }

  /** Asks the driver for a snapshot, and ignores its events until one comes. */
  private resync(): void {
    const claim = this.claim;
    this.synced = false;
    if (this.syncTimer !== undefined || !claim) return;
    const ask = (): void => {
      this.syncTimer = undefined;
      if (!this.mirroring || this.synced || this.claim !== claim) return;
      claim.send({ type: 'sync' });
      // The driver may be starting up and not hear it: ask until a snapshot comes (a local message, once a second).
      this.syncTimer = this.context.scheduler.setTimeout(ask, DEFAULTS.tabs.mirrorSyncMs);
    };
    ask();
  }

  private async takeOver(): Promise<void> {
    const f = this.follow;
    if (!this.mirroring || f.finished) return;
    // The driver lets go after its last record write: a record that says the follow ended (the task's end,
    // or an error since this client began to mirror) means the driver ended it, and its "finished" or
    // "failed" is on its way (a lock can change hands before a message arrives).
    const record = await this.context.store.get(taskKey(this.context.client.agent.url, f.taskId ?? '')).catch(() => undefined);
    const failed = record?.lastError !== undefined && record.lastError.at >= this.mirroredSince ? record.lastError : undefined;
    let look = false;
    if (record && (!isActiveRecord(record) || failed) && this.mirroring && !f.finished) {
      await f.settledWithin(DEFAULTS.tabs.lateEndMs);
      if (f.finished) return;
      // It did not come: end the way the record says — with the driver's error, or by asking the agent
      // once (GetTask) how the task ended. Either way, open nothing.
      if (failed && isActiveRecord(record)) return this.endMirror({ name: 'failed', error: restored(failed, record.taskId) });
      look = true;
    }
    if (!this.mirroring || f.finished) return;
    this.stopMirroring();
    for (const [id, relay] of this.relayed) {
      this.relayed.delete(id);
      relay.reject(
        new TetherError('DELIVERY_UNKNOWN', `task ${f.taskId ?? ''}: the tab that was sending the reply went away before it answered; look at the task before replying again`, {
          taskId: f.taskId,
          maybeDelivered: true,
        }),
      );
    }
    // Whatever the driver saw is in the view; anything after it is a gap the new subscription fills.
    f.takeOver(look);
  }

  private stopMirroring(): void {
    this.mirroring = false;
    if (this.syncTimer !== undefined) this.context.scheduler.clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
  }

  private onMessage(message: CoordinationMessage): void {
    const f = this.follow;
    const r = f.view;
    if (!r || f.finished) return;
    if (!this.mirroring) {
      // The driver: answer the mirrors.
      if (message.type === 'sync') this.claim?.send({ type: 'snapshot', task: r.toTask(), connection: f.connection });
      else if (message.type === 'reply') {
        const answer = (error?: unknown): void => this.claim?.send({ type: 'replied', id: message.id, ...(error === undefined ? {} : { error: carried(error) }) });
        f.reply(message.message).then(() => answer(), answer);
      }
      return;
    }
    switch (message.type) {
      case 'snapshot':
        this.synced = true;
        f.show(r.applySnapshot(message.task, { recovered: false }));
        this.mirrorConnection(message.connection);
        return;
      case 'events': {
        if (!this.synced) return; // the snapshot asked for covers them
        const aligned = alignAppends(message.events, message.ends, (id) => r.partCount(id));
        if (aligned === undefined) {
          // Parts are missing here (this view saw less of an earlier driver): a snapshot brings them.
          this.resync();
          return;
        }
        const out: TaskEvent[] = [];
        for (const event of aligned) {
          const e = this.extendInstead(r, event);
          if (e && this.mirrorEvent(r, e)) out.push(restoredEvent(e, r.taskId));
        }
        f.show(out);
        return;
      }
      case 'finished':
        // What this view had not shown yet (all of it, for a mirror that was not synced), then the end.
        f.show(r.applySnapshot(message.task, { recovered: false }));
        f.finalTask(message.task);
        this.endMirror({ name: 'done' });
        return;
      case 'failed':
        this.endMirror({ name: 'failed', error: restored(message.error, r.taskId) });
        return;
      case 'replied': {
        const relay = this.relayed.get(message.id);
        this.relayed.delete(message.id);
        if (message.error) relay?.reject(restored(message.error, r.taskId));
        else relay?.resolve();
        return;
      }
      default:
        return;
    }
  }

  /**
   * A driver's replace of an artifact this view holds the start of (a driver that took over before it had
   * mirrored it all sends the whole artifact): only what is new here, as an append — nothing if nothing is.
   */
  private extendInstead(r: Reconciler, event: TaskEvent): TaskEvent | undefined {
    if (event.type !== 'artifact' || event.append) return event;
    const held = r.heldPrefix(event.artifactId, event.parts);
    if (held === undefined || held === 0) return event;
    if (held === event.parts.length) return undefined;
    return { ...event, parts: event.parts.slice(held), append: true };
  }

  /**
   * Keeps the view in step with an event the driver emitted; whether the app should get it — not
   * when this view already holds it (a mirror's own cancel may have seen the end first).
   */
  private mirrorEvent(r: Reconciler, event: TaskEvent): boolean {
    const ids = { taskId: r.taskId, contextId: r.contextId };
    // This view saw the end itself (its own cancel's look): what the driver saw before it is old news.
    if (isTerminalState(r.state)) {
      if (event.type === 'connection' && event.state === 'closed') this.mirrorConnection('closed');
      return false;
    }
    switch (event.type) {
      case 'status': {
        const status = { state: event.state, ...(event.message ? { message: event.message } : {}), ...(event.timestamp ? { timestamp: event.timestamp } : {}) };
        return r.applyEvent({ kind: 'status-update', ...ids, status }).length > 0;
      }
      case 'artifact': {
        const { artifactId, name, description, metadata, parts, append, lastChunk } = event;
        const artifact = { artifactId, parts, ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }), ...(metadata === undefined ? {} : { metadata }) };
        return r.applyEvent({ kind: 'artifact-update', ...ids, artifact, append, lastChunk }).length > 0;
      }
      case 'message':
        return r.applyEvent(event.message).length > 0;
      case 'connection':
        if (event.state === this.follow.connection) return false;
        this.follow.mirrorConnection(event.state, false);
        return true;
      default:
        return true;
    }
  }

  private mirrorConnection(state: ConnectionState): void {
    this.follow.mirrorConnection(state, true);
  }

  /** The driver's follow ended: so does this one, the same way (nothing was opened, nothing to close). */
  private endMirror(how: { name: 'done' } | { name: 'failed'; error: TetherError }): void {
    this.close();
    this.follow.end(how);
  }
}
