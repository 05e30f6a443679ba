// The behaviour every TaskStore must have, as plain async cases: no test framework, no Node APIs, so
// the same cases check the memory, file, Redis and IndexedDB stores (and a user's own).

/**
 * The record fields the contract relies on (a structural subset of `TaskRecord` of
 * @a2a-tether/core). Stores must treat the rest of a record as opaque JSON and keep it unchanged.
 */
export interface ContractTaskRecord {
  schemaVersion: number;
  taskId: string;
  agentUrl: string;
  state: string;
}

/** Which records `list` returns (structurally `TaskListFilter` of @a2a-tether/core). */
export interface ContractListFilter {
  active?: boolean | undefined;
  agentUrl?: string | undefined;
}

/**
 * A task store as the contract sees it: every `TaskStore` of @a2a-tether/core is one. `key` is a task's
 * key, its agent and its id together (`taskKey(agentUrl, taskId)` of @a2a-tether/core, which is
 * {@link contractTaskKey}); `put` files a record under its own.
 */
export interface TaskStoreLike {
  get(key: string): Promise<ContractTaskRecord | undefined>;
  put(record: ContractTaskRecord): Promise<void>;
  update(
    key: string,
    change: (current: ContractTaskRecord | undefined) => ContractTaskRecord | undefined,
  ): Promise<ContractTaskRecord | undefined>;
  list(filter?: ContractListFilter): Promise<ContractTaskRecord[]>;
  delete(key: string): Promise<void>;
}

/** The key of a task: its agent and its id together, as `taskKey` of @a2a-tether/core makes it. */
export function contractTaskKey(agentUrl: string, taskId: string): string {
  return JSON.stringify([agentUrl, taskId]);
}

/** Options of {@link taskStoreContract}. */
export interface TaskStoreContractOptions<S extends TaskStoreLike = TaskStoreLike> {
  /** Called after each case (passed or failed) with the store it made: close connections, remove files. */
  dispose?: ((store: S) => void | Promise<void>) | undefined;
  /** How many concurrent `update`s the atomicity case runs on one task. Default 50. */
  concurrentUpdates?: number | undefined;
  /** The `schemaVersion` of the records the cases write. Default 1 (`TASK_RECORD_VERSION` of @a2a-tether/core). */
  schemaVersion?: number | undefined;
  /**
   * Lets the contract plant values that are not task records where the store keeps a task's record
   * (what a bug, an older or newer version, or a person with a Redis shell may leave), to check that one
   * bad record never hides the others. Every store that persists records should give it; a store that
   * cannot hold a bad value (memory) leaves it out, and these cases are not run.
   */
  corruption?: StoreCorruption<S> | undefined;
}

/** How the contract plants bad records in a store (see {@link TaskStoreContractOptions.corruption}). */
export interface StoreCorruption<S> {
  /**
   * Stores `raw` where the store keeps the record of the task of `key` ({@link contractTaskKey}), bypassing
   * the store: JSON text as a text store keeps it (a structured store stores what `JSON.parse(raw)` gives,
   * or `raw` itself when it is not JSON).
   */
  plant(store: S, key: string, raw: string): Promise<void>;
  /** The errors the store reported for records `list()` skipped (its `onCorrupt`), oldest first, since it was made. */
  reported(store: S): readonly unknown[];
}

/** One case of the contract: `run` resolves when the store behaves, and rejects with an Error saying how it did not. */
export interface TaskStoreContractCase {
  name: string;
  run(): Promise<void>;
}

/** The two functions of a test framework that {@link runTaskStoreContract} needs (vitest, jest, mocha, node:test). */
export interface ContractTestFramework {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Rec = ContractTaskRecord & Record<string, unknown>;

const ACTIVE_STATES = ['submitted', 'working', 'input-required', 'auth-required', 'unknown'];
const TERMINAL_STATES = ['completed', 'failed', 'canceled', 'rejected'];
const AGENT = 'http://127.0.0.1:4000/.well-known/agent-card.json';
const OTHER_AGENT = 'http://127.0.0.1:4001/.well-known/agent-card.json';
/** The key of task `taskId` of {@link AGENT}, the agent of the contract's records. */
const k = (taskId: string): string => contractTaskKey(AGENT, taskId);

/**
 * The TaskStore contract as a list of cases, each run on a fresh store from `makeStore`. Independent
 * of any test framework: `for (const c of taskStoreContract(make)) it(c.name, c.run)`.
 *
 * It checks: copies in and out (mutating what was put or got changes nothing stored); a missing id
 * reads as `undefined`; `update` creates, modifies and (returning `undefined`) deletes, atomically
 * (`concurrentUpdates` concurrent increments all land), without mixing tasks, and changes nothing
 * when its function throws; `list` with `active` and `agentUrl`; an idempotent `delete`; unknown
 * and nested fields round-trip unchanged; odd ids (`a/b`, dots, unicode, 200 characters, ids that
 * differ only in case) work and do not collide; two agents' tasks of one id are two records; and, with `options.corruption`, that a value that is not
 * a task record is `STORE_CORRUPT` from `get` and `update`, skipped and reported by `list` (hiding no
 * other record), and replaced by `put` or removed by `delete`.
 */
export function taskStoreContract<S extends TaskStoreLike>(
  makeStore: () => S | Promise<S>,
  options: TaskStoreContractOptions<S> = {},
): TaskStoreContractCase[] {
  const version = options.schemaVersion ?? 1;
  const concurrent = options.concurrentUpdates ?? 50;
  const record = (taskId: string, fields: Record<string, Json> = {}): Rec => ({
    schemaVersion: version,
    taskId,
    contextId: `ctx-${taskId}`,
    agentUrl: AGENT,
    state: 'working',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...fields,
  });
  const withStore =
    (body: (store: S) => Promise<void>) =>
    async (): Promise<void> => {
      const store = await makeStore();
      try {
        await body(store);
      } finally {
        await options.dispose?.(store);
      }
    };
  const cases: Array<[string, (store: S) => Promise<void>]> = [
    ...(options.corruption ? corruptionCases(options.corruption, record) : []),
    [
      'put then get returns an equal copy, detached from what was put and what was got',
      async (store) => {
        const put = record('t-copy', { nested: { list: [1, 2], flag: true } });
        await store.put(put);
        const got = await store.get(k('t-copy'));
        expectEqual(got, put, "get('t-copy') after put");
        if (got === put) throw new Error("get('t-copy') returned the very object that was put, not a copy");
        (got as Rec)['state'] = 'failed';
        ((got as Rec)['nested'] as { list: number[] }).list.push(3);
        put['extra'] = 'added after put';
        ((put['nested'] as { flag: boolean }).flag = false);
        expectEqual(await store.get(k('t-copy')), record('t-copy', { nested: { list: [1, 2], flag: true } }), "get('t-copy') after mutating the objects put and got");
      },
    ],
    [
      'put replaces the whole record',
      async (store) => {
        await store.put(record('t-replace', { old: 'field' }));
        await store.put(record('t-replace', { state: 'completed' }));
        expectEqual(await store.get(k('t-replace')), record('t-replace', { state: 'completed' }), "get('t-replace') after a second put");
      },
    ],
    [
      'get of a missing id resolves undefined',
      async (store) => {
        expectEqual(await store.get(k('t-missing')), undefined, "get('t-missing') on an empty store");
        await store.put(record('t-present'));
        expectEqual(await store.get(k('t-missing')), undefined, "get('t-missing') beside another record");
      },
    ],
    [
      'update creates a record when there is none',
      async (store) => {
        let seen: unknown = 'not called';
        const result = await store.update(k('t-create'), (current) => {
          seen = current;
          return record('t-create');
        });
        expectEqual(seen, undefined, "the current record update('t-create') passed on an empty store");
        expectEqual(result, record('t-create'), "what update('t-create') resolved to");
        expectEqual(await store.get(k('t-create')), record('t-create'), "get('t-create') after update created it");
      },
    ],
    [
      'update modifies an existing record',
      async (store) => {
        await store.put(record('t-modify', { counter: 1 }));
        let seen: unknown;
        const result = await store.update(k('t-modify'), (current) => {
          seen = structuredCopy(current);
          return current && { ...current, state: 'input-required', counter: 2 };
        });
        expectEqual(seen, record('t-modify', { counter: 1 }), "the current record update('t-modify') passed");
        const expected = record('t-modify', { state: 'input-required', counter: 2 });
        expectEqual(result, expected, "what update('t-modify') resolved to");
        expectEqual(await store.get(k('t-modify')), expected, "get('t-modify') after update");
      },
    ],
    [
      'update returning undefined deletes the record (and creates nothing for a missing id)',
      async (store) => {
        await store.put(record('t-gone'));
        expectEqual(await store.update(k('t-gone'), () => undefined), undefined, "what update('t-gone', () => undefined) resolved to");
        expectEqual(await store.get(k('t-gone')), undefined, "get('t-gone') after update returned undefined");
        await store.update(k('t-never'), () => undefined);
        expectEqual(await store.get(k('t-never')), undefined, "get('t-never') after update returned undefined on a missing id");
        expectEqual(await store.list(), [], 'list() after both updates deleted');
      },
    ],
    [
      `update is atomic: ${concurrent} concurrent increments of one task all land`,
      async (store) => {
        await store.put(record('t-atomic', { counter: 0 }));
        const results = await Promise.all(
          Array.from({ length: concurrent }, () =>
            store.update(k('t-atomic'), (current) => {
              if (!current) throw new Error('the record vanished during concurrent updates');
              return { ...current, counter: Number((current as Rec)['counter']) + 1 };
            }),
          ),
        );
        const final = await store.get(k('t-atomic'));
        expectEqual(final && (final as Rec)['counter'], concurrent, `the counter after ${concurrent} concurrent increments`);
        const seen = results.map((r) => Number(r && (r as Rec)['counter'])).sort((a, b) => a - b);
        expectEqual(seen, Array.from({ length: concurrent }, (_, i) => i + 1), 'the counters the concurrent updates resolved to');
      },
    ],
    [
      'updates to different tasks run side by side without mixing',
      async (store) => {
        const ids = ['t-lane-0', 't-lane-1', 't-lane-2', 't-lane-3'];
        const rounds = 10;
        for (const id of ids) await store.put(record(id, { counter: 0, lane: id }));
        const updates: Array<Promise<unknown>> = [];
        for (let round = 0; round < rounds; round++) {
          for (const id of ids) {
            updates.push(
              store.update(k(id), (current) => {
                if (current?.taskId !== id) throw new Error(`update('${id}') was passed ${describeValue(current)}`);
                return { ...current, counter: Number((current as Rec)['counter']) + 1, [`touched-${id}`]: true };
              }),
            );
          }
        }
        await Promise.all(updates);
        for (const id of ids) {
          expectEqual(await store.get(k(id)), record(id, { counter: rounds, lane: id, [`touched-${id}`]: true }), `get('${id}') after interleaved updates of ${ids.length} tasks`);
        }
      },
    ],
    [
      'a throwing update function rejects update and changes nothing, even what it scribbled on',
      async (store) => {
        await store.put(record('t-throw', { counter: 7 }));
        const boom = new Error('change failed on purpose');
        const thrown = await store.update(k('t-throw'), (current) => {
          // The function is handed a copy: what it scribbles before failing must not reach the store.
          if (current) Object.assign(current, { counter: 999, state: 'failed' });
          throw boom;
        }).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (thrown !== boom) throw new Error(`update('t-throw') with a throwing function should reject with that error; got ${describeValue(thrown)}`);
        expectEqual(await store.get(k('t-throw')), record('t-throw', { counter: 7 }), "get('t-throw') after a throwing update");
        await store.update(k('t-throw-new'), () => {
          throw boom;
        }).catch(() => undefined);
        expectEqual(await store.get(k('t-throw-new')), undefined, "get('t-throw-new') after a throwing update on a missing id");
        // The task is still usable: a failed update must not jam whatever orders its writes.
        await store.update(k('t-throw'), (current) => current && { ...current, counter: 8 });
        expectEqual(await store.get(k('t-throw')), record('t-throw', { counter: 8 }), "get('t-throw') after an update that followed a throwing one");
      },
    ],
    [
      'list() returns every record, as copies',
      async (store) => {
        const ids = ['t-list-a', 't-list-b', 't-list-c'];
        for (const id of ids) await store.put(record(id, { nested: { id } }));
        const listed = await store.list();
        expectEqual(sortById(listed), ids.map((id) => record(id, { nested: { id } })), 'list()');
        for (const r of listed) (r as Rec)['state'] = 'canceled';
        expectEqual(await store.get(k('t-list-a')), record('t-list-a', { nested: { id: 't-list-a' } }), "get('t-list-a') after mutating what list() returned");
      },
    ],
    [
      'list({ active: true }) returns only tasks still to follow: non-terminal states, no outcome (a lost task is not active)',
      async (store) => {
        for (const state of [...ACTIVE_STATES, ...TERMINAL_STATES]) await store.put(record(`t-${state}`, { state }));
        await store.put(record('t-lost', { state: 'working', outcome: { kind: 'lost', at: 1 } }));
        const all = [...ACTIVE_STATES, ...TERMINAL_STATES].map((s) => `t-${s}`).concat('t-lost').sort();
        expectEqual(ids(await store.list({ active: true })), ACTIVE_STATES.map((s) => `t-${s}`).sort(), 'the ids list({ active: true }) returned');
        expectEqual(ids(await store.list({ active: false })), all, 'the ids list({ active: false }) returned');
        expectEqual(ids(await store.list()), all, 'the ids list() returned');
      },
    ],
    [
      'list({ agentUrl }) returns only that agent’s tasks, also with active',
      async (store) => {
        await store.put(record('t-mine-working'));
        await store.put(record('t-mine-done', { state: 'completed' }));
        await store.put(record('t-theirs-working', { agentUrl: OTHER_AGENT }));
        expectEqual(ids(await store.list({ agentUrl: AGENT })), ['t-mine-done', 't-mine-working'], `the ids list({ agentUrl: '${AGENT}' }) returned`);
        expectEqual(ids(await store.list({ agentUrl: OTHER_AGENT })), ['t-theirs-working'], `the ids list({ agentUrl: '${OTHER_AGENT}' }) returned`);
        expectEqual(ids(await store.list({ agentUrl: AGENT, active: true })), ['t-mine-working'], 'the ids list({ agentUrl, active: true }) returned');
        expectEqual(ids(await store.list({ agentUrl: 'http://127.0.0.1:4002/nobody' })), [], 'the ids list() returned for an agent with no tasks');
      },
    ],
    [
      'delete removes a record and is idempotent',
      async (store) => {
        await store.put(record('t-del'));
        await store.put(record('t-keep'));
        await store.delete(k('t-del'));
        expectEqual(await store.get(k('t-del')), undefined, "get('t-del') after delete");
        await store.delete(k('t-del'));
        await store.delete(k('t-never-existed'));
        expectEqual(ids(await store.list()), ['t-keep'], 'the ids list() returned after deletes');
        await store.put(record('t-del', { again: true }));
        expectEqual(await store.get(k('t-del')), record('t-del', { again: true }), "get('t-del') after putting it back");
      },
    ],
    [
      'unknown fields and nested objects round-trip unchanged',
      async (store) => {
        const fields: Record<string, Json> = {
          lastEventId: 'evt-41',
          cancel: { requestedAt: 1_700_000_000_123, reason: 'user asked' },
          futureField: { deep: { deeper: { deepest: [1, 'two', null, true, { three: 3 }] } } },
          emptyObject: {},
          emptyArray: [],
          nothing: null,
          falsy: false,
          zero: 0,
          negative: -12.5,
          big: Number.MAX_SAFE_INTEGER,
          text: 'line\nbreak "quotes" \\ backslash \u0000 nul ünïcødé 任务 🚀',
          'key with spaces/and.dots': 'kept',
        };
        await store.put(record('t-fields', fields));
        expectEqual(await store.get(k('t-fields')), record('t-fields', fields), "get('t-fields')");
        expectEqual(await store.list(), [record('t-fields', fields)], 'list()');
        await store.update(k('t-fields'), (current) => current && { ...current, state: 'completed' });
        expectEqual(await store.get(k('t-fields')), record('t-fields', { ...fields, state: 'completed' }), "get('t-fields') after an update that changed only state");
      },
    ],
    [
      'two agents’ tasks of one id are two records: put, get, update and delete touch only their own',
      async (store) => {
        const mine = record('1', { marker: 'mine' });
        const theirs = record('1', { agentUrl: OTHER_AGENT, marker: 'theirs' });
        const theirKey = contractTaskKey(OTHER_AGENT, '1');
        await store.put(mine);
        expectEqual(await store.get(theirKey), undefined, "get() of the other agent's task \"1\" beside this agent's");
        await store.put(theirs);
        expectEqual(await store.get(k('1')), mine, "get() of this agent's task \"1\" after the other agent's was put");
        expectEqual(await store.get(theirKey), theirs, "get() of the other agent's task \"1\"");
        expectEqual(sortById(await store.list()).map((r) => r.agentUrl).sort(), [AGENT, OTHER_AGENT], 'the agents of the records list() returned');
        await store.update(theirKey, (current) => current && { ...current, state: 'completed' });
        expectEqual(await store.get(k('1')), mine, "get() of this agent's task \"1\" after the other's was updated");
        expectEqual(ids(await store.list({ active: true, agentUrl: AGENT })), ['1'], 'the ids list({ active: true, agentUrl }) returned');
        await store.delete(k('1'));
        expectEqual(await store.get(theirKey), { ...theirs, state: 'completed' }, "get() of the other agent's task \"1\" after this agent's was deleted");
        expectEqual((await store.list()).map((r) => r.agentUrl), [OTHER_AGENT], 'the agents of the records list() returned after the delete');
      },
    ],
    [
      'ids with odd characters work and do not collide',
      async (store) => {
        const odd = [
          'a/b',
          'a_b',
          'a-b',
          'a\\b',
          'x.y',
          'x_y',
          '.hidden',
          'trailing.',
          'A',
          'a',
          'Ab',
          'aB',
          'with space',
          'percent%2F',
          'ünïcødé-任务-🚀',
          'x'.repeat(200),
          `${'x'.repeat(199)}y`,
          '任'.repeat(200),
        ];
        for (const id of odd) await store.put(record(id, { marker: `for ${id}` }));
        for (const id of odd) expectEqual(await store.get(k(id)), record(id, { marker: `for ${id}` }), `get(${JSON.stringify(id)})`);
        expectEqual(ids(await store.list()), [...odd].sort(), 'the ids list() returned');
        await store.update(k('a/b'), (current) => current && { ...current, state: 'completed' });
        await store.delete(k('A'));
        expectEqual(await store.get(k('a')), record('a', { marker: 'for a' }), "get('a') after delete('A')");
        expectEqual(await store.get(k('a_b')), record('a_b', { marker: 'for a_b' }), "get('a_b') after update('a/b')");
        expectEqual(ids(await store.list({ active: true })), odd.filter((id) => id !== 'a/b' && id !== 'A').sort(), 'the ids list({ active: true }) returned');
      },
    ],
  ];
  return cases.map(([name, body]) => ({ name, run: withStore(body) }));
}

/** Bad values a store may find where a task's record should be, each with a why for messages. */
function badValues(version: number): Array<[string, string]> {
  return [
    ['not JSON', '{"schemaVersion":1,"taskId":"t-bad-0","state":"work'],
    ['JSON null', 'null'],
    ['a number', '42'],
    ['an array', '[]'],
    ['an object without taskId', `{"schemaVersion":${version},"state":"working"}`],
    ["another task's record", `{"schemaVersion":${version},"taskId":"t-good","contextId":"c","agentUrl":"${AGENT}","state":"working","createdAt":1,"updatedAt":1}`],
    ['no schemaVersion', '{"taskId":"t-bad-6","state":"working"}'],
    ['a newer schemaVersion', `{"schemaVersion":${version + 1000},"taskId":"t-bad-7","state":"working"}`],
  ];
}

function corruptionCases<S extends TaskStoreLike>(corruption: StoreCorruption<S>, record: (taskId: string, fields?: Record<string, Json>) => Rec): Array<[string, (store: S) => Promise<void>]> {
  const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
  return [
    [
      'a record that is not a task record is STORE_CORRUPT from get, skipped and reported by list, and hides no other record',
      async (store) => {
        const good = record('t-good');
        await store.put(good);
        const bad = badValues(good.schemaVersion);
        for (const [index, [, raw]] of bad.entries()) await corruption.plant(store, k(`t-bad-${index}`), raw);
        for (const [index, [why]] of bad.entries()) {
          const got = await store.get(k(`t-bad-${index}`)).then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          if (!('error' in got)) throw new Error(`get('t-bad-${index}') of ${why}: expected STORE_CORRUPT, got ${describeValue(got.value)}`);
          if (codeOf(got.error) !== 'STORE_CORRUPT') throw new Error(`get('t-bad-${index}') of ${why}: expected STORE_CORRUPT, got ${describeValue(got.error)}`);
        }
        const before = corruption.reported(store).length;
        expectEqual(await store.list(), [good], 'list() with bad records beside a good one');
        const reported = corruption.reported(store).slice(before);
        if (reported.length !== bad.length) throw new Error(`list() reported ${reported.length} skipped records, expected ${bad.length} (one per bad record)`);
        const codes = [...new Set(reported.map(codeOf))];
        expectEqual(codes, ['STORE_CORRUPT'], 'the codes of the reported errors');
        expectEqual(await store.list({ active: true }), [good], 'list({ active: true }) with bad records beside a good one');
        expectEqual(await store.list({ agentUrl: OTHER_AGENT }), [], 'list({ agentUrl }) of another agent with bad records');
      },
    ],
    [
      'update of a bad record is STORE_CORRUPT and writes nothing; put replaces it and delete removes it',
      async (store) => {
        await corruption.plant(store, k('t-bad'), 'not json');
        let called = false;
        const updated = await store
          .update(k('t-bad'), (current) => {
            called = true;
            return current;
          })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        if (codeOf(updated) !== 'STORE_CORRUPT') throw new Error(`update('t-bad') of a bad record: expected STORE_CORRUPT, got ${describeValue(updated)}`);
        if (called) throw new Error("update('t-bad') handed a bad record to the change function");
        await store.put(record('t-bad'));
        expectEqual(await store.get(k('t-bad')), record('t-bad'), "get('t-bad') after put() replaced the bad record");
        await corruption.plant(store, k('t-bad'), '[]');
        await store.delete(k('t-bad'));
        expectEqual(await store.get(k('t-bad')), undefined, "get('t-bad') after delete() of a bad record");
        const before = corruption.reported(store).length;
        expectEqual(await store.list(), [], 'list() after the bad record was deleted');
        if (corruption.reported(store).length !== before) throw new Error('list() still reported a bad record after it was deleted');
      },
    ],
  ];
}

/**
 * Registers the TaskStore contract with a test framework: one `describe` with one `it` per case.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * runTaskStoreContract(() => new MyStore(), { describe, it });
 * ```
 */
export function runTaskStoreContract<S extends TaskStoreLike>(
  makeStore: () => S | Promise<S>,
  framework: ContractTestFramework,
  options: TaskStoreContractOptions<S> = {},
): void {
  framework.describe('TaskStore contract', () => {
    for (const c of taskStoreContract(makeStore, options)) framework.it(c.name, c.run);
  });
}

function ids(records: ContractTaskRecord[]): string[] {
  return records.map((r) => r.taskId).sort();
}

function sortById<T extends ContractTaskRecord>(records: T[]): T[] {
  return [...records].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
}

function structuredCopy(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  const difference = firstDifference(actual, expected, '');
  if (difference !== undefined) {
    throw new Error(`${what}: expected ${describeValue(expected)}, got ${describeValue(actual)}${difference ? ` (first difference at ${difference})` : ''}`);
  }
}

/** `undefined` when equal as JSON data; otherwise the path of the first difference ('' for the root). */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return path;
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}.length`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    const d = firstDifference(ra[key], rb[key], `${path}.${key}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  if (value instanceof Error) text = `${value.name}: ${value.message}`;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
