import type { CoordinationMessage, TaskClaim, TaskCoordinator } from '@a2a-tether/core';

/** What crosses the BroadcastChannel: one message about one task, from one tab's client. */
interface Envelope {
  taskId: string;
  from: string;
  message: CoordinationMessage;
}

interface LockManagerLike {
  request(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

function lockManager(): LockManagerLike | undefined {
  const locks = (globalThis.navigator as { locks?: LockManagerLike } | undefined)?.locks;
  return typeof locks?.request === 'function' ? locks : undefined;
}

/** Whether this browser can coordinate tabs (Web Locks and BroadcastChannel). */
export function canCoordinateTabs(): boolean {
  return lockManager() !== undefined && typeof BroadcastChannel === 'function';
}

class TabClaim implements TaskClaim {
  leading = false;
  readonly granted: Promise<void>;
  private grant!: () => void;
  private unlock!: () => void;
  /** Ends the lock's hold (the lock is released when the callback's promise settles). */
  readonly held = new Promise<void>((resolve) => (this.unlock = resolve));
  private readonly waiting = new AbortController();
  private listener: ((message: CoordinationMessage) => void) | undefined;
  released = false;

  constructor(
    readonly taskId: string,
    private readonly post: (envelope: Envelope) => void,
    private readonly from: string,
    private readonly forget: (claim: TabClaim) => void,
  ) {
    this.granted = new Promise<void>((resolve) => (this.grant = resolve));
  }

  /** The Web Lock is this tab's: it drives the task from now on. */
  lead(): void {
    this.leading = true;
    this.grant();
  }

  /** Waits for the lock (the driving tab closes, reloads or stops following). */
  wait(locks: LockManagerLike, name: string): void {
    locks
      .request(name, { signal: this.waiting.signal }, () => {
        if (this.released) return Promise.resolve();
        this.lead();
        return this.held;
      })
      // Released before the lock came (the task ended while mirroring): the request was aborted.
      .catch(() => undefined);
  }

  send(message: CoordinationMessage): void {
    if (!this.released) this.post({ taskId: this.taskId, from: this.from, message });
  }

  onMessage(listener: (message: CoordinationMessage) => void): void {
    this.listener = listener;
  }

  receive(message: CoordinationMessage): void {
    this.listener?.(message);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.waiting.abort();
    this.unlock();
    this.forget(this);
  }
}

/**
 * Coordinates the tabs of one origin that follow the same agent's tasks (`connect(url, { tabs: true })`):
 * per task, a Web Lock (`navigator.locks`, named after `scope` and the task id) elects the tab that
 * streams it; that tab posts what its handle sees on a BroadcastChannel, and the other tabs' handles
 * mirror it — the same events, in the same order, and no connection of their own. When the driving
 * tab closes, reloads or stops following, the browser gives the lock to a waiting tab, which follows
 * the task from what it mirrored (the subscription's snapshot only adds what it had not seen).
 *
 * Returns `undefined` where Web Locks or BroadcastChannel are missing: then every tab streams.
 */
export function createTabCoordinator(scope: string): TaskCoordinator | undefined {
  const locks = lockManager();
  if (!locks || typeof BroadcastChannel !== 'function') return undefined;
  const from = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const claims = new Map<string, Set<TabClaim>>();
  let channel: BroadcastChannel | undefined;

  const open = (): BroadcastChannel => {
    if (channel) return channel;
    const opened = new BroadcastChannel(`tether:${scope}`);
    opened.onmessage = (event: MessageEvent<Envelope>) => {
      const envelope = event.data;
      if (typeof envelope?.taskId !== 'string' || envelope.from === from) return;
      for (const claim of claims.get(envelope.taskId) ?? []) claim.receive(envelope.message);
    };
    return (channel = opened);
  };
  const forget = (claim: TabClaim): void => {
    const set = claims.get(claim.taskId);
    set?.delete(claim);
    if (set?.size === 0) claims.delete(claim.taskId);
    if (claims.size === 0) {
      // Nothing followed: close the channel (a tab with an open channel may not enter the back/forward cache).
      channel?.close();
      channel = undefined;
    }
  };

  return {
    async claim(taskId: string): Promise<TaskClaim> {
      const name = `tether:${scope}:${taskId}`;
      const post = (envelope: Envelope): void => open().postMessage(envelope);
      const claim = new TabClaim(taskId, post, from, forget);
      const set = claims.get(taskId) ?? new Set<TabClaim>();
      set.add(claim);
      claims.set(taskId, set);
      open();
      // Free now? Then hold it until the claim is released. Held by another tab? Mirror it, and wait.
      const leading = await new Promise<boolean>((resolve) => {
        locks
          .request(name, { ifAvailable: true }, (lock) => {
            if (lock === null || claim.released) {
              resolve(false);
              return Promise.resolve();
            }
            claim.lead();
            resolve(true);
            return claim.held;
          })
          .catch(() => resolve(false));
      });
      if (!leading && !claim.released) claim.wait(locks, name);
      return claim;
    },
  };
}
