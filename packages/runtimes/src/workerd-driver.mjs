// Runs the bundled smoke Worker (worker.mjs) in workerd through Miniflare and prints its version and report.
// Copied beside Miniflare's install (node_modules/.cache/workerd) by run.mjs, and run there under Node 24.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Miniflare } from 'miniflare';

const require = createRequire(import.meta.url);
const miniflare = require('miniflare/package.json').version;
const workerd = require('workerd/package.json').version;
console.log(`workerd ${workerd} (Miniflare ${miniflare}, Node ${process.versions.node})`);
const mf = new Miniflare({
  modules: true,
  scriptPath: 'worker.mjs',
  script: readFileSync('worker.mjs', 'utf8'),
  // The newest date this workerd knows; no compatibility flags (no nodejs_compat).
  compatibilityDate: '2026-05-03',
  durableObjects: { TASKS: 'TaskObject' },
});
try {
  const response = await mf.dispatchFetch('http://smoke.local/durable', { method: 'POST', body: readFileSync('config.json', 'utf8') });
  const report = await response.json();
  console.log(`SMOKE ${JSON.stringify(report)}`);
  process.exitCode = report.checks.every((c) => c.ok) ? 0 : 1;
} finally {
  await mf.dispose();
}
