import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';

// What the real-browser tests share: Debian's Chromium (never a downloaded one; required when CI=true),
// and a test page — a script bundled by esbuild for the browser platform — served on its own origin.

/** Where the tests look for Chromium: TETHER_CHROMIUM, else Debian's. */
export const CHROMIUM = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';

/** Whether the real-browser tests can run here; under CI=true a missing Chromium fails the run. */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available && process.env['CI'] === 'true') {
    throw new Error(`CI=true and no Chromium at ${CHROMIUM}: browser tests must run in CI (.ci/run installs it)`);
  }
  if (!available) console.warn(`⚠ skipping ${what}: no Chromium at ${CHROMIUM}`);
  return available;
}

/** The BUILT browser package's entry, for a page script to import (tests check what users get). */
export const BROWSER_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** Headless Chromium with the flags this machine needs (no sandbox, no GPU, no background traffic). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A served test page. */
export interface TestSite {
  /** `http://127.0.0.1:<port>` — another origin than any agent's. */
  readonly origin: string;
  close(): Promise<void>;
}

/** How {@link servePage} bundles: where bare imports resolve from (default this test directory), constants to define. */
export interface PageBundleOptions {
  resolveDir?: string | undefined;
  define?: Record<string, string> | undefined;
  /** Serves every path under `/api/` on the page's own origin (e.g. a relay route). */
  api?: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
}

/** Bundles `script` (imports resolved from this test directory) and serves it as a page's module script. */
export async function servePage(script: string, options: PageBundleOptions = {}): Promise<TestSite> {
  const bundle = await build({
    stdin: { contents: script, resolveDir: options.resolveDir ?? fileURLToPath(new URL('..', import.meta.url)), loader: 'js' },
    ...(options.define ? { define: options.define } : {}),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const js = bundle.outputFiles[0]?.text ?? '';
  const server = createServer((req, res) => {
    if (options.api && req.url?.startsWith('/api/')) options.api(req, res);
    else if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
