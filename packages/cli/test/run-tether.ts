import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary: the suite builds packages before tests (run `pnpm build` in packages/cli first). */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');

/** What one `tether` run printed and how it exited. */
export interface TetherRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch home for runs: its own HOME (global .env), state dir (local store) and working directory. */
export interface Sandbox {
  home: string;
  cwd: string;
  store: string;
  /** Runs `node dist/cli.js …` with only PATH, HOME and XDG_STATE_HOME set (plus `env`). */
  run(args: readonly string[], options?: { env?: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number }): Promise<TetherRun>;
  remove(): void;
}

/** Makes a sandbox in the system temp directory. */
export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'tether-cli-'));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  const state = join(root, 'state');
  return {
    home,
    cwd,
    store: join(state, 'tether', 'tasks'),
    run(args, options = {}) {
      return runTether(args, { cwd: options.cwd ?? cwd, env: { HOME: home, XDG_STATE_HOME: state, ...options.env }, input: options.input, timeoutMs: options.timeoutMs });
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Spawns the CLI (asynchronously: the agents of a test run in the test's own process); `timeoutMs` kills a run that hangs (code -1). */
export function runTether(args: readonly string[], options: { cwd: string; env: Record<string, string>; input?: string | undefined; timeoutMs?: number | undefined }): Promise<TetherRun> {
  return new Promise((resolve, reject) => {
    mkdirSync(options.cwd, { recursive: true });
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env['PATH'] ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
