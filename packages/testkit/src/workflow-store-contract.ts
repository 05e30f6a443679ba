// The behaviour every WorkflowStore must have (memory, file, Redis, or yours), as plain async cases: no test
// framework, no Node APIs. Stores that lease workflows (`lease()` / `leaseHolder()`) are held to the lease
// and fencing cases too.
import { describeValue, expectEqual, type ContractTestFramework, type StoreCorruption } from './store-contract.js';

/** The record fields the contract relies on (a structural subset of `WorkflowRecord` of @a2a-tether/core/orchestrate). */
export interface ContractWorkflowRecord {
  schemaVersion: number;
  id: string;
}

/** A lease as the contract sees it (structurally `StoreLease` of @a2a-tether/core). */
export interface ContractLease {
  readonly fence?: number | undefined;
  renew(): Promise<boolean>;
  release(): Promise<unknown>;
}

/** A workflow store as the contract sees it: every `WorkflowStore` of @a2a-tether/core/orchestrate is one. */
export interface WorkflowStoreLike {
  load(workflowId: string): Promise<ContractWorkflowRecord | undefined>;
  save(record: ContractWorkflowRecord, options?: { fence?: number | undefined }): Promise<void>;
  list(): Promise<string[]>;
  lease?(workflowId: string, owner: string): Promise<ContractLease | undefined>;
  leaseHolder?(workflowId: string): Promise<string | undefined>;
}

/** Options of {@link workflowStoreContract}. */
export interface WorkflowStoreContractOptions<S extends WorkflowStoreLike = WorkflowStoreLike> {
  /** Called after each case with the store it made: close connections, remove files. */
  dispose?: ((store: S) => void | Promise<void>) | undefined;
  /** Plants values that are not workflow records (see the task store contract's `corruption`); its `plant` gets a workflow id. */
  corruption?: StoreCorruption<S> | undefined;
  /** The store leases workflows (`lease()`, `leaseHolder()`, fenced `save`): run the lease and fencing cases. */
  leases?: boolean | undefined;
  /** A leasing store's lease TTL (ms): when given and at most 2,000, the expiry case runs (it waits that long). */
  leaseMs?: number | undefined;
}

/** One case: `run` resolves when the store behaves, and rejects with an Error saying how it did not. */
export interface WorkflowStoreContractCase {
  name: string;
  run(): Promise<void>;
}

type Rec = ContractWorkflowRecord & Record<string, unknown>;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, it succeeded');
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/**
 * The WorkflowStore contract as a list of cases, each on a fresh store from `makeStore`: a missing id reads
 * as `undefined`; `save` then `load` round-trips the record (unknown nested fields kept) as copies in and out;
 * a save replaces the whole record; `list` names every saved workflow once; odd ids work and do not collide;
 * a record without an id is refused and stores nothing; concurrent saves of different workflows all land.
 * With `corruption`: a value that is not a workflow record is `STORE_CORRUPT` from `load`, skipped and
 * reported by `list`, replaced by `save`. With `leases` (a leasing store): one holder at a time, `leaseHolder`, release,
 * growing fences, a former holder's renewals and fenced saves refused (`LEASE_LOST`, nothing written), and
 * (with a short `leaseMs`) a lease that lapses.
 */
export function workflowStoreContract<S extends WorkflowStoreLike>(makeStore: () => S | Promise<S>, options: WorkflowStoreContractOptions<S> = {}): WorkflowStoreContractCase[] {
  const record = (id: string, fields: Record<string, unknown> = {}): Rec => ({ schemaVersion: 1, id, state: 'running', nodes: { a: { id: 'a', attempts: [] } }, ...fields });
  const withStore = (name: string, body: (store: S) => Promise<void>): WorkflowStoreContractCase => ({
    name,
    run: async () => {
      const store = await makeStore();
      try {
        await body(store);
      } finally {
        await options.dispose?.(store);
      }
    },
  });
  const cases: WorkflowStoreContractCase[] = [
    withStore('load of an unknown id is undefined', async (store) => {
      expectEqual(await store.load('w-none'), undefined, "load('w-none')");
      expectEqual(await store.list(), [], 'list() of an empty store');
    }),
    withStore('save then load round-trips the record, unknown and nested fields kept, as copies', async (store) => {
      const saved = record('w-1', { extra: { deep: [1, 'two', { three: null }] }, checkpoints: [{ at: '2026-01-01T00:00:00.000Z' }] });
      await store.save(saved);
      saved['state'] = 'changed after save';
      const loaded = (await store.load('w-1')) as Rec;
      expectEqual(loaded, record('w-1', { extra: { deep: [1, 'two', { three: null }] }, checkpoints: [{ at: '2026-01-01T00:00:00.000Z' }] }), "load('w-1')");
      loaded['state'] = 'changed after load';
      expectEqual(((await store.load('w-1')) as Rec)['state'], 'running', 'the stored state after changing a loaded copy');
    }),
    withStore('a save replaces the whole record', async (store) => {
      await store.save(record('w-1', { gone: true, revision: 1 }));
      await store.save(record('w-1', { revision: 2 }));
      expectEqual(await store.load('w-1'), record('w-1', { revision: 2 }), 'the record after the second save');
      expectEqual(await store.list(), ['w-1'], 'list() after two saves of one workflow');
    }),
    withStore('list names every saved workflow once; odd ids work and do not collide', async (store) => {
      const ids = ['w-a', 'W-A', 'a/b', '..', 'dots.in.id', 'ünïcødé-✓', 'x'.repeat(200)];
      for (const id of ids) await store.save(record(id, { mark: id }));
      expectEqual([...(await store.list())].sort(), [...ids].sort(), 'list()');
      for (const id of ids) expectEqual(((await store.load(id)) as Rec | undefined)?.['mark'], id, `load(${JSON.stringify(id.slice(0, 20))})`);
    }),
    withStore('a record without an id is refused, and nothing is stored', async (store) => {
      const error = await failure(store.save({ schemaVersion: 1 } as unknown as ContractWorkflowRecord));
      if (codeOf(error) !== 'INVALID_ARGUMENT') throw new Error(`save() of a record without an id: expected INVALID_ARGUMENT, got ${describeValue(error)}`);
      expectEqual(await store.list(), [], 'list() after the refused save');
    }),
    withStore('concurrent saves of different workflows all land', async (store) => {
      const ids = Array.from({ length: 20 }, (_, i) => `w-${i}`);
      await Promise.all(ids.map((id) => store.save(record(id))));
      expectEqual([...(await store.list())].sort(), [...ids].sort(), 'list() after 20 concurrent saves');
    }),
  ];
  const corruption = options.corruption;
  if (corruption) {
    cases.push(
      withStore('a value that is not a workflow record: STORE_CORRUPT from load, skipped and reported by list, replaced by save', async (store) => {
        await store.save(record('w-good'));
        const bad: Array<[string, string]> = [['w-not-json', '{"id": "w-not-json", '], ['w-array', '[1,2]'], ['w-other', JSON.stringify(record('w-someone-else'))], ['w-newer', JSON.stringify({ ...record('w-newer'), schemaVersion: 99 })]];
        for (const [id, raw] of bad) await corruption.plant(store, id, raw);
        for (const [id] of bad) {
          const error = await failure(store.load(id));
          if (codeOf(error) !== 'STORE_CORRUPT') throw new Error(`load(${id}): expected STORE_CORRUPT, got ${describeValue(error)}`);
        }
        expectEqual(await store.list(), ['w-good'], 'list() with bad records beside a good one');
        const codes = [...new Set(corruption.reported(store).map(codeOf))];
        expectEqual(codes, ['STORE_CORRUPT'], 'the codes of the reported errors');
        await store.save(record('w-not-json'));
        expectEqual(await store.load('w-not-json'), record('w-not-json'), 'a bad record replaced by save');
      }),
    );
  }
  return options.leases ? [...cases, ...leaseCases(withStore, record, options)] : cases;
}

function leaseCases<S extends WorkflowStoreLike>(
  withStore: (name: string, body: (store: S) => Promise<void>) => WorkflowStoreContractCase,
  record: (id: string, fields?: Record<string, unknown>) => Rec,
  options: WorkflowStoreContractOptions<S>,
): WorkflowStoreContractCase[] {
  const leasing = (store: S): Required<Pick<WorkflowStoreLike, 'lease' | 'leaseHolder'>> | undefined =>
    typeof store.lease === 'function' && typeof store.leaseHolder === 'function' ? (store as Required<Pick<WorkflowStoreLike, 'lease' | 'leaseHolder'>>) : undefined;
  const withLeases = (name: string, body: (store: S, leases: Required<Pick<WorkflowStoreLike, 'lease' | 'leaseHolder'>>) => Promise<void>): WorkflowStoreContractCase =>
    withStore(name, async (store) => {
      const leases = leasing(store);
      if (!leases) throw new Error('the store was said to lease workflows (options.leases) but has no lease() and leaseHolder()');
      await body(store, leases);
    });
  const cases = [
    withLeases('leases: one holder at a time, named by leaseHolder; released, another takes it with a larger fence', async (_store, leases) => {
      const first = await leases.lease('w-1', 'owner-a');
      if (!first || !(typeof first.fence === 'number' && first.fence > 0)) throw new Error(`lease('w-1', 'owner-a'): expected a lease with a fence, got ${describeValue(first)}`);
      expectEqual(await leases.lease('w-1', 'owner-b'), undefined, 'lease() by a second owner while the first holds it');
      expectEqual(await leases.leaseHolder('w-1'), 'owner-a', 'leaseHolder() while owner-a holds it');
      expectEqual(await leases.leaseHolder('w-2'), undefined, 'leaseHolder() of a workflow nobody leased');
      expectEqual(await first.renew(), true, 'renew() by the holder');
      await first.release();
      expectEqual(await leases.leaseHolder('w-1'), undefined, 'leaseHolder() after release');
      const second = await leases.lease('w-1', 'owner-b');
      if (!second || !((second.fence ?? 0) > first.fence)) throw new Error(`the next lease must have a larger fence than ${first.fence}, got ${describeValue(second)}`);
      expectEqual(await first.renew(), false, 'renew() by the former holder');
    }),
    // The same owner acquiring again (a restart with a stable name) gets a new lease; the old one is dead.
    withLeases('fencing: a former holder’s save is refused with LEASE_LOST and writes nothing; the holder’s goes through', async (store, leases) => {
      const first = await leases.lease('w-1', 'owner-a');
      await store.save(record('w-1', { by: 'a' }), { fence: first?.fence });
      await first?.release();
      const second = await leases.lease('w-1', 'owner-b');
      await store.save(record('w-1', { by: 'b' }), { fence: second?.fence });
      const error = await failure(store.save(record('w-1', { by: 'a, late' }), { fence: first?.fence }));
      if (codeOf(error) !== 'LEASE_LOST') throw new Error(`a save with the former fence: expected LEASE_LOST, got ${describeValue(error)}`);
      expectEqual(((await store.load('w-1')) as Rec)['by'], 'b', 'the record after the refused save');
      const restarted = await leases.lease('w-1', 'owner-b');
      if (!restarted || !((restarted.fence ?? 0) > (second?.fence ?? 0))) throw new Error(`the same owner leasing again must get a larger fence, got ${describeValue(restarted)}`);
      expectEqual(await second?.renew(), false, 'renew() of the older lease of the same owner');
      const stale = await failure(store.save(record('w-1', { by: 'b, older lease' }), { fence: second?.fence }));
      if (codeOf(stale) !== 'LEASE_LOST') throw new Error(`a save with the older lease's fence: expected LEASE_LOST, got ${describeValue(stale)}`);
    }),
  ];
  const ttl = options.leaseMs;
  if (ttl !== undefined && ttl <= 2_000) {
    cases.push(
      withLeases(`a lease not renewed lapses after its TTL (${ttl} ms) and another owner takes it`, async (_store, leases) => {
        const first = await leases.lease('w-1', 'owner-a');
        if (!first) throw new Error('the first lease was refused');
        await new Promise((resolve) => setTimeout(resolve, ttl + 250));
        const second = await leases.lease('w-1', 'owner-b');
        if (!second) throw new Error(`lease() by another owner ${ttl + 250} ms after an unrenewed lease of ${ttl} ms was refused`);
        expectEqual(await first.renew(), false, 'renew() of the lapsed lease');
      }),
    );
  }
  return cases;
}

/**
 * Registers the WorkflowStore contract with a test framework (vitest, jest, mocha, node:test).
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * runWorkflowStoreContract(() => new MyWorkflowStore(), { describe, it });
 * ```
 */
export function runWorkflowStoreContract<S extends WorkflowStoreLike>(makeStore: () => S | Promise<S>, framework: ContractTestFramework, options: WorkflowStoreContractOptions<S> = {}): void {
  framework.describe('WorkflowStore contract', () => {
    for (const c of workflowStoreContract(makeStore, options)) framework.it(c.name, c.run);
  });
}
