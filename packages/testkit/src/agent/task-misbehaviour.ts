import { misbehaveInt, misbehaveRandom } from './misbehave-random.js';
import { SUBSCRIBE_REFUSALS } from './misbehaviour.js';
import type { Misbehaviour, MisbehaviourParams, MisbehaviourSelection, SubscribeRefusal } from './misbehaviour.js';
import type { TestAgentBehaviour } from './options.js';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

const NOTHING: MisbehaviourSelection = { names: new Set(), params: {} };

/**
 * The misbehaviours in force for one task, and every seeded decision they need. It merges what the task
 * selected in its scenario command with the agent-wide `behaviour.misbehave`, read live, so
 * `setBehaviour` takes effect on running tasks. Decisions are pure functions of the seed and an event
 * (or GetTask call) index; the only state is the count of GetTask calls, which `stale` keys on.
 */
export class TaskMisbehaviour {
  private getCalls = 0;

  constructor(
    private readonly behaviour: TestAgentBehaviour,
    private readonly own: MisbehaviourSelection = NOTHING,
  ) {}

  /** Whether `name` is in force (selected by the task, or agent-wide right now). */
  has(name: Misbehaviour): boolean {
    return this.own.names.has(name) || (this.behaviour.misbehave?.includes(name) ?? false);
  }

  private param<K extends keyof MisbehaviourParams>(key: K): MisbehaviourParams[K] {
    return this.own.params[key] ?? this.behaviour.misbehaveParams?.[key];
  }

  /** `mbSeed` (the task's own, else the agent-wide one, else 0). */
  get seed(): number {
    return this.param('seed') ?? 0;
  }

  /** A seeded number in [0, 1) for decision `label` about event (or call) `index`. */
  random(index: number, label: string): number {
    return misbehaveRandom(this.seed, index, label);
  }

  /** A seeded integer in [min, max]. */
  int(index: number, label: string, min: number, max: number): number {
    return misbehaveInt(this.seed, index, label, min, max);
  }

  /** How far (ms) the timestamp of the status emitted as event `seq` is moved off the agent's real clock. */
  skewMs(seq: number): number {
    let skew = 0;
    if (this.has('skewFuture')) skew += YEAR_MS;
    if (this.has('skewPast')) skew -= YEAR_MS;
    if (this.has('skewRandom')) skew += Math.round((this.random(seq, 'skew') * 2 - 1) * 2 * YEAR_MS);
    return skew;
  }

  /** Extra copies of the status update sent as event `seq` (`repeat`: 1 or 2). */
  statusRepeats(seq: number): number {
    return this.has('repeat') ? this.int(seq, 'repeat-status', 1, 2) : 0;
  }

  /** Extra copies of an artifact-less Task snapshot written at event `seq` (`repeat`: 0 or 1). */
  snapshotRepeats(seq: number): number {
    return this.has('repeat') && this.random(seq, 'repeat-snapshot') < 0.5 ? 1 : 0;
  }

  /** `foreign`: the first event after which another task's events go out (1–3). */
  get firstForeignAt(): number {
    return this.int(0, 'foreign-first', 1, 3);
  }

  /** `foreign`: whether another task's events follow event `seq` on this task's streams. */
  foreignAt(seq: number): boolean {
    return this.has('foreign') && (seq === this.firstForeignAt || this.random(seq, 'foreign') < 0.25);
  }

  /** `streamError`: the event replaced by the error frame. */
  get errorAt(): number {
    return this.param('errorAt') ?? this.int(0, 'error-at', 2, 4);
  }

  /** `streamError`: the error code. */
  get errorCode(): number {
    return this.param('code') ?? -32603;
  }

  /**
   * `refuseSubscribe`: how subscriptions are refused. The seeded default is drawn from the first five
   * (those of earlier versions), so a seed refuses the way it always did; -32602 and -32603 are chosen
   * with `mbRefuse`.
   */
  get refusal(): SubscribeRefusal {
    return this.param('refuse') ?? (SUBSCRIBE_REFUSALS[this.int(0, 'refuse', 0, 4)] as SubscribeRefusal);
  }

  /** `resetStream`: whether the task's streams are reset instead of carrying event `seq`. */
  resetsAt(seq: number): boolean {
    return this.has('resetStream') && seq === (this.param('resetAt') ?? this.int(0, 'reset-at', 2, 4));
  }

  /** `lose`: events emitted before the task is forgotten. */
  get loseAfter(): number {
    return this.param('loseAfter') ?? this.int(0, 'lose-after', 2, 5);
  }

  /** `lose`: forgotten once it emitted this many events. */
  lostWith(eventCount: number): boolean {
    return this.has('lose') && eventCount >= this.loseAfter;
  }

  /** `generations` (a behaviour, read live): tasks and events carry their generation. */
  get generations(): boolean {
    return this.behaviour.generations === true;
  }

  /** `dropEvent`: whether event `seq` is left out of the task's streams. */
  drops(seq: number): boolean {
    return this.has('dropEvent') && seq === (this.param('dropAt') ?? this.int(0, 'drop-at', 2, 4));
  }

  /** `replayOld`: the event sent again right after event `seq`, if one is. */
  replayAfter(seq: number): number | undefined {
    return this.has('replayOld') && seq === (this.param('replayAt') ?? 4) ? (this.param('replayOf') ?? 2) : undefined;
  }

  /** The generation an event (or a snapshot) as of event `seq` says: `seq`, or 0 under `zeroGeneration`. */
  generationOf(seq: number): number {
    return this.has('zeroGeneration') && seq >= (this.param('zeroAt') ?? 3) ? 0 : seq;
  }

  /**
   * `stale`: how many events back the next GetTask answer lies (0: exact). Counts the call, so ask once
   * per answer, and only for a task that is not terminal.
   */
  nextStaleBack(): number {
    if (!this.has('stale')) return 0;
    const call = ++this.getCalls;
    if (this.random(call, 'stale') >= 0.5) return 0;
    return this.param('staleBack') ?? this.int(call, 'stale-back', 1, 3);
  }
}
