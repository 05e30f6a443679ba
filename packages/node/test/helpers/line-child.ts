// A bundled child process (helpers/bundle-child.ts) that talks to its test in lines on stdout: the test
// waits for a line, SIGKILLs the child, or waits for its exit — every wait bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running child and what it printed so far. */
export interface LineChild {
  readonly process: ChildProcess;
  /** Every complete stdout line so far, in order. */
  readonly lines: readonly string[];
  /** Its stderr so far (for failure messages). */
  stderr(): string;
  /** Resolves with the first line (printed so far or later) that matches; rejects after `timeoutMs` or when the child exits first. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number, what: string): Promise<string>;
  /** Resolves once the child has exited; rejects after `timeoutMs` (the child is then SIGKILLed). */
  exit(timeoutMs: number): Promise<ChildExit>;
  /** SIGKILLs the child (when still running) and waits for its exit. */
  kill(): Promise<ChildExit>;
}

/** Spawns `node <script> ...args`; push the result onto a list that `afterEach` kills. */
export function spawnLineChild(script: string, args: string[]): LineChild {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let buffered = '';
  let stderr = '';
  let ended: ChildExit | undefined;
  const exited = new Promise<ChildExit>((resolve) =>
    child.on('exit', (code, signal) => {
      ended = { code, signal };
      resolve(ended);
      for (const listener of [...listeners]) listener();
    }),
  );
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
    for (const listener of [...listeners]) listener();
  });

  const describe = (): string => `lines: ${JSON.stringify(lines)}; stderr: ${stderr}`;

  function waitForLine(match: (line: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const found = lines.find(match);
        if (found !== undefined) finish(() => resolve(found));
        else if (ended) finish(() => reject(new Error(`the child exited (${ended?.code ?? ended?.signal}) before ${what}; ${describe()}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} within ${timeoutMs} ms; ${describe()}`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  }

  async function exit(timeoutMs: number): Promise<ChildExit> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the child did not exit within ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function kill(): Promise<ChildExit> {
    if (!ended) child.kill('SIGKILL');
    return exited;
  }

  return { process: child, lines, stderr: () => stderr, waitForLine, exit, kill };
}
