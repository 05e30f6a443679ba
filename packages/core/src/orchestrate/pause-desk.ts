import type { MessageInput } from '../model/message-input.js';
import { pauseBudget, type BudgetClock } from './budget-clock.js';
import { invalid } from './workflow-errors.js';
import type { PauseAnswer, PauseAnswerOutcome, WorkflowPause } from './workflow-types.js';

/** A pause of one attempt of a node. */
export interface OpenPause extends WorkflowPause {
  attempt: number;
}

/**
 * The human pauses waiting for an answer (input-required, auth-required), at most one per node, each
 * with its SLA on the budget clock.
 */
export class PauseDesk {
  private readonly pending = new Map<string, OpenPause>();

  constructor(private readonly clock: BudgetClock) {}

  /** The pauses waiting, oldest first, as users see them. */
  list(): WorkflowPause[] {
    return [...this.pending.values()].map(visible);
  }

  forNode(node: string): WorkflowPause | undefined {
    const found = [...this.pending.values()].find((p) => p.node === node);
    return found && visible(found);
  }

  /** Opens a pause (closing the node's earlier one); with `slaMs`, its SLA is armed. Returns it as users see it. */
  open(pause: OpenPause, slaMs: number | undefined): WorkflowPause {
    this.closeNode(pause.node);
    if (slaMs !== undefined) this.clock.arm(pauseBudget(pause.id), slaMs, { kind: 'pause-sla', node: pause.node, taskId: pause.taskId || undefined, budgetMs: slaMs });
    this.pending.set(pause.id, pause);
    return visible(pause);
  }

  /** Closes a node's pauses (only those of `attempt`, when given). */
  closeNode(node: string, attempt?: number): void {
    for (const [id, p] of this.pending) if (p.node === node && (attempt === undefined || p.attempt === attempt)) this.close(id);
  }

  close(id: string): void {
    this.clock.clear(pauseBudget(id));
    this.pending.delete(id);
  }

  closeAll(): void {
    for (const id of [...this.pending.keys()]) this.close(id);
  }

  /**
   * Answers one pause through `reply` (the reply to its attempt's task); the pause closes when the reply
   * went out. An answer to a pause no longer pending, or whose reply fails, fails alone (`ok: false`).
   */
  async answer({ pause, input }: PauseAnswer, reply: (pause: OpenPause, input: MessageInput) => Promise<void>): Promise<PauseAnswerOutcome> {
    const id = typeof pause === 'string' ? pause : pause.id;
    const found = this.pending.get(id);
    if (!found) return { pause: id, node: undefined, ok: false, error: invalid(`no pause ${id} is waiting for an answer`) };
    try {
      await reply(found, input);
    } catch (error) {
      return { pause: id, node: found.node, ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
    this.close(id);
    return { pause: id, node: found.node, ok: true };
  }
}

function visible({ attempt: _attempt, ...pause }: OpenPause): WorkflowPause {
  return pause;
}
