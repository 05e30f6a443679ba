// The smoke as a Cloudflare module Worker (workerd): `POST /` with the smoke's config runs it and answers the
// report. No nodejs_compat: only what core needs from the platform (fetch, streams, WebCrypto, timers).
// `POST /durable` adds the Durable Object checks: the task store contract on real Durable Object storage, and
// a task started in one request, detached, and resumed from the stored record in a later request.
import { connect } from '@a2a-tether/core';
import type { TaskStore } from '@a2a-tether/core';
import { createDurableObjectTaskStore } from '@a2a-tether/core/workers';
import type { DurableObjectStorageLike } from '@a2a-tether/core/workers';
import { taskStoreContract } from '@a2a-tether/testkit/store-contract';
import { smoke } from './smoke.js';
import type { SmokeCheck, SmokeConfig } from './smoke.js';

interface DurableObjectId {
  readonly name?: string;
}
interface DurableObjectNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): { fetch(url: string, init?: RequestInit): Promise<Response> };
}
interface Env {
  TASKS: DurableObjectNamespace;
}

const SLOW = 'slow steps=8 delayMs=25';
const slowText = Array.from({ length: 8 }, (_, i) => `chunk-${i + 1};`).join('');

/** A Durable Object holding task records: one store for the object's life (made in the constructor). */
export class TaskObject {
  private readonly store: TaskStore;
  private contractStores = 0;

  constructor(private readonly state: { storage: DurableObjectStorageLike }) {
    this.store = createDurableObjectTaskStore(state.storage);
  }

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const config = (await request.json()) as SmokeConfig & { taskId?: string };
    if (path === '/contract') return Response.json(await this.contract());
    const client = await connect(config.agent, { store: this.store });
    if (path === '/start') {
      const task = await client.start(SLOW);
      for await (const event of task.events()) if (event.type === 'status' && event.state === 'working') break;
      task.detach();
      await task.done().catch(() => undefined);
      return Response.json({ taskId: task.taskId });
    }
    // '/resume': the record from the earlier request, read back from storage.
    const taskId = config.taskId ?? '';
    const stored = await this.store.get(client.taskKey(taskId));
    const result = await (await client.resume(taskId)).done();
    const text = (result.artifacts.find((a) => a.artifactId === 'result')?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
    return Response.json({ storedState: stored?.state, state: result.status.state, text });
  }

  /** The task store contract, each case on a store of its own prefix in this object's storage. */
  private async contract(): Promise<SmokeCheck[]> {
    const reports = new Map<TaskStore, unknown[]>();
    const prefixes = new Map<TaskStore, string>();
    const cases = taskStoreContract(
      () => {
        const prefix = `contract-${this.contractStores++}:`;
        const reported: unknown[] = [];
        const store = createDurableObjectTaskStore(this.state.storage, { prefix, onCorrupt: (error) => reported.push(error) });
        reports.set(store, reported);
        prefixes.set(store, prefix);
        return store;
      },
      {
        corruption: {
          plant: async (store, key, raw) => {
            let value: unknown = raw;
            try {
              value = JSON.parse(raw);
            } catch {
              // not JSON: stored as the string itself
            }
            await this.state.storage.put(`${prefixes.get(store as TaskStore) ?? ''}${key}`, value);
          },
          reported: (store) => reports.get(store as TaskStore) ?? [],
        },
      },
    );
    const checks: SmokeCheck[] = [];
    for (const c of cases) {
      const started = Date.now();
      try {
        await c.run();
        checks.push({ name: c.name, ok: true, detail: 'ok', ms: Date.now() - started });
      } catch (error) {
        checks.push({ name: c.name, ok: false, detail: error instanceof Error ? error.message : String(error), ms: Date.now() - started });
      }
    }
    return checks;
  }
}

async function durableChecks(config: SmokeConfig, env: Env): Promise<SmokeCheck[]> {
  const object = env.TASKS.get(env.TASKS.idFromName('smoke'));
  const post = async (path: string, body: unknown): Promise<unknown> => (await object.fetch(`http://do${path}`, { method: 'POST', body: JSON.stringify(body) })).json();
  const contract = (await post('/contract', config)) as SmokeCheck[];
  const started = Date.now();
  const checks: SmokeCheck[] = [
    {
      name: `the task store contract on Durable Object storage (${contract.length} cases)`,
      ok: contract.length >= 15 && contract.every((c) => c.ok),
      detail: contract.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`).join('; ') || `${contract.length} cases passed`,
      ms: contract.reduce((sum, c) => sum + c.ms, 0),
    },
  ];
  try {
    const { taskId } = (await post('/start', config)) as { taskId: string };
    const resumed = (await post('/resume', { ...config, taskId })) as { storedState?: string; state: string; text: string };
    const ok = resumed.state === 'completed' && resumed.text === slowText && resumed.storedState !== undefined;
    checks.push({ name: 'a task started in one request, resumed from Durable Object storage in the next', ok, detail: `stored ${String(resumed.storedState)}, then ${resumed.state} with ${resumed.text}`, ms: Date.now() - started });
  } catch (error) {
    checks.push({ name: 'a task started in one request, resumed from Durable Object storage in the next', ok: false, detail: String(error), ms: Date.now() - started });
  }
  return checks;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const config = (await request.json()) as SmokeConfig;
    const report = await smoke(config);
    if (new URL(request.url).pathname === '/durable') report.checks.push(...(await durableChecks(config, env)));
    return Response.json(report);
  },
};
