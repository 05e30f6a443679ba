#!/usr/bin/env node
// `pnpm mutants`: plants, one at a time, the one-line bugs that once survived every deterministic
// test, and checks that the tests each mutant names (a vitest project — core by default, node, browser —
// and test files) now FAIL on it; before any mutant, those same tests must pass. A mutant that survives,
// or a line that is not in the code exactly once, fails the run.
// Each mutant is applied to the working tree and always restored (also on Ctrl-C).
// `--only TEXT` runs the mutants whose name contains TEXT (e.g. `pnpm mutants --only workflow`).
// `--after-tests` skips the baseline: for scripts/test-all.mjs, whose test step has just run every test
// green. A mutant's run stops at its first failing test (`--bail 1`): one failure is all it takes.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
const task = (file) => `${root}packages/core/src/task/${file}`;
const orchestrate = (file) => `${root}packages/core/src/orchestrate/${file}`;
/** The tests an engine mutant must fail (the default) and the ones an orchestrator mutant must fail. */
const ENGINE_TESTS = ['packages/core/src/task/', 'packages/core/test/engine-', 'packages/core/test/lost-send'];
const WORKFLOW_TESTS = ['packages/core/test/orchestrate'];
const REDACT_TESTS = ['packages/core/src/errors/redact.test.ts'];

/**
 * The bugs, each as one line of today's code (`from`, exactly once in `file`) and the line that plants
 * the bug (`to`); `project` (default `core`) and `tests` (default {@link ENGINE_TESTS}) name what must fail.
 */
const MUTANTS = [
  {
    name: 'no final GetTask after a gap',
    file: task('phase.ts'),
    from: "if (isTerminalState(facts.state)) return facts.gap ? { name: 'final-check' } : { name: 'done' };",
    to: "if (isTerminalState(facts.state)) return { name: 'done' };",
  },
  {
    name: 'no catch-up before the live events of a subscription without a snapshot',
    file: task('stream-session.ts'),
    from: "if (this.subscription && !this.resumedById && batch[0]?.event.kind !== 'task') {",
    to: 'if (false) {',
  },
  {
    name: 'budgets not reset by progress',
    file: task('follow-state.ts'),
    from: "  s = { ...s, moves: s.moves + 1, futileStreams: 0, quietSince: env.now };\n  effects.push({ type: 'reset-budget' });",
    to: '  s = { ...s, moves: s.moves + 1, futileStreams: 0, quietSince: env.now };',
  },
  {
    name: "a probe of a subscription's opening outlives it (asks on forever)",
    file: task('stream-session.ts'),
    from: '      probing.abort();\n      idle.stop();',
    to: '      idle.stop();',
  },
  {
    name: 'a subscription that opened as its step was stopped is kept open (its slot leaks)',
    file: task('stream-session.ts'),
    from: "    if (signal.aborted) {\n      feed.close();\n      return { type: 'stopped' };\n    }\n",
    to: '',
  },
  {
    name: 'the idle timer not re-armed for the rest of the silence',
    file: task('idle-probe.ts'),
    from: 'if (remaining > 0) this.arm(remaining);\n    else this.onSilence();',
    to: 'this.onSilence();',
  },
  {
    name: 'the auth-required look-again disabled',
    file: task('input-wait.ts'),
    from: "return state === 'auth-required' && this.authLookMs > 0 ? this.authLookMs : undefined;",
    to: 'return undefined;',
  },
  {
    name: 'no delay before a reconnect',
    file: task('phase.ts'),
    from: "return { name: 'backing-off', delayMs: decision.delayMs, attempt: decision.attempt, error, then };",
    to: "return { name: 'backing-off', delayMs: 0, attempt: decision.attempt, error, then };",
  },
  {
    name: 'an unbounded event buffer (no resync for a late reader)',
    file: task('event-queue.ts'),
    from: 'if (!this.reader && this.size > Math.max(this.capacity, 2 * this.compacted)) {',
    to: 'if (false) {',
  },
  {
    name: 'keepArtifacts false: a diverged replay not taken into the digest (the next replay of it is shown again)',
    file: task('reconciler.ts'),
    from: '    digest.truncate(from);\n',
    to: '',
  },
  {
    name: 'dedupe windows that never evict',
    file: task('reconciler.ts'),
    from: '    if (this.ring.length < this.max) {',
    to: '    if (true) {',
  },
  {
    name: 'a divergent artifact of equal length not seen as behind',
    file: task('reconciler.ts'),
    from: 'if (keys.length > local.parts.length || !local.parts.startsWith(keys)) return true;',
    to: 'if (keys.length > local.parts.length) return true;',
  },
  {
    name: "G1's store write not awaited",
    file: task('start-task.ts'),
    from: '  await follower.stored;',
    to: '',
  },
  {
    name: 'workflow: a late result of superseded work adopted',
    file: orchestrate('hop-attempt.ts'),
    from: '    if (attempt.rejectedReason !== undefined || !current) {',
    to: '    if (!current) {',
    tests: WORKFLOW_TESTS,
  },
  {
    name: 'workflow: a send in flight when an update supersedes it not asked to stop',
    file: orchestrate('hop-attempt.ts'),
    from: "    if (attempt.rejectedReason !== undefined) {\n      await this.p.cancels.request(node, attempt, 'workflow',",
    to: "    if (false) {\n      await this.p.cancels.request(node, attempt, 'workflow',",
    tests: WORKFLOW_TESTS,
  },
  {
    name: 'workflow: an action whose outcome is unknown performed again without a lookup',
    file: orchestrate('action-desk.ts'),
    from: "    if (entry && (entry.outcome === 'unknown' || entry.outcome === 'unresolved' || entry.outcome === 'intended')) {",
    to: '    if (false) {',
    tests: WORKFLOW_TESTS,
  },
  {
    name: 'workflow: a restart ignores the stored record and runs every hop again',
    file: orchestrate('workflow-open.ts'),
    from: '  let record = await store.load(options.id);',
    to: '  let record = (await store.load(options.id)) && undefined;',
    tests: WORKFLOW_TESTS,
  },
  {
    name: 'redact: sessionid no longer a secret name',
    file: `${root}packages/core/src/errors/redact.ts`,
    from: '|.*(?:token|secret|password|passwd|pwd|apikey|privatekey|sessionid))$/;',
    to: '|.*(?:token|secret|password|passwd|pwd|apikey|privatekey))$/;',
    tests: REDACT_TESTS,
  },
  {
    name: 'redact: privatekey, passwd and pwd no longer secret names',
    file: `${root}packages/core/src/errors/redact.ts`,
    from: '|.*(?:token|secret|password|passwd|pwd|apikey|privatekey|sessionid))$/;',
    to: '|.*(?:token|secret|password|apikey|sessionid))$/;',
    tests: REDACT_TESTS,
  },
  {
    name: 'signing: a jku taken when an allowlisted URL is a prefix of it',
    file: `${root}packages/core/src/signing/verify-card-signatures.ts`,
    from: 'if (!run.config.allowlist.includes(href)) return',
    to: 'if (!run.config.allowlist.some((entry) => href.startsWith(entry))) return',
    tests: ['packages/core/test/signing-verify.test.ts'],
  },
  {
    name: 'workflow: descendants() stops at direct children (grandchildren run on after a cancel or hop timeout)',
    file: orchestrate('graph.ts'),
    from: '        queue.push(hop.id);\n',
    to: '',
    tests: ['packages/core/test/orchestrate.test.ts'],
  },
  {
    name: 'file stores: the temp record file renamed without an fsync',
    file: `${root}packages/node/src/record-directory.ts`,
    from: '        await file.sync();\n',
    to: '',
    project: 'node',
    tests: ['packages/node/test/record-durability.test.ts'],
  },
  {
    name: 'browser: one tab lock per agent instead of per task',
    file: `${root}packages/browser/src/tabs.ts`,
    from: '      const name = `tether:${scope}:${taskId}`;',
    to: '      const name = `tether:${scope}`;',
    project: 'browser',
    tests: ['packages/browser/test/tab-locks.test.ts'],
  },
  {
    name: 'SSE reader: reads on after its size failure',
    file: `${root}packages/core/src/sse/sse-reader.ts`,
    from: '    if (this.failure) return this.take();\n',
    to: '',
    tests: ['packages/core/test/fuzz/sse-reader.test.ts'],
  },
  {
    name: 'workflow: a result without the revision its hop requires adopted',
    file: orchestrate('revision-gate.ts'),
    from: '    : echoed.length === 0 && requireEcho',
    to: '    : false',
    tests: ['packages/core/test/orchestrate-redirect.test.ts'],
  },
  {
    name: 'workflow: a node cancelled while its send was out sent again once the send proved undelivered',
    file: orchestrate('hop-attempt.ts'),
    from: "    else if (node.state !== 'canceled') journal.move(node, 'pending', 'its message was never delivered: sent again');",
    to: "    else journal.move(node, 'pending', 'its message was never delivered: sent again');",
    tests: ['packages/core/test/orchestrate-redirect.test.ts'],
  },
  {
    name: 'workflow: node moves unchecked (a node may move from any state to any other)',
    file: orchestrate('node-moves.ts'),
    from: '  return from === to || LEGAL[from].includes(to);',
    to: '  return true;',
    tests: ['packages/core/src/orchestrate/node-moves.test.ts'],
  },
  {
    name: "Redis: a lease's renew() answers true without extending the TTL",
    file: `${root}packages/node/src/redis/lease-scripts.ts`,
    from: "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n  return 1",
    to: "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  return 1",
    project: 'node',
    tests: ['packages/node/test/redis-store.test.ts'],
  },
  {
    name: 'Redis: writes not fenced (a former holder overwrites its successor)',
    file: `${root}packages/node/src/redis/lease-scripts.ts`,
    from: "if ${fenceArg} ~= '' and tonumber(",
    to: "if false and tonumber(",
    project: 'node',
    tests: ['packages/node/test/redis-store.test.ts'],
  },
  {
    name: 'leases: no local deadline (a process cut off from the store drives on)',
    file: task('lease-keeper.ts'),
    from: 'if (monotonicNow(scheduler) - confirmed >= grace) this.lose(',
    to: 'if (false) this.lose(',
    tests: ['packages/core/test/engine-leases.test.ts'],
  },
  {
    name: "leases: writes without the lease's fencing token",
    file: task('store-writer.ts'),
    from: '    const fence = this.options.fence?.();',
    to: '    const fence = undefined;',
    tests: ['packages/core/test/engine-leases.test.ts'],
  },
];

/** Planted files: their text before and after the mutant, and the mutant. */
const originals = new Map();
function restoreAll() {
  for (const [file, { text, mutated, mutant }] of originals) {
    const now = readFileSync(file, 'utf8');
    // Someone edited the file while its mutant ran (a shared working tree): take only the mutant out.
    if (now !== mutated && mutant.to !== '' && now.split(mutant.to).length === 2) writeFileSync(file, now.replace(mutant.to, () => mutant.from));
    else writeFileSync(file, text);
    if (now !== mutated) console.error(`⚠ ${file.slice(root.length)} changed while mutant "${mutant.name}" was planted: check it`);
  }
  originals.clear();
}
process.on('SIGINT', () => {
  restoreAll();
  process.exit(130);
});

/** The vitest project and test files a mutant must fail: by default the engine's tests in core. */
function suiteOf(mutant) {
  return { project: mutant.project ?? 'core', tests: mutant.tests ?? ENGINE_TESTS };
}

function runTests({ project, tests }, bail = false) {
  // Deterministic tests only (unit tests, scripted agents on a manual clock, real servers on 127.0.0.1).
  // vitest from the workspace's own bin: no global pnpm needed.
  const result = spawnSync(`${root}node_modules/.bin/vitest`, ['run', '--project', project, '--reporter', 'dot', ...(bail ? ['--bail', '1'] : []), ...tests], {
    cwd: root,
    encoding: 'utf8',
  });
  // The failing tests (not test files), read without the colours vitest may print.
  const failed = /Tests\s+(\d+) failed/.exec(stripVTControlCharacters(`${result.stdout}${result.stderr}`))?.[1];
  const output = `${result.error ? `${result.error.message}\n` : ''}${result.stdout ?? ''}${result.stderr ?? ''}`;
  return { ok: result.status === 0, failed: failed === undefined ? 0 : Number(failed), output };
}

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
const selected = MUTANTS.filter((m) => only === undefined || m.name.includes(only));
// The baseline: per project, every test a selected mutant names passes without any mutant.
const baselines = new Map();
for (const { project, tests } of selected.map(suiteOf)) baselines.set(project, new Set([...(baselines.get(project) ?? []), ...tests]));
for (const [project, tests] of process.argv.includes('--after-tests') ? [] : baselines) {
  const baseline = runTests({ project, tests: [...tests] });
  if (!baseline.ok) {
    console.error(`${baseline.output.slice(-4000)}\n✖ the ${project} tests fail without any mutant: fix them first`);
    process.exit(1);
  }
}
let survivors = 0;
const rows = [];
try {
  for (const mutant of selected) {
    const text = readFileSync(mutant.file, 'utf8');
    const at = text.indexOf(mutant.from);
    if (at < 0 || text.indexOf(mutant.from, at + 1) >= 0) {
      rows.push(`✖ ${mutant.name}: the line to mutate is not (exactly once) in ${mutant.file.slice(root.length)}`);
      survivors++;
      continue;
    }
    const mutated = text.replace(mutant.from, () => mutant.to);
    originals.set(mutant.file, { text, mutated, mutant });
    writeFileSync(mutant.file, mutated);
    const started = Date.now();
    const run = runTests(suiteOf(mutant), true);
    restoreAll();
    const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (run.ok) {
      survivors++;
      rows.push(`✖ SURVIVED  ${mutant.name} (${took})`);
    } else {
      rows.push(`✔ killed  ${mutant.name} (${took})`);
    }
  }
} finally {
  restoreAll();
}
console.log(rows.join('\n'));
if (survivors > 0) {
  console.error(`✖ ${survivors} of ${selected.length} mutants survived the deterministic tests`);
  process.exit(1);
}
console.log(`✔ all ${selected.length} mutants fail a deterministic test`);
