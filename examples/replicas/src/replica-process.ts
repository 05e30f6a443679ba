// main.ts's handle on one replica process: starts replica.ts as a child process (the same Node and loader
// flags as this process: tsx), sends it commands, and waits for what it reports — every wait bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ReplicaCommand, ReplicaMessage } from './protocol.js';

const SCRIPT = fileURLToPath(new URL('./replica.ts', import.meta.url));

/** A message of one type. */
export type MessageOf<T extends ReplicaMessage['type']> = Extract<ReplicaMessage, { type: T }>;

export interface ReplicaProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Every message it reported so far, in order. */
  readonly messages: readonly ReplicaMessage[];
  /** Whether the process has exited. */
  readonly exited: boolean;
  send(command: ReplicaCommand): void;
  /**
   * The first message of `type` (at index `from` or later of `messages`, reported already or to come) that
   * `match` accepts. Rejects after `timeoutMs`, or when the process exits first.
   */
  waitFor<T extends ReplicaMessage['type']>(type: T, what: string, options?: { match?: (message: MessageOf<T>) => boolean; from?: number; timeoutMs?: number }): Promise<MessageOf<T>>;
  /** Sends `command` and waits for the first `type` message reported after it. */
  ask<T extends ReplicaMessage['type']>(command: ReplicaCommand, type: T, what: string): Promise<MessageOf<T>>;
  /** SIGKILL: the process dies at once, as in a crash. Resolves once it has exited. */
  kill(): Promise<void>;
  /** Asks it to exit; SIGKILLs it when it has not within 3 s. */
  stop(): Promise<void>;
}

export function startReplica(name: string, args: string[], env: Record<string, string>): ReplicaProcess {
  const child = spawn(process.execPath, [...process.execArgv, SCRIPT, name, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const messages: ReplicaMessage[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let exited = false;
  // 'close', not 'exit': by then every line it wrote has been read.
  const exit = once(child, 'close').then(() => {
    exited = true;
    for (const listener of [...listeners]) listener();
  });
  child.stdin?.on('error', () => undefined); // writing to a replica that was just killed
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      messages.push(JSON.parse(line) as ReplicaMessage);
    } catch {
      stderr += `${line}\n`; // not a report: keep it for a failure message
    }
    for (const listener of [...listeners]) listener();
  });

  function waitFor<T extends ReplicaMessage['type']>(type: T, what: string, options: { match?: (message: MessageOf<T>) => boolean; from?: number; timeoutMs?: number } = {}): Promise<MessageOf<T>> {
    const { match = () => true, from = 0, timeoutMs = 30_000 } = options;
    type Found = MessageOf<T>;
    return new Promise<Found>((resolve, reject) => {
      const check = (): void => {
        const found = messages.slice(from).find((m): m is Found => m.type === type && match(m as Found));
        if (found) finish(() => resolve(found));
        else if (exited) finish(() => reject(new Error(`${name} exited before ${what}${stderr ? `; its stderr: ${stderr.trim()}` : ''}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`${name}: ${what} did not come within ${timeoutMs} ms`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  }

  const send = (command: ReplicaCommand): void => {
    if (!exited) child.stdin?.write(`${command}\n`);
  };

  return {
    name,
    child,
    messages,
    get exited() {
      return exited;
    },
    send,
    waitFor,
    ask(command, type, what) {
      const from = messages.length;
      send(command);
      return waitFor(type, what, { from });
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
    async stop() {
      if (exited) return;
      send('exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
