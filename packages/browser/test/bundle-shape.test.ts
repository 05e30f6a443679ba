import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_BUDGET_BYTES, measureInitialLoad } from '../../../scripts/bundle-shape.mjs';
import { BROWSER_DIST, chromiumAvailable, launchChromium } from './helpers/chromium.js';

// A web app's first request (the card) goes out before the task engine and the card reader are loaded:
// connect() imports both while that request is out (D26). Once it has read the card it loads the binding
// and the protocol version's writers the card names, and nothing of the others (D23). These read the
// BUILT packages (run `pnpm build`).

/** Core's modules loaded by `import()`, as the built files are named: the two connect() starts with, then per binding and per version. */
const MODULES = {
  engine: /core\/dist\/engine-[^/]+\.js$/,
  reader: /core\/dist\/normalize-card-[^/]+\.js$/,
  jsonrpc: /core\/dist\/jsonrpc-transport-[^/]+\.js$/,
  rest: /core\/dist\/rest-transport-[^/]+\.js$/,
  v1: /core\/dist\/encode-v1-[^/]+\.js$/,
  v03: /core\/dist\/encode-v03-[^/]+\.js$/,
} as const;
type Module = keyof typeof MODULES;

function modulesIn(inputs: readonly string[]): Module[] {
  return (Object.keys(MODULES) as Module[]).filter((name) => inputs.some((input) => MODULES[name].test(input)));
}

describe('the initial load of a web app (code splitting)', () => {
  it('holds no task engine, no card reader, no binding and no version writers: each is a chunk of its own, loaded by import()', async () => {
    const { initial, all } = await measureInitialLoad();
    expect(modulesIn(initial.chunks.flatMap((c) => c.inputs))).toEqual([]);
    const lazy = all.chunks.filter((c) => !initial.chunks.includes(c));
    for (const name of Object.keys(MODULES) as Module[]) {
      expect(lazy.filter((c) => modulesIn(c.inputs).includes(name)), name).toHaveLength(1);
    }
  });

  it('textOf() loads only where imported: the small app holds none of it, and importing it adds a few bytes to the first load', async () => {
    const plain = await measureInitialLoad();
    const withText = await measureInitialLoad(`
import { connect, textOf } from '@a2a-tether/browser';
export async function ask(text) {
  const client = await connect(location.origin);
  const task = await client.start(text);
  return textOf(await task.done());
}
`);
    // Were it in the first load whether imported or not, importing it would add nothing.
    const added = withText.initial.minifiedBytes - plain.initial.minifiedBytes;
    expect(added).toBeGreaterThan(100);
    expect(added).toBeLessThan(400);
  });

  it(`stays within its budget (${INITIAL_BUDGET_BYTES} B min+gzip)`, async () => {
    const { initial } = await measureInitialLoad();
    expect(initial.gzipBytes).toBeLessThanOrEqual(INITIAL_BUDGET_BYTES);
  });
});

const PAGE_SCRIPT = `
import { connect } from '${BROWSER_DIST}';
window.tether = {
  async connect(url, prefs) {
    const client = await connect(url, { ...prefs, cardCache: false });
    return client.interface;
  },
  async run(url, prefs) {
    const client = await connect(url, { ...prefs, cardCache: false });
    const handle = await client.start('stream updates=1 chunks=2 delayMs=5');
    const task = await handle.done();
    return { iface: client.interface, state: task.status.state };
  },
};
`;

/** The page script bundled as a web app is (code splitting), every chunk served; which ones the page fetched. */
interface SplitSite {
  readonly origin: string;
  /** The modules in the chunks fetched since the last `reset()`. */
  loaded(): Module[];
  reset(): void;
  close(): Promise<void>;
}

async function serveSplitPage(script: string): Promise<SplitSite> {
  const bundle = await build({
    stdin: { contents: script, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js', sourcefile: 'app.js' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    outdir: fileURLToPath(new URL('../test-output/bundle-shape/', import.meta.url)),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const files = new Map(bundle.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => [basename(f.path), f.text]));
  const inputs = new Map(Object.entries(bundle.metafile.outputs).map(([path, out]) => [basename(path), Object.keys(out.inputs)]));
  let fetched: string[] = [];
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    const js = files.get(name);
    if (js !== undefined) {
      fetched.push(name);
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(js);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/stdin.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    loaded: () => modulesIn(fetched.flatMap((name) => inputs.get(name) ?? [])),
    reset: () => {
      fetched = [];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const available = chromiumAvailable('the code-splitting test');

describe.skipIf(!available)('a web app in real Chromium loads only what the card names', () => {
  let browser: Browser;
  let site: SplitSite;
  let agent: TestAgent;

  beforeAll(async () => {
    site = await serveSplitPage(PAGE_SCRIPT);
    agent = await startTestAgent();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await site?.close();
  });

  it.each([
    ['JSONRPC', '1.0', ['engine', 'reader', 'jsonrpc', 'v1']],
    ['HTTP+JSON', '1.0', ['engine', 'reader', 'rest', 'v1']],
    ['JSONRPC', '0.3', ['engine', 'reader', 'jsonrpc', 'v03']],
    ['HTTP+JSON', '0.3', ['engine', 'reader', 'rest', 'v03']],
  ] as const)('%s v%s: a task runs to its end with only %j loaded', async (binding, version, expected) => {
    // A fresh context: nothing cached, no module loaded by an earlier case.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      site.reset();
      await page.goto(`${site.origin}/`);
      await page.waitForFunction(() => 'tether' in window);
      expect(site.loaded(), 'before connect()').toEqual([]);
      const result = await page.evaluate(
        ([url, b, v]) =>
          (window as unknown as { tether: { run: (u: string, p: object) => Promise<unknown> } }).tether.run(url, { preferredBindings: [b], protocolVersions: [v] }),
        [agent.url, binding, version] as const,
      );
      expect(result).toMatchObject({ iface: { binding, protocolVersion: version }, state: 'completed' });
      expect(site.loaded()).toEqual(expected);
    } finally {
      await context.close();
    }
  });

  it('connect() alone loads the task engine: its import starts with the card request, not at the first start()', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      site.reset();
      await page.goto(`${site.origin}/`);
      await page.waitForFunction(() => 'tether' in window);
      const iface = await page.evaluate(
        (url) => (window as unknown as { tether: { connect: (u: string, p: object) => Promise<unknown> } }).tether.connect(url, { preferredBindings: ['JSONRPC'], protocolVersions: ['1.0'] }),
        agent.url,
      );
      expect(iface).toMatchObject({ binding: 'JSONRPC' });
      expect(site.loaded()).toEqual(['engine', 'reader', 'jsonrpc', 'v1']);
    } finally {
      await context.close();
    }
  });
});
