import type { A2AClient } from '../client/a2a-client.js';
import { TetherError, isTetherError } from '../errors/tether-error.js';
import { hashInput } from './canonical.js';
import type { Journal } from './journal.js';
import { addEntry, findEntry, findSentTask, settle } from './ledger.js';
import type { LedgerEntry } from './workflow-record.js';
import { errorInfo, invalid } from './workflow-errors.js';
import type { ActionSpec, LookupAnswer, WorkflowEvent } from './workflow-types.js';

/**
 * Actions through the ledger and the admission gate: your own side effects (`act()`), and the
 * reconciliation of older revisions' unknown outcomes after an update.
 */
export class ActionDesk {
  /** Ledger entries whose action is running now (a send awaiting its answer, an act() performing). */
  readonly inflight = new Set<string>();
  /** The lookups act() was given, by ledger entry id (for reconciling after an update). */
  private readonly lookups = new Map<string, (key: string) => Promise<LookupAnswer>>();
  /** act() calls not returned yet: the workflow ends only once each has written its outcome. */
  private readonly acting = new Set<Promise<unknown>>();

  constructor(
    private readonly journal: Journal,
    private readonly emit: (event: WorkflowEvent) => void,
    private readonly clientOf: (agent: string) => A2AClient,
  ) {}

  /** See `Workflow.act()`. */
  act<T>(spec: ActionSpec<T>): Promise<T> {
    const acting = this.run(spec);
    this.acting.add(acting);
    void acting.finally(() => this.acting.delete(acting)).catch(() => undefined);
    return acting;
  }

  /** Resolves once every act() in flight has returned (also those begun meanwhile). */
  async settled(): Promise<void> {
    while (this.acting.size > 0) await Promise.allSettled([...this.acting]);
  }

  private async run<T>(spec: ActionSpec<T>): Promise<T> {
    const { record } = this.journal;
    const inputHash = await hashInput({ target: spec.target, operation: spec.operation, input: spec.input });
    let entry = findEntry(record, spec.target, spec.operation, spec.key);
    if (spec.revision < record.revision) {
      const refused = addEntry(record, this.journal.iso(), { ...fields(spec, inputHash), outcome: 'refused', note: `revision ${spec.revision} superseded by ${record.revision}` });
      await this.journal.save();
      this.emit({ type: 'action', entry: structuredClone(refused) });
      throw new TetherError('SUPERSEDED', `${spec.operation} on ${spec.target} was decided under revision ${spec.revision}; revision ${record.revision} is in force`, {
        maybeDelivered: false,
      });
    }
    if (entry && entry.inputHash !== inputHash) {
      throw invalid(`key ${spec.key} already names another ${spec.operation} on ${spec.target} (different input): use a new key for a new action`);
    }
    if (entry?.outcome === 'confirmed-success') return entry.result as T;
    if (entry && (entry.outcome === 'unknown' || entry.outcome === 'unresolved' || entry.outcome === 'intended')) {
      const looked = await this.lookUp(entry, spec);
      if (looked.found) return looked.result;
    }
    if (entry) settle(entry, this.journal.iso(), 'intended', 'attempt');
    else entry = addEntry(record, this.journal.iso(), fields(spec, inputHash));
    await this.journal.save();
    if (spec.revision < record.revision) {
      settle(entry, this.journal.iso(), 'refused', `revision ${spec.revision} superseded by ${record.revision} before it ran`);
      await this.journal.save();
      throw new TetherError('SUPERSEDED', `${spec.operation} on ${spec.target}: revision ${spec.revision} was superseded before it ran`, { maybeDelivered: false });
    }
    if (spec.lookup) this.lookups.set(entry.id, spec.lookup);
    this.inflight.add(entry.id);
    try {
      const result = await spec.perform(spec.key);
      this.inflight.delete(entry.id);
      settle(entry, this.journal.iso(), 'confirmed-success', undefined, result ?? null);
      await this.journal.save();
      this.emit({ type: 'action', entry: structuredClone(entry) });
      return result;
    } catch (error) {
      this.inflight.delete(entry.id);
      if (isTetherError(error) && !error.maybeDelivered) {
        settle(entry, this.journal.iso(), 'confirmed-failure', error.message);
        await this.journal.save();
        throw error;
      }
      settle(entry, this.journal.iso(), 'unknown', errorInfo(error).message);
      await this.journal.save();
      const looked = await this.lookUp(entry, spec, error);
      if (looked.found) return looked.result;
      throw error;
    }
  }

  /** Settles an entry whose outcome is unknown by asking the target; unresolved (and throws) when it cannot. */
  private async lookUp<T>(entry: LedgerEntry, spec: ActionSpec<T>, cause?: unknown): Promise<{ found: true; result: T } | { found: false }> {
    let answer: Awaited<ReturnType<NonNullable<ActionSpec<T>['lookup']>>> | undefined;
    let failure: unknown;
    if (spec.lookup) {
      try {
        answer = await spec.lookup(spec.key);
      } catch (error) {
        failure = error;
      }
    }
    if (answer?.found) {
      settle(entry, this.journal.iso(), 'confirmed-success', 'found by lookup', answer.result ?? null);
      await this.journal.save();
      this.emit({ type: 'action', entry: structuredClone(entry) });
      return { found: true, result: answer.result };
    }
    if (answer) {
      settle(entry, this.journal.iso(), 'confirmed-failure', 'lookup: the target has no such action');
      await this.journal.save();
      return { found: false };
    }
    const why = spec.lookup ? `the lookup failed (${errorInfo(failure).message})` : 'there is no lookup';
    settle(entry, this.journal.iso(), 'unresolved', `${why}: not attempted again`);
    await this.journal.save();
    this.emit({ type: 'action', entry: structuredClone(entry) });
    throw new TetherError('ACTION_UNRESOLVED', `${spec.operation} on ${spec.target} (key ${spec.key}) may have happened and ${why}: it is not attempted again`, {
      maybeDelivered: true,
      cause: cause ?? failure,
    });
  }

  /**
   * Actions of older revisions whose outcome is unknown (a crash, a lost answer): sends are looked up by
   * message id, your actions with the lookup their `act()` gave. Actions still on their way are left to
   * finish — an admitted action stays in the ledger until its result is known.
   */
  async reconcileOlder(): Promise<void> {
    const { record } = this.journal;
    const at = (): string => this.journal.iso();
    for (const entry of record.ledger) {
      if (entry.revision >= record.revision || this.inflight.has(entry.id)) continue;
      if (entry.outcome !== 'unknown' && entry.outcome !== 'intended') continue;
      if (entry.operation === 'SendMessage') {
        const found = await findSentTask(this.clientOf(entry.target), record.contextId, entry.key);
        if (found === 'unknowable') settle(entry, at(), 'unresolved', 'no way to look for the task: not sent again');
        else if (found) settle(entry, at(), 'confirmed-success', `found task ${found.id}`, { taskId: found.id });
        // Not found is no proof: the agent may store its task later. Unknown, and not sent again (it is superseded).
        else settle(entry, at(), 'unknown', 'ListTasks shows no task with this message yet: not sent again');
        continue;
      }
      if (entry.operation === 'CancelTask') continue; // its attempt's cancel record says what is known
      const lookup = this.lookups.get(entry.id);
      let answer: LookupAnswer | undefined;
      try {
        answer = lookup ? await lookup(entry.key) : undefined;
      } catch {
        answer = undefined;
      }
      if (answer?.found) settle(entry, at(), 'confirmed-success', 'found by lookup after the revision changed', answer.result ?? null);
      else if (answer) settle(entry, at(), 'confirmed-failure', 'lookup after the revision changed: the target has no such action');
      else settle(entry, at(), 'unresolved', lookup ? 'the lookup failed after the revision changed' : 'no lookup: nothing can settle it');
    }
  }
}

function fields(spec: ActionSpec<unknown>, inputHash: string): Omit<LedgerEntry, 'id' | 'history' | 'outcome'> {
  return { revision: spec.revision, target: spec.target, operation: spec.operation, key: spec.key, inputHash, ...(spec.node === undefined ? {} : { node: spec.node }) };
}
