// The public surface (decisions.md D11): core's two entries list every name once; node and browser
// re-export them whole, plus their own `connect`. Checked on the sources, then on what users get:
// the built JS (ESM and CJS, in a plain Node process) and the built type declarations.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as core from '@a2a-tether/core';
import * as coreOrchestrate from '@a2a-tether/core/orchestrate';
import * as coreProtocol from '@a2a-tether/core/protocol';
import * as coreSigning from '@a2a-tether/core/signing';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import ts from 'typescript';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect as browserOwnConnect } from '../../browser/src/connect.js';
import * as browser from '../../browser/src/index.js';
import * as browserProtocol from '../../browser/src/protocol-entry.js';
import * as browserSigning from '../../browser/src/signing-entry.js';
import { connect as nodeOwnConnect } from '../src/connect.js';
import * as node from '../src/index.js';
import { guardedNodeFetch } from '../src/node-fetch.js';
import * as nodeOrchestrate from '../src/orchestrate-entry.js';
import * as nodeProtocol from '../src/protocol-entry.js';
import * as nodeSigning from '../src/signing-entry.js';

const packages = fileURLToPath(new URL('../../', import.meta.url));
// What each platform package adds to core's root entry.
const OWN = { nodeOrchestrate: ['createFileWorkflowStore'], node: ['connect', 'createNodeFetch', 'defaultNodeFetch', 'createPushReceiver', 'PUSH_RECEIVER_DEFAULTS', 'createFileTaskStore', 'classifyAddress', 'NODE_MAX_STREAMS'], browser: ['connect', 'createIndexedDbTaskStore', 'createTabCoordinator', 'canCoordinateTabs', 'pageNetworkSignals'] };

/** `outer` offers every name of `inner`, as the same value, except `own` (its own names). */
function expectReExports(outer: Record<string, unknown>, inner: Record<string, unknown>, own: string[], label: string): void {
  for (const name of Object.keys(inner)) {
    expect(Object.keys(outer), `${label} misses ${name}`).toContain(name);
    if (!own.includes(name)) expect(outer[name], `${label}.${name}`).toBe(inner[name]);
  }
  expect(Object.keys(outer).filter((name) => !(name in inner)).sort(), `${label}: names of its own`).toEqual(own.filter((n) => !(n in inner)).sort());
}

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.close());

/** Runs `body` with a global fetch that records its calls and fails them. */
async function withoutGlobalFetch<T>(body: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; globalCalls: number }> {
  const original = globalThis.fetch;
  let globalCalls = 0;
  globalThis.fetch = (() => {
    globalCalls++;
    return Promise.reject(new TypeError('global fetch is disabled in this test'));
  }) as typeof fetch;
  try {
    const [result] = await Promise.allSettled([body()]);
    return { result: result as PromiseSettledResult<T>, globalCalls };
  } finally {
    globalThis.fetch = original;
  }
}

describe('public surface (sources)', () => {
  it('node and browser offer every root export of core, as the same value, except their own connect', () => {
    expectReExports(node, core, OWN.node, '@a2a-tether/node');
    expectReExports(browser, core, OWN.browser, '@a2a-tether/browser');
  });

  it('node/protocol and browser/protocol are exactly core/protocol', () => {
    expectReExports(nodeProtocol, coreProtocol, [], '@a2a-tether/node/protocol');
    expectReExports(browserProtocol, coreProtocol, [], '@a2a-tether/browser/protocol');
  });

  it('node/signing and browser/signing are exactly core/signing', () => {
    expect(Object.keys(coreSigning)).toContain('cardVerifier');
    expectReExports(nodeSigning, coreSigning, [], '@a2a-tether/node/signing');
    expectReExports(browserSigning, coreSigning, [], '@a2a-tether/browser/signing');
  });

  it('node/orchestrate is core/orchestrate plus the file workflow store', () => {
    expectReExports(nodeOrchestrate, coreOrchestrate, OWN.nodeOrchestrate, '@a2a-tether/node/orchestrate');
  });

  it('each name lives in one entry: the protocol layer and orchestration are not on the root', () => {
    expect(Object.keys(coreProtocol).filter((name) => name in core)).toEqual([]);
    expect(Object.keys(coreProtocol).length).toBeGreaterThan(0);
    expect(Object.keys(coreOrchestrate).filter((name) => name in core || name in coreProtocol)).toEqual([]);
    expect(Object.keys(coreOrchestrate).length).toBeGreaterThan(0);
    expect(OWN.nodeOrchestrate.filter((name) => name in node)).toEqual([]);
  });

  it("connect is each platform's own", () => {
    expect(node.connect).toBe(nodeOwnConnect);
    expect(browser.connect).toBe(browserOwnConnect);
    expect(node.connect).not.toBe(core.connect);
    expect(browser.connect).not.toBe(core.connect);
  });

  it("node's connect fetches through undici's agent, not the global fetch", async () => {
    const viaCore = await withoutGlobalFetch(() => core.connect(agent.url, { cardCache: false }));
    expect(viaCore.result.status, 'control: core uses the global fetch').toBe('rejected');
    expect(viaCore.globalCalls).toBeGreaterThan(0);

    const viaNode = await withoutGlobalFetch(() => node.connect(agent.url, { cardCache: false }));
    expect(viaNode.result.status).toBe('fulfilled');
    expect(viaNode.globalCalls).toBe(0);
    // A loopback agent: the guarded fetch that also reaches private addresses.
    expect(Object.keys((guardedNodeFetch({ allowPrivate: true }).dispatcher as Agent).stats)).toContain(agent.origin);
  });

  it("browser's connect uses the page's fetch", async () => {
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = ((input: string | URL, init?: RequestInit) => {
      seen.push(String(input));
      return original(input, init);
    }) as typeof fetch;
    try {
      await browser.connect(agent.url, { cardCache: false });
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toContain(agent.cardUrl);
  });
});

const DIST = {
  coreEsm: `${packages}core/dist/index.js`,
  coreCjs: `${packages}core/dist/index.cjs`,
  nodeEsm: `${packages}node/dist/index.js`,
  nodeCjs: `${packages}node/dist/index.cjs`,
  browserEsm: `${packages}browser/dist/index.js`,
};

// Runs in a plain Node process: package names resolve as they do for users (no source condition),
// and CJS is loaded by Node's own require. Prints a list of problems as JSON.
const DIST_CHECK = `
import { createRequire } from 'node:module';
const [agentUrl, browserEsm] = process.argv.slice(1);
const require = createRequire(process.cwd() + '/');
const problems = [];
const entries = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule');
function reExports(label, outer, inner, own) {
  for (const name of entries(inner)) {
    if (!(name in outer)) problems.push(label + ' misses ' + name);
    else if (!own.includes(name) && outer[name] !== inner[name]) problems.push(label + '.' + name + ' is not core\\'s');
  }
  if (own.includes('connect') && outer.connect === inner.connect) problems.push(label + '.connect is core\\'s');
}
function resolved(label, specifier, want) {
  const file = require.resolve(specifier);
  if (!file.includes('/dist/') || !file.endsWith(want)) problems.push(label + ' resolved to ' + file);
}
resolved('require @a2a-tether/node', '@a2a-tether/node', '.cjs');
resolved('require @a2a-tether/core/protocol', '@a2a-tether/core/protocol', '.cjs');
resolved('require @a2a-tether/node/orchestrate', '@a2a-tether/node/orchestrate', '.cjs');
resolved('require @a2a-tether/node/signing', '@a2a-tether/node/signing', '.cjs');

const esm = { core: await import('@a2a-tether/core'), coreProtocol: await import('@a2a-tether/core/protocol'),
  coreOrchestrate: await import('@a2a-tether/core/orchestrate'),
  node: await import('@a2a-tether/node'), nodeProtocol: await import('@a2a-tether/node/protocol'),
  nodeOrchestrate: await import('@a2a-tether/node/orchestrate'),
  coreSigning: await import('@a2a-tether/core/signing'), nodeSigning: await import('@a2a-tether/node/signing'),
  browser: await import(browserEsm), browserProtocol: await import(new URL('protocol.js', browserEsm).href),
  browserSigning: await import(new URL('signing.js', browserEsm).href) };
const cjs = { core: require('@a2a-tether/core'), coreProtocol: require('@a2a-tether/core/protocol'),
  coreOrchestrate: require('@a2a-tether/core/orchestrate'),
  node: require('@a2a-tether/node'), nodeProtocol: require('@a2a-tether/node/protocol'),
  nodeOrchestrate: require('@a2a-tether/node/orchestrate'),
  coreSigning: require('@a2a-tether/core/signing'), nodeSigning: require('@a2a-tether/node/signing') };
reExports('esm node', esm.node, esm.core, ['connect']);
reExports('esm browser', esm.browser, esm.core, ['connect']);
reExports('esm node/protocol', esm.nodeProtocol, esm.coreProtocol, []);
reExports('esm browser/protocol', esm.browserProtocol, esm.coreProtocol, []);
reExports('cjs node', cjs.node, cjs.core, ['connect']);
reExports('cjs node/protocol', cjs.nodeProtocol, cjs.coreProtocol, []);
reExports('esm node/signing', esm.nodeSigning, esm.coreSigning, []);
reExports('esm browser/signing', esm.browserSigning, esm.coreSigning, []);
reExports('cjs node/signing', cjs.nodeSigning, cjs.coreSigning, []);
reExports('esm node/orchestrate', esm.nodeOrchestrate, esm.coreOrchestrate, []);
reExports('cjs node/orchestrate', cjs.nodeOrchestrate, cjs.coreOrchestrate, []);
for (const [label, m] of [['esm node/orchestrate', esm.nodeOrchestrate], ['cjs node/orchestrate', cjs.nodeOrchestrate]]) {
  if (typeof m.createFileWorkflowStore !== 'function') problems.push(label + ' misses createFileWorkflowStore');
}
if (entries(esm.core).length !== entries(cjs.core).length) problems.push('core: ESM and CJS differ');

// Behaviour: node's built connect needs no global fetch (it brings undici's).
globalThis.fetch = () => Promise.reject(new TypeError('global fetch is disabled'));
for (const [label, connect] of [['esm node', esm.node.connect], ['cjs node', cjs.node.connect]]) {
  try {
    await connect(agentUrl, { cardCache: false });
  } catch (error) {
    problems.push(label + '.connect used the global fetch: ' + error.message);
  }
}
try {
  await esm.core.connect(agentUrl, { cardCache: false });
  problems.push('control: core.connect worked without a global fetch');
} catch {}
console.log(JSON.stringify(problems));
process.exit(0);
`;

describe('public surface (built)', () => {
  it('has been built (run `pnpm build` first)', () => {
    for (const file of Object.values(DIST)) expect(existsSync(file), `${file} is missing`).toBe(true);
  });

  it('only the ./orchestrate subpath loads core/orchestrate, never the root entry', () => {
    const loadsOrchestrate = /(?:from\s*|import\(\s*|require\(\s*)["']@a2a-tether\/core\/orchestrate["']/;
    for (const file of [DIST.nodeEsm, DIST.nodeCjs]) expect(readFileSync(file, 'utf8'), file).not.toMatch(loadsOrchestrate);
    expect(readFileSync(`${packages}node/dist/orchestrate.js`, 'utf8')).toMatch(loadsOrchestrate);
    expect(readFileSync(`${packages}node/dist/orchestrate.cjs`, 'utf8')).toMatch(loadsOrchestrate);
  });

  it('only the ./redis subpath loads the redis client, never the root entry', () => {
    const loadsRedis = /(?:from\s*|import\(\s*|require\(\s*)["']redis["']/;
    for (const file of [DIST.nodeEsm, DIST.nodeCjs]) expect(readFileSync(file, 'utf8'), file).not.toMatch(loadsRedis);
    expect(readFileSync(`${packages}node/dist/redis.js`, 'utf8')).toMatch(loadsRedis);
    expect(readFileSync(`${packages}node/dist/redis.cjs`, 'utf8')).toMatch(loadsRedis);
  });

  it('only the ./grpc subpath loads @grpc/grpc-js and @bufbuild/protobuf (optional peers), never the root entry', () => {
    const loadsGrpc = /(?:from\s*|import\(\s*|require\(\s*)["']@grpc\/grpc-js["']/;
    const loadsProtobuf = /(?:from\s*|import\(\s*|require\(\s*)["']@bufbuild\/protobuf(?:\/[a-z]+)?["']/;
    for (const file of [DIST.nodeEsm, DIST.nodeCjs]) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(loadsGrpc);
      expect(readFileSync(file, 'utf8'), file).not.toMatch(loadsProtobuf);
    }
    // Nor through a shared chunk: no other built file loads the gRPC entry (a bundler may host its helpers
    // in whichever entry comes first, and `require('@a2a-tether/node')` would then need @grpc/grpc-js).
    const loadsGrpcEntry = /["']\.\/grpc\.c?js["']/;
    for (const file of readdirSync(`${packages}node/dist`).filter((f) => /\.c?js$/.test(f) && !f.startsWith('grpc.'))) {
      expect(readFileSync(`${packages}node/dist/${file}`, 'utf8'), file).not.toMatch(loadsGrpcEntry);
    }
    for (const file of ['grpc.js', 'grpc.cjs']) {
      expect(readFileSync(`${packages}node/dist/${file}`, 'utf8')).toMatch(loadsGrpc);
      expect(readFileSync(`${packages}node/dist/${file}`, 'utf8')).toMatch(loadsProtobuf);
    }
  });

  it('the built ESM and CJS of node and browser re-export core, with their own connect', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env['NODE_OPTIONS'];
    // Not spawnSync: the test agent answers the child from this process.
    const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', DIST_CHECK, agent.url, new URL(`file://${DIST.browserEsm}`).href], {
      cwd: `${packages}node`,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout) as string[]).toEqual([]);
  });

  it('the built type declarations offer every core type too, and connect from the platform package', () => {
    const pairs = [
      { outer: `${packages}node/dist/index.d.ts`, inner: `${packages}core/dist/index.d.ts`, own: OWN.node },
      { outer: `${packages}node/dist/index.d.cts`, inner: `${packages}core/dist/index.d.cts`, own: OWN.node },
      { outer: `${packages}browser/dist/index.d.ts`, inner: `${packages}core/dist/index.d.ts`, own: OWN.browser },
      { outer: `${packages}node/dist/protocol.d.ts`, inner: `${packages}core/dist/protocol.d.ts`, own: [] },
      { outer: `${packages}node/dist/protocol.d.cts`, inner: `${packages}core/dist/protocol.d.cts`, own: [] },
      { outer: `${packages}browser/dist/protocol.d.ts`, inner: `${packages}core/dist/protocol.d.ts`, own: [] },
      { outer: `${packages}node/dist/orchestrate.d.ts`, inner: `${packages}core/dist/orchestrate.d.ts`, own: OWN.nodeOrchestrate },
      { outer: `${packages}node/dist/orchestrate.d.cts`, inner: `${packages}core/dist/orchestrate.d.cts`, own: OWN.nodeOrchestrate },
      { outer: `${packages}node/dist/signing.d.ts`, inner: `${packages}core/dist/signing.d.ts`, own: [] },
      { outer: `${packages}node/dist/signing.d.cts`, inner: `${packages}core/dist/signing.d.cts`, own: [] },
      { outer: `${packages}browser/dist/signing.d.ts`, inner: `${packages}core/dist/signing.d.ts`, own: [] },
    ];
    // Only Tether's own declarations are loaded (no lib, no undici or zod types): names and where
    // they are declared is all this needs, and it keeps the check fast.
    const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noLib: true, types: [] };
    const host = ts.createCompilerHost(options);
    host.resolveModuleNameLiterals = (literals, containingFile, _redirect, compilerOptions, containingSource) =>
      literals.map((literal) =>
        literal.text.startsWith('@a2a-tether/') || literal.text.startsWith('.')
          ? ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, undefined, undefined, ts.getModeForUsageLocation(containingSource, literal, compilerOptions))
          : { resolvedModule: undefined },
      );
    const program = ts.createProgram({ rootNames: pairs.flatMap((p) => [p.outer, p.inner]), options, host });
    const checker = program.getTypeChecker();
    const exportsOf = (file: string): Map<string, ts.Symbol> => {
      const source = program.getSourceFile(file);
      const module = source && checker.getSymbolAtLocation(source);
      if (!module) throw new Error(`${file}: not a module`);
      const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
      return new Map(checker.getExportsOfModule(module).map((s) => [s.name, resolve(s)]));
    };
    for (const { outer, inner, own } of pairs) {
      const outerExports = exportsOf(outer);
      const innerExports = exportsOf(inner);
      expect(innerExports.size, inner).toBeGreaterThan(5);
      for (const [name, symbol] of innerExports) {
        expect(outerExports.has(name), `${outer} misses ${name}`).toBe(true);
        if (!own.includes(name)) expect(outerExports.get(name) === symbol, `${outer}: ${name} is not core's`).toBe(true);
      }
      for (const name of own) {
        const declared = outerExports.get(name)?.declarations?.[0]?.getSourceFile().fileName;
        expect(declared, `${outer}: where ${name} is declared`).toBe(outer);
      }
    }
    // Types are reachable, not only values.
    expect(exportsOf(pairs[0]!.outer).has('TaskEvent')).toBe(true);
    expect(exportsOf(pairs[3]!.outer).has('Dialect')).toBe(true);
    expect(exportsOf(pairs[6]!.outer).has('WorkflowRecord')).toBe(true);
    expect(exportsOf(pairs[7]!.outer).has('FileWorkflowStoreOptions')).toBe(true);
    expect(exportsOf(pairs[8]!.outer).has('CardVerifierOptions')).toBe(true);
  });

  // Issue 20: under pnpm an app sees only its own dependencies. The examples are such apps (demo
  // depends on the node package, web-assistant on the browser package; neither on core), so the
  // platform packages' subpaths must resolve from there, to the built files.
  it('an app that depends only on node or browser reaches ./signing and ./protocol through it', async () => {
    // A plain Node process (vitest's workers resolve with the source condition), in the app's directory.
    const RESOLVE = `
      import { createRequire } from 'node:module';
      const require = createRequire(process.cwd() + '/');
      const found = {};
      for (const specifier of process.argv.slice(1)) {
        try { found[specifier] = [import.meta.resolve(specifier), require.resolve(specifier)]; } catch (error) { found[specifier] = error.code; }
      }
      console.log(JSON.stringify(found));`;
    const resolveFrom = async (app: string, specifiers: string[]): Promise<Record<string, string | [string, string]>> => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env['NODE_OPTIONS'];
      const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', RESOLVE, ...specifiers], { cwd: `${packages}../examples/${app}`, env, encoding: 'utf8' });
      return JSON.parse(run.stdout) as Record<string, string | [string, string]>;
    };
    const file = (path: string) => pathToFileURL(`${packages}${path}`).href;
    const demo = await resolveFrom('demo', ['@a2a-tether/core/signing', '@a2a-tether/node/signing', '@a2a-tether/node/protocol']);
    expect(demo['@a2a-tether/core/signing'], 'control: core is not the app’s own dependency').toMatch(/NOT_FOUND/);
    for (const subpath of ['signing', 'protocol']) {
      expect(demo[`@a2a-tether/node/${subpath}`]).toEqual([file(`node/dist/${subpath}.js`), `${packages}node/dist/${subpath}.cjs`]);
    }
    const web = await resolveFrom('web-assistant', ['@a2a-tether/core/signing', '@a2a-tether/browser/signing', '@a2a-tether/browser/protocol']);
    expect(web['@a2a-tether/core/signing'], 'control').toMatch(/NOT_FOUND/);
    for (const subpath of ['signing', 'protocol']) {
      expect(web[`@a2a-tether/browser/${subpath}`]?.[0]).toBe(file(`browser/dist/${subpath}.js`));
    }
  });
});
