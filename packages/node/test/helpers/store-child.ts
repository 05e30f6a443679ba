// Running the file-store child (fixtures/file-store-child.ts) from the store tests: once to its end,
// or until a SIGKILL after a number of acknowledged writes.
import { spawn } from 'node:child_process';
import { chmod, copyFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { bundleChild } from './bundle-child.js';

/** `true` when a user who is not the owner (nobody) can reach and run `path`: o+x on it and each directory up. */
async function othersCanRun(path: string): Promise<boolean> {
  for (let p = path; ; p = dirname(p)) {
    if (((await stat(p)).mode & 0o001) === 0) return false;
    if (dirname(p) === p) return true;
  }
}

/** A child that runs longer than this is killed and fails its test. */
export const CHILD_TIMEOUT_MS = 20_000;

/** What a crash round saw before its kill. */
export interface RoundOutcome {
  /** The last acknowledged seq of each id. */
  acked: Map<string, number>;
  /** Writes acknowledged in all. */
  writes: number;
}

/** The file-store child, bundled on first use. */
export interface StoreChild {
  /** Runs the child to its end; as nobody when `asNobody` and the tests run as root. Rejects unless it exits with 0. */
  run(args: string[], options?: { asNobody?: boolean }): Promise<{ stdout: string }>;
  /** Runs the child until it has printed `killAfter` lines `ack <id> <seq>`, waits `extraMs`, and SIGKILLs it. */
  crashRound(args: string[], killAfter: number, extraMs: number): Promise<RoundOutcome>;
}

/**
 * The child of fixtures/file-store-child.ts. Its bundle's directory is pushed onto `cleanup` (readable
 * by everyone, for a child that runs as nobody) for the caller to remove.
 */
export function storeChild(cleanup: string[]): StoreChild {
  let script: Promise<string> | undefined;
  let bundleDir = '';
  const bundled = (): Promise<string> => {
    script ??= bundleChild(new URL('../fixtures/file-store-child.ts', import.meta.url)).then((bundle) => {
      cleanup.push(bundle.dir);
      bundleDir = bundle.dir;
      return bundle.script;
    });
    return script;
  };
  // A Node that nobody can run: this one, unless it lives where nobody cannot reach (a Node from an npm
  // package in root's npx cache, as the Node 22 and 24 runs use), then a copy beside the bundle.
  let nobodyNode: Promise<string> | undefined;
  const nodeForNobody = (): Promise<string> => {
    nobodyNode ??= othersCanRun(process.execPath).then(async (ok) => {
      if (ok) return process.execPath;
      const copy = join(bundleDir, 'node');
      await copyFile(process.execPath, copy);
      await chmod(copy, 0o755);
      return copy;
    });
    return nobodyNode;
  };

  async function run(args: string[], { asNobody = false } = {}): Promise<{ stdout: string }> {
    const nobody = asNobody && process.getuid?.() === 0;
    const childScript = await bundled();
    const node = nobody ? await nodeForNobody() : process.execPath;
    const child = spawn(node, [childScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(nobody ? { uid: 65534, gid: 65534 } : {}) });
    let stdout = '';
    let stderr = '';
    child.on('error', (error) => (stderr += `could not start ${node}: ${String(error)}`));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve).on('error', () => resolve(null)));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`child ${args.join(' ')} exited with ${code}: ${stderr}`);
    return { stdout };
  }

  async function crashRound(args: string[], killAfter: number, extraMs: number): Promise<RoundOutcome> {
    const child = spawn(process.execPath, [await bundled(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<string, number>();
    let writes = 0;
    let stderr = '';
    let buffered = '';
    let killing = false;
    const kill = (): void => {
      if (killing) return;
      killing = true;
      setTimeout(() => child.kill('SIGKILL'), extraMs);
    };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [kind, id, seq] = line.split(' ');
        if (kind !== 'ack' || !id) continue;
        acked.set(id, Number(seq));
        if (++writes >= killAfter) kill();
      }
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    clearTimeout(guard);
    if (!killing || signal !== 'SIGKILL') {
      throw new Error(`${args.join(' ')}: the child ended by itself (exit ${code}, signal ${signal}) after ${writes} writes: ${stderr}`);
    }
    return { acked, writes };
  }

  return { run, crashRound };
}
