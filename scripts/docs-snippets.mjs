#!/usr/bin/env node
// Every TypeScript snippet in the docs compiles (style.md habit 10): each ```ts / ```typescript block of
// README.md, docs/*.md and docs/design/*.md (```tsx: a React module, JSX on) becomes a module of its own and is type-checked with the repo's
// TypeScript and its strict options (tsconfig.base.json), against the BUILT packages (run `pnpm build`
// first): `@a2a-tether/*` resolves through each package's exports to its dist types, as in an app.
//
// Two markers, both in the Markdown:
//   ```ts fragment          a block that is not meant to compile (a shape, a line out of context): not checked.
//   ```ts runnable          a block that also runs (scripts/docs-run.mjs: a doc's runnable blocks in order, one program,
//                           against the testkit agent).
//                           For genuine fragments only; a snippet that should compile and does not gets fixed.
//   <!-- snippet-prelude    what the doc's snippets take as given (a connected `client`, an app's own function),
//   …TypeScript…            one per doc, anywhere outside a block. It is a module of its own; what it declares
//   -->                     in `declare global { … }` every snippet of that doc sees, and a snippet that
//                           declares the same name itself shadows it.
//
// `node scripts/docs-snippets.mjs [file.md …]` prints `file:line:column TSxxxx message` per error and exits 1
// on any; without arguments it checks every doc. `--keep` leaves the generated modules in .docs-snippets/.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['core', 'node', 'browser', 'testkit', 'otel', 'ai-sdk', 'react'];
const LANGUAGES = new Set(['ts', 'typescript', 'tsx']);

/** The Markdown files whose snippets are checked, relative to the repository root. */
export function docFiles() {
  const inDir = (dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`);
  return ['README.md', ...inDir('docs'), ...inDir('docs/design')];
}

/**
 * The TypeScript blocks of one Markdown text and its prelude. Lines are 1-based: a block's `line` is
 * the first line of its code (after the opening fence), the prelude's the first line of its code.
 */
export function extractSnippets(markdown) {
  const lines = markdown.split(/\r?\n/);
  const snippets = [];
  let prelude;
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (open) {
      const [, indent, fence, info] = open;
      const words = info.trim().split(/\s+/);
      const code = [];
      let j = i + 1;
      const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
      for (; j < lines.length && !close.test(lines[j]); j++) code.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
      if (LANGUAGES.has(words[0]?.toLowerCase())) {
        snippets.push({ line: i + 2, code: code.join('\n'), fragment: words.slice(1).includes('fragment'), tsx: words[0]?.toLowerCase() === 'tsx', ...(words.slice(1).includes('runnable') ? { runnable: true } : {}) });
      }
      i = j;
      continue;
    }
    if (/^\s*<!--\s*snippet-prelude\b/.test(lines[i])) {
      if (prelude) throw new Error(`line ${i + 1}: a second snippet-prelude (one per doc; the first is on line ${prelude.line - 1})`);
      const code = [];
      let j = i + 1;
      for (; j < lines.length && !lines[j].includes('-->'); j++) code.push(lines[j]);
      if (j === lines.length) throw new Error(`line ${i + 1}: the snippet-prelude comment is never closed (-->)`);
      code.push(lines[j].slice(0, lines[j].indexOf('-->')));
      prelude = { line: i + 2, code: code.join('\n') };
      i = j;
    }
  }
  return { snippets, prelude };
}

/** tsconfig.base.json's options, resolving `@a2a-tether/*` to the built packages as an app does. */
function compilerOptions() {
  const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
  if (base.error) throw new Error(ts.flattenDiagnosticMessageText(base.error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(base.config.compilerOptions, root);
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  // No `@a2a-tether/source` condition: the dist types, not the sources, are what a user compiles against.
  delete options.customConditions;
  return { ...options, types: ['node'], noEmit: true, declaration: false, sourceMap: false, jsx: ts.JsxEmit.ReactJSX };
}

/** A folder inside the repository (git-ignored) with an app's view of the workspace packages. */
export function makeWorkDir() {
  const dir = join(root, '.docs-snippets', `run-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(join(dir, 'node_modules', '@a2a-tether'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  for (const name of PACKAGES) symlinkSync(join(root, 'packages', name), join(dir, 'node_modules', '@a2a-tether', name), 'dir');
  // OpenTelemetry's API and SDK, as an app that uses @a2a-tether/otel installs them.
  symlinkSync(join(root, 'packages', 'otel', 'node_modules', '@opentelemetry'), join(dir, 'node_modules', '@opentelemetry'), 'dir');
  // The AI SDK (`ai`), as an app that uses @a2a-tether/ai-sdk installs it.
  symlinkSync(join(root, 'packages', 'ai-sdk', 'node_modules', 'ai'), join(dir, 'node_modules', 'ai'), 'dir');
  // React and its types, as an app that uses @a2a-tether/react installs them.
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(root, 'packages', 'react', 'node_modules', 'react'), join(dir, 'node_modules', 'react'), 'dir');
  symlinkSync(join(root, 'packages', 'react', 'node_modules', '@types', 'react'), join(dir, 'node_modules', '@types', 'react'), 'dir');
  // The AI SDK's React hooks (@ai-sdk/react), as a chat app installs them (the web example does).
  symlinkSync(join(root, 'examples', 'web-assistant', 'node_modules', '@ai-sdk'), join(dir, 'node_modules', '@ai-sdk'), 'dir');
  // Vite, for a plugin that mounts the relay on its dev server (docs/web-apps.md).
  symlinkSync(join(root, 'examples', 'web-assistant', 'node_modules', 'vite'), join(dir, 'node_modules', 'vite'), 'dir');
  // zod, as an app that checks data with it installs it (docs/typed-results.md).
  symlinkSync(join(root, 'packages', 'core', 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  // vitest and @types/node come from the repository's own node_modules, further up.
  return dir;
}

/**
 * Type-checks the snippets of the given docs, each doc in a program of its own (its prelude's globals
 * are its own). `docs`: `{ file, markdown }`, `file` as it is to be named in errors.
 * Returns the errors (`file:line:column TSxxxx message`) and the counts.
 */
export function checkDocs(docs, { keep = false } = {}) {
  const options = compilerOptions();
  const dir = makeWorkDir();
  const cache = new Map();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  // The libraries, @types/node and the dist types are parsed once for every doc.
  host.getSourceFile = (fileName, language, ...rest) => {
    if (fileName.startsWith(dir)) return getSourceFile(fileName, language, ...rest);
    if (!cache.has(fileName)) cache.set(fileName, getSourceFile(fileName, language, ...rest));
    return cache.get(fileName);
  };
  const errors = [];
  let checked = 0;
  let fragments = 0;
  try {
    docs.forEach(({ file, markdown }, d) => {
      let parsed;
      try {
        parsed = extractSnippets(markdown);
      } catch (error) {
        errors.push(`${file}: ${error.message}`);
        return;
      }
      const origin = new Map();
      const write = (name, code, line) => {
        const path = join(dir, name);
        writeFileSync(path, `${code}\nexport {};\n`);
        origin.set(path, line);
        return path;
      };
      const names = [];
      if (parsed.prelude) names.push(write(`doc${d}-prelude.ts`, parsed.prelude.code, parsed.prelude.line));
      for (const snippet of parsed.snippets) {
        if (snippet.fragment) fragments++;
        else {
          checked++;
          names.push(write(`doc${d}-line${snippet.line}.${snippet.tsx ? 'tsx' : 'ts'}`, snippet.code, snippet.line));
        }
      }
      if (names.length === 0) return;
      const program = ts.createProgram({ rootNames: names, options, host });
      const found = [];
      for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
        const source = diagnostic.file;
        if (!source || !origin.has(source.fileName)) {
          found.push({ line: 0, column: 0, text: `${file}: TS${diagnostic.code} ${message}${source ? ` (in ${relative(root, source.fileName)})` : ''}` });
          continue;
        }
        const at = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const line = origin.get(source.fileName) + at.line;
        found.push({ line, column: at.character + 1, text: `${file}:${line}:${at.character + 1} TS${diagnostic.code} ${message}` });
      }
      // In the doc's order (the program reports them file by file).
      errors.push(...found.sort((a, b) => a.line - b.line || a.column - b.column).map((e) => e.text));
    });
  } finally {
    if (!keep) {
      rmSync(dir, { recursive: true, force: true });
      try {
        rmdirSync(join(dir, '..')); // unless another run is using it
      } catch {
        // not empty
      }
    }
  }
  return { errors, checked, fragments };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const files = args.filter((a) => a !== '--keep');
  const docs = (files.length > 0 ? files : docFiles()).map((file) => ({ file, markdown: readFileSync(join(root, file), 'utf8') }));
  const { errors, checked, fragments } = checkDocs(docs, { keep });
  for (const error of errors) console.error(error);
  const summary = `${checked} snippets in ${docs.length} docs type-checked, ${fragments} marked fragment`;
  if (errors.length > 0) {
    console.error(`✖ ${errors.length} error(s); ${summary}`);
    process.exit(1);
  }
  console.log(`✔ ${summary}`);
}
