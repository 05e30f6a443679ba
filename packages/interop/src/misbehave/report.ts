import { MISBEHAVIOURS } from '@a2a-tether/testkit';
import { RATE_CEILING_REQUESTS, RATE_CEILING_WINDOW_MS } from './checks.js';
import type { GroupCount, MisbehaveReport, MisbehaviourCount } from './run-misbehave.js';

function table(title: string, groups: Record<string, GroupCount>): string[] {
  const keys = Object.keys(groups).sort();
  const width = Math.max(title.length, ...keys.map((k) => k.length));
  const lines = [`${title.padEnd(width)}   runs  failed`];
  for (const key of keys) {
    const group = groups[key] as GroupCount;
    lines.push(`${key.padEnd(width)} ${String(group.runs).padStart(6)} ${String(group.failed).padStart(7)}`);
  }
  return lines;
}

function misbehaviourTable(groups: Record<string, MisbehaviourCount>): string[] {
  const keys = Object.keys(groups).sort();
  const width = Math.max('misbehaviour'.length, ...keys.map((k) => k.length));
  const lines = [`${'misbehaviour'.padEnd(width)}   runs  failed   alone: runs  failed`];
  for (const key of keys) {
    const g = groups[key] as MisbehaviourCount;
    const note = key in MISBEHAVIOURS ? `   ${MISBEHAVIOURS[key as keyof typeof MISBEHAVIOURS]}` : '';
    lines.push(
      `${key.padEnd(width)} ${String(g.runs).padStart(6)} ${String(g.failed).padStart(7)} ${String(g.alone.runs).padStart(13)} ${String(g.alone.failed).padStart(7)}${note}`,
    );
  }
  return lines;
}

/** The report as text: totals, tables per misbehaviour / scenario / interface, problem kinds, then failures in full. */
export function formatMisbehaveReport(report: MisbehaveReport): string {
  const lines: string[] = [];
  lines.push(
    `misbehave: seed ${report.seed}, ${report.runs} runs (concurrency ${report.concurrency}, clock ×${report.timeScale}, bound ${report.boundMs / 1000} s virtual) in ${(report.wallMs / 1000).toFixed(1)} s`,
    `  ${report.failed} failed; ${report.succeeded} resolved, ${report.acceptedErrors} ended in an accepted error; ${report.proxied.runs} through the fault proxy (${report.proxied.failed} failed)`,
    `  worst request window: ${report.worstWindow.requests} requests in ${RATE_CEILING_WINDOW_MS / 1000} s (ceiling ${RATE_CEILING_REQUESTS})${report.worstWindow.run === undefined ? '' : `, run #${report.worstWindow.run}`}`,
    '',
    ...misbehaviourTable(report.byMisbehaviour),
    '',
    ...table('scenario', report.byScenario),
    '',
    ...table('interface', report.byInterface),
  );
  const problems = Object.entries(report.byProblem).sort((a, b) => b[1].runs - a[1].runs);
  if (problems.length > 0) {
    lines.push('', 'problem kinds (failed runs showing each, first run):');
    for (const [kind, { runs, example }] of problems) lines.push(`${String(runs).padStart(6)}  #${String(example).padEnd(5)} ${kind}`);
  }
  for (const failure of report.failures) {
    lines.push(
      '',
      `── FAILED ${failure.plan}`,
      `   replay: --seed ${report.seed} --only ${failure.index}`,
      ...failure.problems.map((p) => `   ✖ ${p}`),
      `   agent: ${failure.agentTask}`,
      '   app events:',
      ...(failure.events.length === 0 ? ['     (none)'] : failure.events.map((e) => `     ${e}`)),
      '   requests:',
      ...failure.requests.map((r) => `     ${r}`),
    );
  }
  return lines.join('\n');
}
