import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

// Issue 33, point 9: a `.env` in a shared parent directory (e.g. /tmp) sent the user's bearer token to an
// agent the file named. A `.env` that is not the user's (nor root's), or that others can write, is now
// ignored with a warning; the token goes nowhere. Counted at the planted agent: requests, and the
// Authorization header of each.

const TOKEN = 'users-own-bearer-5150';
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

let planted: TestAgent;
let box: Sandbox;

beforeAll(async () => {
  planted = await startTestAgent();
});
afterAll(async () => {
  await planted?.close();
});
afterEach(() => box?.remove());

/** Requests the planted agent got (the card included), and how many carried the user's token. */
function seen(): { requests: number; withToken: number } {
  const requests = planted.requests;
  return { requests: requests.length, withToken: requests.filter((r) => JSON.stringify(r.headers).includes(TOKEN)).length };
}

/** A sandbox whose working directory is two levels below a directory holding `.env` (naming the planted agent). */
function plant(mode: number, uid?: number): { file: string; deep: string } {
  box = sandbox();
  const deep = join(box.cwd, 'project', 'src');
  mkdirSync(deep, { recursive: true });
  const file = join(box.cwd, '.env');
  writeFileSync(file, `A2ACLI_AGENT_CARD=${planted.url}\nA2ACLI_OUTPUT=json\n`);
  chmodSync(file, mode);
  if (uid !== undefined) chownSync(file, uid, uid);
  planted.requests.length = 0;
  return { file, deep };
}

describe('a .env in a parent directory', () => {
  it('the user\'s own, mode 0600: read (the control case: the token does reach the agent it names)', async () => {
    const { deep } = plant(0o600);
    const run = await box.run(['send', '--text', 'echo hi'], { cwd: deep, env: { A2ACLI_BEARER: TOKEN } });
    expect(run.code, run.stderr).toBe(0);
    expect(seen().withToken).toBeGreaterThan(0);
  });

  it('writable by others (0666): ignored with a warning naming it; nothing is sent', async () => {
    const { file, deep } = plant(0o666);
    const run = await box.run(['send', '--text', 'echo hi'], { cwd: deep, env: { A2ACLI_BEARER: TOKEN } });
    expect(run.stderr).toContain(`Warning: ignoring ${file}: others can write it (mode 0666)`);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('A2ACLI_ERR_USAGE');
    expect(seen()).toEqual({ requests: 0, withToken: 0 });
  });

  it('writable by its group (0620): ignored too', async () => {
    const { file, deep } = plant(0o620);
    const run = await box.run(['send', '--text', 'echo hi'], { cwd: deep, env: { A2ACLI_BEARER: TOKEN } });
    expect(run.stderr).toContain(`Warning: ignoring ${file}: its group can write it (mode 0620)`);
    expect(seen()).toEqual({ requests: 0, withToken: 0 });
  });

  it.skipIf(!isRoot)('owned by another user (nobody, mode 0644): ignored with a warning naming the owner; nothing is sent', async () => {
    const { file, deep } = plant(0o644, NOBODY);
    const run = await box.run(['send', '--text', 'echo hi'], { cwd: deep, env: { A2ACLI_BEARER: TOKEN } });
    expect(run.stderr).toContain(`Warning: ignoring ${file}: owned by uid ${NOBODY}, not by you (uid 0) or root`);
    expect(run.code).toBe(2);
    expect(seen()).toEqual({ requests: 0, withToken: 0 });
  });

  it('not a regular file (a FIFO): ignored at once, never read', async () => {
    box = sandbox();
    const deep = join(box.cwd, 'x');
    mkdirSync(deep, { recursive: true });
    execFileSync('mkfifo', [join(box.cwd, '.env')]);
    const run = await box.run(['config', 'show', '-o', 'json'], { cwd: deep, timeoutMs: 15_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Warning: ignoring ${join(box.cwd, '.env')}: not a regular file`);
  });
});

describe('the global file and --config', () => {
  it.skipIf(!isRoot)('a global ~/.config/a2a-cli/.env owned by another user: ignored with a warning', async () => {
    box = sandbox();
    const dir = join(box.home, '.config', 'a2a-cli');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, '.env');
    writeFileSync(file, `A2ACLI_AGENT_CARD=${planted.url}\n`);
    chownSync(file, NOBODY, NOBODY);
    planted.requests.length = 0;
    const run = await box.run(['send', '--text', 'echo hi'], { env: { A2ACLI_BEARER: TOKEN } });
    expect(run.stderr).toContain(`Warning: ignoring ${file}: owned by uid ${NOBODY}`);
    expect(seen()).toEqual({ requests: 0, withToken: 0 });
  });

  it('--config naming a file others can write: a usage error (exit 2) saying why, nothing sent', async () => {
    const { file, deep } = plant(0o646);
    const run = await box.run(['send', '--text', 'echo hi', '--config', file], { cwd: deep, env: { A2ACLI_BEARER: TOKEN } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--config ${file}: others can write it (mode 0646)`);
    expect(seen()).toEqual({ requests: 0, withToken: 0 });
  });
});
