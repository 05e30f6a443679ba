// Planted secrets: distinctive credential values, and a search for them in everything a test could
// observe — errors (message, stack, every field, the cause chain), events, store records and files,
// console output and process warnings.
import { Buffer } from 'node:buffer';
import type { TaskListFilter, TaskRecord, TaskStore } from '@a2a-tether/core';
import { vi } from 'vitest';

/** Every planted value contains this marker, so a search for it finds any of them, whole or cut. */
export const MARK = 'PLANTED';

export const PLANTED = {
  bearer: `${MARK}-bearer-a1b2c3d4`,
  refreshed: `${MARK}-bearer-refreshed-e5f6`,
  wrongBearer: `${MARK}-bearer-wrong-0a0b`,
  apiKey: `${MARK}-apikey-c7d8e9f0`,
  basicUser: 'ann',
  basicPassword: `${MARK}-basic-password-1a2b`,
  hookSignature: `${MARK}-hook-signature-3c4d`,
  receiverToken: `${MARK}-receiver-token-5e6f`,
  hmacSecret: `${MARK}-hmac-secret-7a8b`,
  configToken: `${MARK}-push-config-token-9c0d`,
  cookie: `${MARK}-session-cookie-2e3f`,
} as const;

/** The forms a planted value can take on the wire that do not contain {@link MARK} as such. */
export function encodedForms(extra: readonly string[] = []): string[] {
  const basic = Buffer.from(`${PLANTED.basicUser}:${PLANTED.basicPassword}`).toString('base64');
  const all = [MARK, basic, ...extra];
  for (const value of Object.values(PLANTED)) {
    if (value.includes(MARK)) all.push(Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex'));
  }
  return all;
}

/** Where each needle was found: `where.path: …text…`. */
export class Exposure {
  readonly found: string[] = [];
  private readonly needles: string[];

  constructor(needles: readonly string[] = encodedForms()) {
    this.needles = [...needles];
  }

  /** Adds values to look for (e.g. a token the engine generated, read from the agent's side). */
  also(...needles: string[]): void {
    this.needles.push(...needles.filter((n) => n !== ''));
  }

  /** Searches every string reachable from `value` (non-enumerable fields, getters and causes included). */
  scan(where: string, value: unknown): void {
    const seen = new Set<object>();
    const visit = (item: unknown, path: string, depth: number): void => {
      if (depth > 40) return;
      if (typeof item === 'string') {
        for (const needle of this.needles) {
          const at = item.indexOf(needle);
          if (at >= 0) this.found.push(`${path}: …${item.slice(Math.max(0, at - 60), at + needle.length + 20)}…`);
        }
        return;
      }
      if (typeof item !== 'object' || item === null || seen.has(item)) return;
      seen.add(item);
      if (item instanceof Headers || item instanceof Map) {
        item.forEach((v: unknown, k: unknown) => {
          visit(String(k), `${path}[key]`, depth + 1);
          visit(v, `${path}.${String(k)}`, depth + 1);
        });
        return;
      }
      if (item instanceof Error) visit(String(item), `${path}.toString()`, depth + 1);
      for (const key of Reflect.ownKeys(item)) {
        const name = String(key);
        visit(name, `${path}[key]`, depth + 1);
        let child: unknown;
        try {
          child = (item as Record<PropertyKey, unknown>)[key];
        } catch {
          continue;
        }
        visit(child, `${path}.${name}`, depth + 1);
      }
    };
    visit(where, '(label)', 0);
    visit(value, where, 0);
  }

  /** Searches a text (a file, a Redis value). */
  scanText(where: string, text: string): void {
    this.scan(where, text);
  }
}

/** A store that keeps a copy of every record written to it (what any store, IndexedDB included, is given). */
export class RecordingStore implements TaskStore {
  readonly writes: TaskRecord[] = [];

  constructor(private readonly inner: TaskStore) {}

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.inner.get(taskId);
  }

  async put(record: TaskRecord): Promise<void> {
    this.writes.push(structuredClone(record));
    await this.inner.put(record);
  }

  async update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    const next = await this.inner.update(taskId, change);
    if (next !== undefined) this.writes.push(structuredClone(next));
    return next;
  }

  list(filter?: TaskListFilter): Promise<TaskRecord[]> {
    return this.inner.list(filter);
  }

  delete(taskId: string): Promise<void> {
    return this.inner.delete(taskId);
  }
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/** Records (and silences) what reaches the console and `process.emitWarning`; `stop()` restores them. */
export function watchLogs(): { lines: unknown[][]; stop: () => void } {
  const lines: unknown[][] = [];
  const spies = CONSOLE_METHODS.map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push([method, ...args]);
    }),
  );
  const warning = vi.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => {
    lines.push(['emitWarning', ...args]);
  });
  return {
    lines,
    stop: () => {
      for (const spy of spies) spy.mockRestore();
      warning.mockRestore();
    },
  };
}

/** How a secured card asks for its credential. */
export type Scheme = 'bearer' | 'header' | 'query';

/** A v1.0 card with one JSON-RPC interface at `rpc`, requiring a bearer token, or an API key in a header or the query. */
export function securedCard(rpc: string, scheme: Scheme): object {
  const schemes =
    scheme === 'bearer'
      ? { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }
      : { key: { apiKeySecurityScheme: { location: scheme, name: scheme === 'query' ? 'token' : 'X-API-Key' } } };
  return {
    name: 'echo',
    description: 'echoes what it was sent',
    version: '1',
    supportedInterfaces: [{ url: rpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    securitySchemes: schemes,
    securityRequirements: [{ schemes: { [Object.keys(schemes)[0] as string]: { list: [] } } }],
  };
}
