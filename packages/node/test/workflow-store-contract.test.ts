// The WorkflowStore contract of @a2a-tether/testkit (issue 22) on every workflow store: memory (core),
// file, and Redis — the Redis store also to the lease and fencing cases, with a short TTL so the lapse case
// runs. Bad records are planted as a crash, an old version or a person with a shell would leave them.
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { MemoryWorkflowStore, type WorkflowStore } from '@a2a-tether/core/orchestrate';
import { runWorkflowStoreContract } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createFileWorkflowStore } from '../src/orchestrate-entry.js';
import { createRedisWorkflowStore, type RedisWorkflowStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('MemoryWorkflowStore', () => {
  runWorkflowStoreContract(() => new MemoryWorkflowStore(), { describe, it });
});

describe('createFileWorkflowStore', () => {
  const dirs = new WeakMap<WorkflowStore, string>();
  const reports = new WeakMap<WorkflowStore, unknown[]>();
  runWorkflowStoreContract(
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'tether-wf-contract-'));
      roots.push(dir);
      const reported: unknown[] = [];
      const store = createFileWorkflowStore(dir, { onCorrupt: (error) => reported.push(error) });
      dirs.set(store, dir);
      reports.set(store, reported);
      return store;
    },
    { describe, it },
    {
      corruption: {
        // The workflow's file is found by saving a marked record, then overwritten.
        async plant(store, id, raw) {
          const dir = dirs.get(store) ?? '';
          await store.save({ schemaVersion: 1, id, marker: 'to overwrite' } as never);
          for (const file of await readdir(dir)) {
            const text = await readFile(join(dir, file), 'utf8').catch(() => '');
            if (text.includes(JSON.stringify(id)) && text.includes('to overwrite')) return writeFile(join(dir, file), raw);
          }
          throw new Error(`no file for workflow ${id} in ${dir}`);
        },
        reported: (store) => reports.get(store) ?? [],
      },
    },
  );
});

requireRedis('the Redis workflow store contract');

describe.skipIf(!available)('createRedisWorkflowStore (real redis-server)', () => {
  let redis: { url: string; process: ChildProcess };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  let count = 0;
  const prefixes = new WeakMap<RedisWorkflowStore, string>();
  const reports = new WeakMap<RedisWorkflowStore, unknown[]>();
  const LEASE_MS = 600;
  runWorkflowStoreContract(
    async () => {
      const prefix = `wf${++count}:`;
      const reported: unknown[] = [];
      const store = await createRedisWorkflowStore({ url: redis.url, prefix, leaseMs: LEASE_MS, onCorrupt: (error) => reported.push(error) });
      prefixes.set(store, prefix);
      reports.set(store, reported);
      return store;
    },
    { describe, it },
    {
      leases: true,
      leaseMs: LEASE_MS,
      dispose: (store) => store.close(),
      corruption: {
        async plant(store, id, raw) {
          const client = createClient({ url: redis.url });
          client.on('error', () => undefined);
          await client.connect();
          try {
            const prefix = prefixes.get(store) ?? '';
            await client.set(`${prefix}workflow:${id}`, raw);
            await client.sAdd(`${prefix}workflows`, id);
          } finally {
            await client.close();
          }
        },
        reported: (store) => reports.get(store) ?? [],
      },
    },
  );
});
