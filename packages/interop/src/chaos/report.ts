import type { ChaosFailure, ChaosReport, ChaosTargetReport } from './run-chaos.js';

const COLUMNS = [
  'target',
  'tasks',
  'cuts',
  'reset',
  'end',
  'mid-event',
  'utf8',
  'stalls',
  '503',
  '429',
  'reconnects',
  'polling',
  'holes',
  'dup-exec',
  'unknown',
  'failures',
] as const;

function row(name: string, r: Omit<ChaosTargetReport, 'target'>): string[] {
  return [
    name,
    r.tasks,
    r.cutsTotal,
    r.cuts.reset,
    r.cuts.end,
    r.cuts.midEvent,
    r.cuts.utf8,
    r.stalls,
    r.injected[503],
    r.injected[429],
    r.reconnects,
    r.pollingFallbacks,
    r.holes,
    r.duplicateExecutions,
    r.unknownDeliveries,
    r.failures,
  ].map(String);
}

/** The report as a plain-text table, then the failures kept in full (and with `holes`, examples of repaired holes). */
export function formatChaosReport(report: ChaosReport, options: { holes?: boolean | undefined } = {}): string {
  const rows = [[...COLUMNS], ...report.targets.map((t) => row(t.target, t)), row('TOTAL', report.totals)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [
    `Chaos run: seed ${report.seed}, ${report.requestedCuts} cuts requested, concurrency ${report.concurrency}, ${(report.wallMs / 1000).toFixed(1)} s`,
    '',
    line(rows[0] ?? []),
    rule,
    ...rows.slice(1, -1).map(line),
    rule,
    line(rows.at(-1) ?? []),
    '',
    'cuts = reset + end + stalls; mid-event and utf8 are cuts (of either mode) inside an event / a multi-byte character;',
    'polling = tasks whose handle fell back to polling; holes = tasks whose app view of an artifact missed parts in front (the CI test requires 0)',
    'for a while; dup-exec = creating messages the agent executed twice; unknown = v0.3 creating sends cut off before any',
    'event, reported as DELIVERY_UNKNOWN (v0.3 has no ListTasks to look for them) and not sent again.',
  ];
  if (report.capHit !== undefined) out.push('', `STOPPED EARLY: ${report.capHit}`);
  out.push('', report.totals.failures === 0 ? 'No failures.' : `${report.totals.failures} FAILED TASKS (seed ${report.seed}); the first ${report.failures.length}:`);
  const show = (failure: ChaosFailure): void => {
    out.push(
      '',
      `✖ ${failure.target} — task #${failure.taskIndex} ${failure.taskId ?? '(no task id)'}: ${failure.plan} (seed ${failure.seed}, proxy seed ${failure.proxySeed})`,
      `  replay: ${failure.replay}`,
      ...failure.problems.map((p) => `  - ${p}`),
      `  agent: ${failure.serverTask}`,
      '  events:',
      ...failure.events.map((e) => `    ${e}`),
      "  proxy log (this task's requests):",
      ...failure.proxyLog.slice(0, 60).map((e) => `    ${e}`),
    );
  };
  report.failures.forEach(show);
  if (options.holes && report.holes.length > 0) {
    out.push('', `${report.totals.holes} tasks showed an artifact with a hole for a while (not failures); the first ${report.holes.length}:`);
    report.holes.forEach(show);
  }
  return out.join('\n');
}
