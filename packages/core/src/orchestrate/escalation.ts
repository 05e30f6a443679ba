import type { Breach, Escalation } from './workflow-types.js';

/** What a breach and its escalation decision come to. */
export type EscalationPlan =
  /** Stop every node (`timed-out`); with `failing`, the workflow ends `failed`. */
  | { kind: 'stop-all'; why: string; failing?: string | undefined }
  /** Re-arm the breached budget (the deadline, the hop's timeout, the pause's SLA) for `ms`. */
  | { kind: 'extend'; ms: number }
  /** Cancel the node's attempt and run the node again on `agent`. */
  | { kind: 'hand-to'; node: string; agent: string; why: string }
  /** Stop the node and every node below it (`timed-out`). */
  | { kind: 'stop-node'; node: string; why: string };

/** The app's decision (`escalate`), `cancel` without one or when it throws. */
export async function decide(escalate: ((breach: Breach) => Escalation | Promise<Escalation>) | undefined, breach: Breach): Promise<Escalation> {
  try {
    return escalate ? await escalate(breach) : 'cancel';
  } catch {
    return 'cancel';
  }
}

export function planEscalation(breach: Breach, decision: Escalation): EscalationPlan {
  const why = `${breach.kind} after ${breach.budgetMs} ms`;
  if (decision === 'fail') return { kind: 'stop-all', why, failing: `${why}: escalation failed the workflow` };
  if (typeof decision === 'object' && 'extendMs' in decision) return { kind: 'extend', ms: decision.extendMs };
  // A deadline is the whole workflow's: there is no node to hand on.
  if (breach.kind === 'deadline') return { kind: 'stop-all', why };
  const node = breach.node as string;
  if (typeof decision === 'object' && 'handTo' in decision) return { kind: 'hand-to', node, agent: decision.handTo, why };
  return { kind: 'stop-node', node, why };
}
