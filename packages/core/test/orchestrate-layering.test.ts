// The shape of orchestrate/ (issue 17): the runner's parts do not import it, files stay small, and
// time comes from the injected scheduler.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '..', 'src', 'orchestrate');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((name) => ({ name, text: readFileSync(join(DIR, name), 'utf8') }));

describe('orchestrate/', () => {
  it('no part imports the runner (workflow.ts); only the API built on it does', () => {
    // workflow-resume.ts (resumeWorkflows, takeOverWorkflows) starts workflows: it uses the runner, as an app does.
    const BUILT_ON_THE_RUNNER = ['workflow-resume.ts'];
    const importers = files.filter((f) => f.name !== 'workflow.ts' && /from '\.\/workflow\.js'/.test(f.text)).map((f) => f.name);
    expect(importers).toEqual(BUILT_ON_THE_RUNNER);
    // And nothing imports that API back.
    expect(files.filter((f) => /from '\.\/workflow-resume\.js'/.test(f.text)).map((f) => f.name)).toEqual([]);
  });

  it('no file is over 600 lines, the runner well under', () => {
    const lines = Object.fromEntries(files.map((f) => [f.name, f.text.split('\n').length - 1]));
    expect(Object.entries(lines).filter(([, n]) => n > 600)).toEqual([]);
    expect(lines['workflow.ts']).toBeLessThanOrEqual(500);
  });

  it('no global timer or clock: budgets and waits run on the injected scheduler', () => {
    const global = files.filter((f) => /(?<![.\w])(setTimeout|clearTimeout|setInterval)\(|Date\.now\b/.test(f.text)).map((f) => f.name);
    expect(global).toEqual([]);
  });

  it('node states change only through moveNode', () => {
    const writers = files.filter((f) => f.name !== 'node-moves.ts' && /\bnode\.state\s*=[^=]/.test(f.text)).map((f) => f.name);
    expect(writers).toEqual([]);
  });
});
