#!/usr/bin/env node
// The docs' runnable snippets run (issue 20): the ```ts runnable blocks of each doc, in the doc's order, are
// one program — as a reader types them one after the other — run with Node against the testkit agent
// (built packages; run `pnpm build` first). `https://agent.example` in a snippet is that agent. The first
// runnable block of a doc is the program's top level (it connects: later blocks use its `client`); each later
// block runs in a block scope of its own, so its names do not clash with the others'. Imports are hoisted.
// A doc whose program throws, exits non-zero or runs past 60 s fails the run (its output is printed).
//
// `node scripts/docs-run.mjs [file.md …]`; without arguments every doc with runnable blocks.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { docFiles, extractSnippets, makeWorkDir } from './docs-snippets.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = 'https://agent.example';

/** The scenarios the docs' prompts name (the testkit agent picks one by the message's first word). */
const scenarios = {
  // "Write the quarterly report": a task that streams its report in three chunks, then completes.
  Write: async (ctx) => {
    ctx.status('working', 'writing');
    for (let i = 1; i <= 3; i++) {
      ctx.artifact({ artifactId: 'report', name: 'report', text: `part ${i}. `, append: i > 1, lastChunk: i === 3 });
      await ctx.sleep(5);
    }
    ctx.status('completed');
  },
  // "Forecast the weather in Lisbon": a data artifact, the forecast for the message's last word.
  Forecast: async (ctx) => {
    ctx.status('working');
    const city = ctx.text.split(' ').pop();
    const days = [{ day: 'mon', rain: false }, { day: 'tue', rain: true }];
    ctx.artifact({ artifactId: 'forecast', name: 'forecast', parts: [{ kind: 'data', data: { city, tempC: 21, days } }], lastChunk: true });
    ctx.status('completed');
  },
};

/** One program of a doc's runnable blocks (or `undefined` when it has none). */
export function programOf(markdown, agentUrl) {
  const runnable = extractSnippets(markdown).snippets.filter((s) => s.runnable);
  if (runnable.length === 0) return undefined;
  const imports = new Set();
  const bodies = runnable.map((snippet, i) => {
    const body = snippet.code
      .split('\n')
      .filter((line) => (/^import\s.+\sfrom\s+'[^']+';\s*(\/\/.*)?$/.test(line) ? (imports.add(line.replace(/\s*\/\/.*$/, '')), false) : true))
      .join('\n')
      .replaceAll(AGENT, agentUrl);
    return i === 0 ? `// line ${snippet.line}\n${body}` : `// line ${snippet.line}\n{\n${body}\n}`;
  });
  return `${[...imports].join('\n')}\n${bodies.join('\n')}\nprocess.exit(0);\n`;
}

/** Runs `node path` in `cwd`; killed after `ms`. */
function runNode(path, cwd, ms) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), ms);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { startTestAgent } = await import(join(root, 'packages/testkit/dist/index.js'));
  const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : docFiles();
  const agent = await startTestAgent({ scenarios });
  const dir = makeWorkDir();
  let ran = 0;
  const failed = [];
  try {
    for (const file of files) {
      const program = programOf(readFileSync(join(root, file), 'utf8'), agent.url);
      if (program === undefined) continue;
      ran++;
      const path = join(dir, `${file.replaceAll('/', '_')}.mjs`);
      writeFileSync(path, transformSync(program, { loader: 'ts', format: 'esm', target: 'node20' }).code);
      const started = Date.now();
      // Not spawnSync: the agent answers from this process's event loop.
      const run = await runNode(path, dir, 60_000);
      const took = Date.now() - started;
      if (run.status === 0) console.log(`✔ ${file}: its runnable snippets ran against the testkit agent (${took} ms)`);
      else {
        failed.push(file);
        console.error(`✖ ${file}: exit ${run.status ?? run.signal} after ${took} ms\n${run.stdout}${run.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await agent.close();
  }
  if (failed.length > 0) process.exit(1);
  console.log(`✔ ${ran} doc(s) with runnable snippets ran`);
}
