import { describe, expect, it } from 'vitest';
import { programOf } from '../../../scripts/docs-run.mjs';
import { checkDocs, docFiles, extractSnippets } from '../../../scripts/docs-snippets.mjs';

// The docs' snippets compile (scripts/docs-snippets.mjs, a step of `pnpm test`): here the checker itself is
// checked — it finds the blocks, skips only what is marked, and fails on a snippet that does not compile.
// checkDocs reads the BUILT packages (run `pnpm build`).

const fence = '```';

describe('extracting snippets', () => {
  it('takes ts, typescript and tsx blocks, indented ones too, with the line their code starts on; nothing else', () => {
    const markdown = [
      '# Doc', // 1
      `${fence}ts`, // 2
      'const a = 1;', // 3
      fence,
      `${fence}sh`,
      'npm install',
      fence,
      '- a list item:', // 8
      `  ${fence}typescript`, // 9
      '  const b = 2;', // 10
      `  ${fence}`,
      '~~~ts', // 12
      'const c = 3;',
      '~~~',
      `${fence}js`,
      'const d = 4;',
      fence,
      `${fence}tsx`, // 18
      'const e = <p />;', // 19
      fence,
    ].join('\n');
    expect(extractSnippets(markdown).snippets).toEqual([
      { line: 3, code: 'const a = 1;', fragment: false, tsx: false },
      { line: 10, code: 'const b = 2;', fragment: false, tsx: false },
      { line: 13, code: 'const c = 3;', fragment: false, tsx: false },
      { line: 19, code: 'const e = <p />;', fragment: false, tsx: true },
    ]);
  });

  it('a fence of four backticks holds one of three; `fragment` in the info string marks a block', () => {
    const markdown = ['````ts fragment', fence, 'x', fence, '````'].join('\n');
    expect(extractSnippets(markdown).snippets).toEqual([{ line: 2, code: [fence, 'x', fence].join('\n'), fragment: true, tsx: false }]);
  });

  it('reads one prelude; a second one, or one never closed, is an error', () => {
    const prelude = '<!-- snippet-prelude: given\ndeclare global { const n: number }\n-->';
    expect(extractSnippets(`text\n${prelude}`).prelude).toEqual({ line: 3, code: 'declare global { const n: number }\n' });
    expect(() => extractSnippets(`${prelude}\n${prelude}`)).toThrow(/a second snippet-prelude/);
    expect(() => extractSnippets('<!-- snippet-prelude\nconst n = 1;')).toThrow(/never closed/);
  });

  it('finds the docs: README.md, docs/ and docs/design/', () => {
    expect(docFiles()).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/design/engine.md']));
  });
});

describe('runnable snippets (scripts/docs-run.mjs)', () => {
  it('a doc\'s runnable blocks are one program: imports hoisted, later blocks scoped, the example agent replaced', () => {
    const markdown = [
      `${fence}ts runnable`,
      "import { connect } from '@a2a-tether/node';",
      "const client = await connect('https://agent.example');",
      fence,
      `${fence}ts`,
      'const notRun = 1;',
      fence,
      `${fence}ts runnable`,
      "import { connect } from '@a2a-tether/node'; // again",
      "const result = await client.sendMessage('hi');",
      fence,
    ].join('\n');
    expect(programOf(markdown, 'http://127.0.0.1:9')).toBe(
      [
        "import { connect } from '@a2a-tether/node';",
        '// line 2',
        "const client = await connect('http://127.0.0.1:9');",
        '// line 9',
        '{',
        "const result = await client.sendMessage('hi');",
        '}',
        'process.exit(0);',
        '',
      ].join('\n'),
    );
    expect(programOf(`${fence}ts\nconst a = 1;\n${fence}`, 'x')).toBeUndefined();
  });
});

describe('checking snippets (against the built packages)', () => {
  it('fails on a snippet that does not compile, naming the doc, line and column; passes the rest', { timeout: 120_000 }, () => {
    const broken = [
      '# Broken', // 1
      `${fence}ts`, // 2
      "import { connect } from '@a2a-tether/node';", // 3
      '',
      "const client = await connect('https://agent.example');", // 5
      "await client.sendMesage('hi');", // 6: a misspelt method
      fence,
      `${fence}ts`,
      "import { connectEverything } from '@a2a-tether/node';", // 9: no such export
      fence,
      `${fence}ts fragment`,
      'this is not TypeScript', // 12: marked, not checked
      fence,
      `${fence}tsx`, // 14: a React module, JSX on
      "import { useTask } from '@a2a-tether/react';",
      "export const Card = () => <p>{useTask('t1').progress.partz}</p>;", // 16: a misspelt field
      fence,
    ].join('\n');
    const good = [
      '<!-- snippet-prelude: what the snippets take as given',
      "import type { A2AClient } from '@a2a-tether/node';",
      'declare global {',
      '  const client: A2AClient;',
      '  const answer: number;',
      '}',
      '-->',
      `${fence}ts`,
      "const task = await client.start('Write the report'); // from the prelude",
      'const result = await task.done();',
      'console.log(result.status.state);',
      fence,
      `${fence}ts`,
      "const answer = 'shadows the prelude';", // a snippet's own declaration wins
      'console.log(answer.length);',
      fence,
      `${fence}ts`,
      'const answer = 42; // each snippet is a module of its own: no clash with the one above',
      fence,
    ].join('\n');
    const { errors, checked, fragments } = checkDocs([
      { file: 'broken.md', markdown: broken },
      { file: 'good.md', markdown: good },
    ]);
    expect(errors).toEqual([
      expect.stringMatching(/^broken\.md:6:14 TS2551 Property 'sendMesage' does not exist on type 'A2AClient'/),
      expect.stringMatching(/^broken\.md:9:10 TS2305 Module '"@a2a-tether\/node"' has no exported member 'connectEverything'/),
      expect.stringMatching(/^broken\.md:16:\d+ TS2551 Property 'partz' does not exist on type 'TaskProgress'/),
    ]);
    expect({ checked, fragments }).toEqual({ checked: 6, fragments: 1 });
  });
});
