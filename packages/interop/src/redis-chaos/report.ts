import type { RedisChaosReport } from './run-redis-chaos.js';

const count = (report: RedisChaosReport, kind: string): number => report.faults.filter((f) => f.kind === kind).length;

function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One line per run: the seed, the faults, and what held. */
export function formatRedisChaosRow(r: RedisChaosReport): string {
  const stops = r.stopTimesMs.length === 0 ? '-' : `${percentile(r.stopTimesMs, 50)}/${Math.max(...r.stopTimesMs)} ms`;
  return [
    `seed ${r.seed}`,
    `${r.finished}/${r.tasks} finished`,
    `faults: ${count(r, 'partition')} partitions, ${count(r, 'reset')} resets, ${count(r, 'kill-worker')} worker kills, ${count(r, 'kill-redis')} Redis kills`,
    `${r.subscriptions} subscriptions, ${r.doubles.length} double drives`,
    `${r.leaseLost} LEASE_LOST, ${r.fencedWrites} fenced writes`,
    `stop after a partition p50/max ${stops}`,
    `${r.wrongArtifacts.length} wrong artifacts, ${r.recordFaults.length} record faults`,
    `${(r.durationMs / 1000).toFixed(1)} s`,
  ].join(' · ');
}

/** Everything that went wrong in a run, one line each. */
export function formatRedisChaosReport(r: RedisChaosReport): string {
  const lines = [
    ...r.doubles.map((d) => `  double drive: ${d.taskId} at ${d.at} ms by ${d.drivers.join(' and ')}`),
    ...r.wrongArtifacts.map((w) => `  wrong artifact: ${w}`),
    ...r.recordFaults.map((f) => `  record: ${f}`),
    ...r.lateStops.map((s) => `  late stop: ${s}`),
    ...r.failures.map((f) => `  failure: ${f}`),
    `  faults: ${r.faults.map((f) => `${f.at}ms ${f.kind} ${f.target} ${f.forMs}ms`).join(', ')}`,
  ];
  return lines.join('\n');
}
