import type { CostRecord, NodeRecord, WorkflowRecord } from './workflow-record.js';
import type { HopSpec, NodeSummary, WorkflowSummary } from './workflow-types.js';

function ms(from: string | undefined, to: string | undefined, now: number): number {
  if (from === undefined) return 0;
  return Math.max(0, (to === undefined ? now : Date.parse(to)) - Date.parse(from));
}

function span(node: NodeRecord, now: number): number {
  if (node.attempts.length === 0) return 0;
  const start = Math.min(...node.attempts.map((a) => Date.parse(a.startedAt)));
  const end = Math.max(...node.attempts.map((a) => (a.endedAt === undefined ? now : Date.parse(a.endedAt))));
  return Math.max(0, end - start);
}

function addCost(into: CostRecord[], cost: CostRecord): void {
  const same = into.find((c) => c.unit === cost.unit);
  if (same) same.amount += cost.amount;
  else into.push({ ...cost });
}

/** Builds the summary of a record (pure: the same record gives the same summary). */
export function summarize(record: WorkflowRecord, hops: readonly HopSpec[], now: number): WorkflowSummary {
  const nodes: NodeSummary[] = hops.map((hop) => {
    const node = record.nodes[hop.id] as NodeRecord;
    const cost: CostRecord[] = [];
    for (const a of node.attempts) if (a.cost) addCost(cost, a.cost);
    return {
      id: node.id,
      agent: node.agent,
      parent: node.parent,
      state: node.state,
      attempts: structuredClone(node.attempts),
      // The span from the first attempt's start to the last one's end: attempts may overlap (a successor
      // starts while the superseded task is still stopping).
      durationMs: span(node, now),
      cost,
      ...(node.reason === undefined ? {} : { reason: node.reason }),
    };
  });
  const byAgent: Record<string, CostRecord[]> = {};
  const total: CostRecord[] = [];
  const latency: WorkflowSummary['latency'] = {};
  for (const node of Object.values(record.nodes)) {
    for (const a of node.attempts) {
      if (a.endedAt !== undefined) {
        const l = (latency[a.agent] ??= { attempts: 0, totalMs: 0, maxMs: 0, firstEventMs: [] });
        const took = ms(a.startedAt, a.endedAt, now);
        l.attempts++;
        l.totalMs += took;
        l.maxMs = Math.max(l.maxMs, took);
        if (a.firstEventAt !== undefined) l.firstEventMs.push(ms(a.startedAt, a.firstEventAt, now));
      }
      if (!a.cost) continue;
      addCost((byAgent[a.agent] ??= []), a.cost);
      addCost(total, a.cost);
    }
  }
  const firstChange = record.updates.find((u) => u.kind === 'correction' || u.kind === 'new-goal');
  const completedBeforeChange: string[] = [];
  if (firstChange) {
    for (const node of Object.values(record.nodes)) {
      for (const a of node.attempts) {
        if (a.endedAt === undefined || a.endedAt > firstChange.at || a.taskState !== 'completed') continue;
        completedBeforeChange.push(
          `${node.id}: task ${a.taskId ?? '(none)'} completed under revision ${a.revision}${a.adopted ? ', kept' : `, not used (${a.rejectedReason ?? 'superseded'})`}`,
        );
      }
    }
    for (const e of record.ledger) {
      if (e.outcome === 'confirmed-success' && e.operation !== 'SendMessage' && e.operation !== 'CancelTask' && e.revision < record.revision) {
        completedBeforeChange.push(`action ${e.id}: ${e.operation} on ${e.target} (key ${e.key}) done under revision ${e.revision}`);
      }
    }
  }
  const unresolved: string[] = [];
  for (const e of record.ledger) {
    if (e.outcome === 'unresolved' || e.outcome === 'unknown' || (e.outcome === 'intended' && record.endedAt !== undefined)) {
      unresolved.push(`action ${e.id}: ${e.operation} on ${e.target} (key ${e.key}) — outcome ${e.outcome}: ${e.history.at(-1)?.note ?? 'unknown'}`);
    }
  }
  for (const node of Object.values(record.nodes)) {
    for (const a of node.attempts) {
      if (a.cancel?.outcome === 'requested') {
        unresolved.push(`${node.id}: cancel of task ${a.taskId ?? '?'} requested by ${a.cancel.by} (${a.cancel.reason}), not confirmed; last seen ${a.cancel.state ?? 'unknown'}`);
      }
    }
    if (node.state === 'unresolved') unresolved.push(`${node.id}: ${node.reason ?? 'unresolved'}`);
  }
  const results: WorkflowSummary['results'] = [];
  for (const hop of hops) {
    const node = record.nodes[hop.id] as NodeRecord;
    const adopted = node.attempts.find((a) => a.adopted);
    if (adopted && node.state === 'completed') {
      const dependents = hops.filter((h) => (h.dependsOn ?? []).includes(hop.id)).map((h) => record.nodes[h.id] as NodeRecord);
      const unused = dependents.find((d) => d.state !== 'completed');
      const partial = (adopted.artifacts ?? []).find((a) => !a.complete);
      const why = partial ? `artifact ${partial.artifact.artifactId} has no last chunk` : unused ? `${unused.id} ${unused.state}` : undefined;
      results.push({ node: hop.id, taskId: adopted.taskId, artifacts: adopted.artifacts ?? [], label: why ? 'incomplete' : 'complete', ...(why ? { why } : {}) });
      continue;
    }
    const last = node.attempts.at(-1);
    if (last && !last.rejectedReason && (last.artifacts?.length ?? 0) > 0) {
      // Partial output of a hop that did not complete: kept, labelled.
      results.push({ node: hop.id, taskId: last.taskId, artifacts: last.artifacts ?? [], label: 'incomplete', why: `${hop.id} ${node.state}` });
    }
  }
  return {
    id: record.id,
    state: record.state,
    revision: record.revision,
    changed: record.updates.filter((u) => u.kind !== 'question'),
    completedBeforeChange,
    unresolved,
    results,
    nodes,
    cost: { byAgent, total },
    latency,
    durationMs: ms(record.createdAt, record.endedAt, now),
    record: structuredClone(record),
  };
}

function formatCost(costs: readonly CostRecord[]): string {
  return costs.map((c) => `${Number(c.amount.toFixed(6))} ${c.unit}`).join(' + ');
}

/** The delegation tree as text, one node per line with its attempts: states, timings, costs and outcomes. */
export function formatTree(summary: WorkflowSummary): string {
  const lines = [
    `workflow ${summary.id} — ${summary.state}, revision ${summary.revision}, ${summary.durationMs} ms${summary.cost.total.length > 0 ? `, cost ${formatCost(summary.cost.total)}` : ''}`,
  ];
  const children = (parent: string | undefined): NodeSummary[] => summary.nodes.filter((n) => n.parent === parent);
  const walk = (parent: string | undefined, indent: string): void => {
    const list = children(parent);
    list.forEach((node, i) => {
      const last = i === list.length - 1;
      const branch = `${indent}${last ? '└─ ' : '├─ '}`;
      const more = `${indent}${last ? '   ' : '│  '}`;
      const cost = node.cost.length > 0 ? `, cost ${formatCost(node.cost)}` : '';
      lines.push(`${branch}${node.id} [${node.state}] on ${node.agent}, ${node.durationMs} ms${cost}${node.reason ? ` — ${node.reason}` : ''}`);
      const record = summary.record.nodes[node.id];
      if (record?.cancel) lines.push(`${more}  cancel by ${record.cancel.by} (${record.cancel.reason}): ${record.cancel.outcome}`);
      for (const a of node.attempts) {
        const cancel = a.cancel ? `; cancel by ${a.cancel.by} (${a.cancel.reason}): ${a.cancel.outcome}` : '';
        const fate = a.adopted ? '; adopted' : a.rejectedReason ? `; not adopted: ${a.rejectedReason}` : '';
        lines.push(`${more}  #${a.n} rev ${a.revision} task ${a.taskId ?? '-'} ${a.taskState ?? a.state} (${ms(a.startedAt, a.endedAt, Date.parse(a.endedAt ?? a.startedAt))} ms)${cancel}${fate}`);
      }
      walk(node.id, more);
    });
  };
  walk(undefined, '');
  for (const line of summary.unresolved) lines.push(`unresolved: ${line}`);
  return lines.join('\n');
}
