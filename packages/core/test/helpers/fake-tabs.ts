import type { TestAgent } from '@a2a-tether/testkit';
import type { CoordinationMessage, TaskClaim, TaskCoordinator, TaskEvent, TaskHandle } from '../../src/index.js';

// An in-memory TaskCoordinator with the semantics of the browser's (a BroadcastChannel and Web Locks):
// messages are structured-cloned, asynchronous and in order per receiver; a released lock goes to the
// next waiting client (FIFO) after a short delay, independent of the messages in flight.

export class FakeClaim implements TaskClaim {
  leading: boolean;
  readonly granted: Promise<void>;
  grant!: () => void;
  listener: ((message: CoordinationMessage) => void) | undefined;
  released = false;
  constructor(
    private readonly tabs: FakeTabs,
    readonly taskId: string,
    /** Which client holds the claim (what `coordinator(client)` was given). */
    readonly client: number,
    leading: boolean,
  ) {
    this.leading = leading;
    this.granted = new Promise<void>((resolve) => (this.grant = resolve));
    if (leading) this.grant();
  }
  send(message: CoordinationMessage): void {
    this.tabs.post(this, structuredClone(message));
  }
  onMessage(listener: (message: CoordinationMessage) => void): void {
    this.listener = listener;
  }
  release(): void {
    if (this.released) return;
    this.released = true;
    this.tabs.release(this);
  }
}

export class FakeTabs {
  /** How long each message takes to reach one receiver (ms). */
  latency: () => number = () => 0;
  /** How long a released lock takes to reach the next waiting client (ms). */
  grantDelay: () => number = () => 5;
  /** Whether a released lock goes to the next waiting client (off: the test decides who drives). */
  handOver = true;
  /** How many times a lock went to another client. */
  handovers = 0;
  private readonly claims: FakeClaim[] = [];
  private readonly holders = new Map<string, FakeClaim>();
  /** Per receiver, when its last message is delivered: a later message never overtakes an earlier one. */
  private readonly due = new Map<FakeClaim, number>();

  coordinator(client: number): TaskCoordinator {
    return {
      claim: (taskId) => {
        const leading = !this.holders.has(taskId);
        const claim = new FakeClaim(this, taskId, client, leading);
        if (leading) this.holders.set(taskId, claim);
        this.claims.push(claim);
        return Promise.resolve(claim);
      },
    };
  }

  /** The claim that holds the task's lock now. */
  holder(taskId: string): FakeClaim | undefined {
    return this.holders.get(taskId);
  }

  post(from: FakeClaim, message: CoordinationMessage): void {
    for (const to of this.claims) {
      if (to === from || to.released || to.taskId !== from.taskId) continue;
      const at = Math.max(Date.now() + this.latency(), this.due.get(to) ?? 0);
      this.due.set(to, at);
      setTimeout(() => {
        if (!to.released) to.listener?.(message);
      }, at - Date.now());
    }
  }

  release(claim: FakeClaim): void {
    if (this.holders.get(claim.taskId) !== claim) return;
    this.holders.delete(claim.taskId);
    const next = this.claims.find((c) => !c.released && c.taskId === claim.taskId);
    if (!next || !this.handOver) return;
    this.holders.set(claim.taskId, next);
    this.handovers++;
    setTimeout(() => {
      next.leading = true;
      next.grant();
    }, this.grantDelay());
  }
}

/** A handle's events, read in the background until the follow ends. */
export function collect(handle: TaskHandle): { events: TaskEvent[]; ended: Promise<void> } {
  const events: TaskEvent[] = [];
  const ended = (async () => {
    for await (const e of handle.events()) events.push(e);
  })().catch(() => undefined); // a failed follow throws after its last event: done() reports it
  return { events, ended };
}

/** Requests that opened a stream (a streaming send or a subscription) on the JSON-RPC binding, either version. */
export function streamsOpened(agent: TestAgent): number {
  return agent.requests.filter((r) => {
    const method = (r.body as { method?: string } | undefined)?.method;
    return method === 'SendStreamingMessage' || method === 'SubscribeToTask' || method === 'message/stream' || method === 'tasks/resubscribe';
  }).length;
}
