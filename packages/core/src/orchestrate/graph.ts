import { TetherError } from '../errors/tether-error.js';
import type { HopSpec } from './workflow-types.js';

function invalid(message: string): TetherError {
  return new TetherError('INVALID_ARGUMENT', message, { maybeDelivered: false });
}

/** Checks a workflow's hops: unique ids, known agents, known parents and dependencies, no cycles. */
export function checkHops(hops: readonly HopSpec[], agents: Readonly<Record<string, unknown>>): void {
  if (hops.length === 0) throw invalid('a workflow needs at least one hop');
  const ids = new Set<string>();
  for (const hop of hops) {
    if (typeof hop.id !== 'string' || hop.id === '') throw invalid('every hop needs an id');
    if (ids.has(hop.id)) throw invalid(`two hops are called ${JSON.stringify(hop.id)}`);
    ids.add(hop.id);
    if (!Object.hasOwn(agents, hop.agent)) throw invalid(`hop ${hop.id}: no agent called ${JSON.stringify(hop.agent)} in agents`);
    if (typeof hop.input !== 'function') throw invalid(`hop ${hop.id}: input must be a function`);
  }
  for (const hop of hops) {
    for (const dep of hop.dependsOn ?? []) if (!ids.has(dep)) throw invalid(`hop ${hop.id} depends on an unknown hop ${JSON.stringify(dep)}`);
    if (hop.parent !== undefined && !ids.has(hop.parent)) throw invalid(`hop ${hop.id}: unknown parent ${JSON.stringify(hop.parent)}`);
  }
  const byId = new Map(hops.map((h) => [h.id, h]));
  for (const edge of ['dependsOn', 'parent'] as const) {
    const next = (id: string): string[] => {
      const hop = byId.get(id);
      if (edge === 'parent') return hop?.parent === undefined ? [] : [hop.parent];
      return hop?.dependsOn ?? [];
    };
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, path: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') throw invalid(`the hops' ${edge} edges form a cycle: ${[...path, id].join(' → ')}`);
      state.set(id, 'visiting');
      for (const n of next(id)) visit(n, [...path, id]);
      state.set(id, 'done');
    };
    for (const hop of hops) visit(hop.id, []);
  }
}

/** The nodes below `id` along delegation edges (children, their children …). */
export function descendants(hops: readonly HopSpec[], id: string): string[] {
  const out: string[] = [];
  const queue = [id];
  while (queue.length > 0) {
    const at = queue.shift() as string;
    for (const hop of hops) {
      if (hop.parent === at && !out.includes(hop.id)) {
        out.push(hop.id);
        queue.push(hop.id);
      }
    }
  }
  return out;
}

/** `ids` and every node that depends on one of them, directly or not. */
export function withDependents(hops: readonly HopSpec[], ids: readonly string[]): string[] {
  const out = new Set(ids);
  for (let grew = true; grew; ) {
    grew = false;
    for (const hop of hops) {
      if (!out.has(hop.id) && (hop.dependsOn ?? []).some((d) => out.has(d))) {
        out.add(hop.id);
        grew = true;
      }
    }
  }
  return hops.map((h) => h.id).filter((id) => out.has(id));
}
