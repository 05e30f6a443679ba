// The multi-process Redis fault run (issue 16): a real redis-server (durable: AOF, fsync always), the
// official A2A v1.0 server, and worker processes sharing one Redis task store, each reaching Redis through
// a TCP proxy of its own that the run cuts (a partition or a reset) and heals, while it also kills workers
// (-9) and starts them again, and kills and restarts Redis — all from one seed. The agent watches its
// own streams; a sampler watches the records. What must hold:
// - at no moment do two workers stream the same task (the agent counts open subscriptions per task);
// - every task finishes with the agent's exact artifacts (each `done` a worker reports equals GetTask);
// - no record is lost, and none goes back from finished to unfinished (a former holder's stale write);
// - a worker cut off from Redis stops streaming before its lease could pass to another.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type TaskRecord } from '@a2a-tether/node';
import { createRedisTaskStore } from '@a2a-tether/node/redis';
import { SeededRandom, startRedisServer, startTcpProxy, type RedisServer, type TcpProxy } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { quietOfficialServers } from '../chaos/quiet.js';
import { startOfficialV1Server } from '../official-v1-server.js';
import { artifactDigest } from './artifact-digest.js';
import { SubscriptionWatch, type DoubleDrive } from './subscription-watch.js';

/** Options of one run. */
export interface RedisChaosOptions {
  seed: number;
  /** Tasks started on the agent. Default 24. */
  tasks?: number | undefined;
  /** Worker processes. Default 3. */
  workers?: number | undefined;
  /** The store's lease TTL (ms). Default 3 000. */
  leaseMs?: number | undefined;
  /** How long faults are injected (ms); then the run waits for every task to finish. Default 20 000. */
  faultMs?: number | undefined;
  /** The run fails if the tasks have not all finished by then (ms). Default 120 000. */
  deadlineMs?: number | undefined;
  /** Lines of progress. */
  log?: ((line: string) => void) | undefined;
}

/** One injected fault. */
export interface InjectedFault {
  at: number;
  kind: 'partition' | 'reset' | 'kill-worker' | 'kill-redis';
  target: string;
  /** How long until it was healed / restarted (ms). */
  forMs: number;
}

/** What a run saw. */
export interface RedisChaosReport {
  seed: number;
  tasks: number;
  durationMs: number;
  faults: InjectedFault[];
  /** Tasks whose record says finished (completed) at the end. */
  finished: number;
  /** `done` reports by the workers (a task may be reported by a worker that was then killed, and again). */
  doneReports: number;
  /** Follows that ended with LEASE_LOST (a worker stopped driving a task whose lease it could not renew). */
  leaseLost: number;
  /** Writes a worker had refused by the store's fence (a former holder's), seen as store-error LEASE_LOST. */
  fencedWrites: number;
  /** Subscriptions the agent saw opened. */
  subscriptions: number;
  /** Moments two workers streamed the same task. Must be empty. */
  doubles: DoubleDrive[];
  /** Task, digest reported, digest of the agent's task: reports that differ. Must be empty. */
  wrongArtifacts: string[];
  /** Records lost, or gone back from finished. Must be empty. */
  recordFaults: string[];
  /** Partitions after which the cut-off worker still streamed when its lease could have passed on. Must be empty. */
  lateStops: string[];
  /** Other failures (follows that failed with anything but LEASE_LOST, tasks not finished). Must be empty. */
  failures: string[];
  /** How long the workers took to stop streaming after a partition cut them off (ms), each. */
  stopTimesMs: number[];
}

/** Whether a report holds every property. */
export function redisChaosPassed(report: RedisChaosReport): boolean {
  return (
    report.doubles.length === 0 &&
    report.wrongArtifacts.length === 0 &&
    report.recordFaults.length === 0 &&
    report.lateStops.length === 0 &&
    report.failures.length === 0 &&
    report.finished === report.tasks
  );
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const INTEROP = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Line {
  kind: string;
  taskId: string;
  at: number;
  detail: string;
}

class Worker {
  child: ChildProcess | undefined;
  readonly lines: Line[] = [];
  /** How many times it was started: each start is a new process with an owner name of its own. */
  incarnation = 0;
  constructor(
    readonly name: string,
    readonly proxy: TcpProxy,
    private readonly args: (owner: string) => string[],
  ) {}

  start(): void {
    this.incarnation += 1;
    // Node itself (tsx as a loader), so a kill -9 reaches the process that holds the leases.
    const child = spawn(process.execPath, ['--conditions=@a2a-tether/source', '--import', 'tsx', WORKER, ...this.args(`${this.name}#${this.incarnation}`)], {
      cwd: INTEROP,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const [kind = '', taskId = '', time = '0', ...rest] = buffer.slice(0, at).split(' ');
        this.lines.push({ kind, taskId, at: Number(time), detail: rest.join(' ') });
        buffer = buffer.slice(at + 1);
      }
    });
    child.stderr?.on('data', () => undefined);
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/** Runs one seeded multi-process fault run and reports what it saw (see the file's head). */
export async function runRedisChaos(options: RedisChaosOptions): Promise<RedisChaosReport> {
  const random = new SeededRandom(options.seed);
  const taskCount = options.tasks ?? 24;
  const workerCount = options.workers ?? 3;
  const leaseMs = options.leaseMs ?? 3_000;
  const faultMs = options.faultMs ?? 20_000;
  const deadlineMs = options.deadlineMs ?? 120_000;
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const prefix = `chaos-${options.seed}:`;
  const dir = await mkdtemp(join(tmpdir(), 'tether-redis-chaos-'));
  const watch = new SubscriptionWatch();
  const cleanup: Array<() => Promise<unknown>> = [];
  const report: RedisChaosReport = {
    seed: options.seed,
    tasks: taskCount,
    durationMs: 0,
    faults: [],
    finished: 0,
    doneReports: 0,
    leaseLost: 0,
    fencedWrites: 0,
    subscriptions: 0,
    doubles: [],
    wrongArtifacts: [],
    recordFaults: [],
    lateStops: [],
    failures: [],
    stopTimesMs: [],
  };
  const loud = quietOfficialServers();
  cleanup.push(async () => loud());
  try {
    const redis: RedisServer = await startRedisServer({ durableIn: dir });
    cleanup.push(() => redis.stop());
    const agent = await startOfficialV1Server({ watch: watch.middleware });
    cleanup.push(() => agent.close());

    // The tasks, started by a client of their own that then lets go of them (detach releases the leases).
    const starterStore = await createRedisTaskStore({ url: redis.url, prefix, leaseMs });
    const starter = await connect(agent.cardUrl, { store: starterStore, cardCache: false, leaseOwner: 'starter' });
    const ids: string[] = [];
    for (let i = 0; i < taskCount; i++) {
      // 4.5 to 18 s of work each: long enough that faults land while tasks are driven.
      const handle = await starter.start(`slow steps=${random.int(30, 60)} delayMs=${random.int(150, 300)}`);
      ids.push(handle.taskId ?? '');
      handle.detach();
    }
    await sleep(200);
    await starterStore.close();
    log(`seed ${options.seed}: ${taskCount} tasks started`);

    // The sampler: every record, every 100 ms, straight from Redis (not through any proxy).
    const seen = new Map<string, TaskRecord>();
    const sampler = createClient({ url: redis.url, socket: { reconnectStrategy: 100 }, disableOfflineQueue: true });
    sampler.on('error', () => undefined);
    await sampler.connect();
    cleanup.push(async () => {
      if (sampler.isOpen) await sampler.close().catch(() => sampler.destroy());
    });
    let sampling = true;
    const sampling$ = (async () => {
      while (sampling) {
        try {
          const values = await sampler.mGet(ids.map((id) => `${prefix}task-record:${starter.taskKey(id)}`));
          values.forEach((raw, index) => {
            const id = ids[index] as string;
            const before = seen.get(id);
            if (raw === null) {
              if (before) report.recordFaults.push(`${id}: the record was lost (it said ${before.state})`);
              return;
            }
            const record = JSON.parse(raw) as TaskRecord;
            if (before?.outcome && !record.outcome) report.recordFaults.push(`${id}: finished, then overwritten as ${record.state} without an outcome`);
            if (before && ['completed', 'failed', 'canceled', 'rejected'].includes(before.state) && !['completed', 'failed', 'canceled', 'rejected'].includes(record.state)) {
              report.recordFaults.push(`${id}: ${before.state}, then ${record.state}`);
            }
            seen.set(id, record);
          });
        } catch {
          // Redis is down (the run killed it): nothing to see.
        }
        await sleep(100);
      }
    })();

    // The workers, each through a proxy of its own to Redis.
    const workers: Worker[] = [];
    for (let i = 0; i < workerCount; i++) {
      const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: redis.port } });
      cleanup.push(() => proxy.close());
      const name = `w${i}`;
      // Each worker drives a share of the tasks (and a little more, to take over), so every fault hits work.
      const most = Math.ceil(taskCount / workerCount) + 2;
      const worker = new Worker(name, proxy, (owner) => [agent.cardUrl, `redis://${proxy.address}`, prefix, owner, String(leaseMs), String(most)]);
      worker.start();
      workers.push(worker);
    }
    cleanup.push(() => Promise.all(workers.map((w) => w.kill())));

    // Faults, from the seed, one at a time, for `faultMs`.
    const partitions: Array<{ worker: Worker; at: number }> = [];
    const faultsUntil = Date.now() + faultMs;
    while (Date.now() < faultsUntil) {
      await sleep(random.int(800, 2_500));
      const roll = random.next();
      const worker = workers[random.int(0, workers.length - 1)] as Worker;
      const at = Date.now() - started;
      if (roll < 0.4) {
        // Shorter than two thirds of the TTL the worker rides it out; longer, it must stop.
        const forMs = random.int(500, 2 * leaseMs);
        report.faults.push({ at, kind: 'partition', target: worker.name, forMs });
        worker.proxy.cutLink('partition');
        const cutAt = Date.now();
        partitions.push({ worker, at: cutAt });
        // While cut off, the worker's streams must all close before its leases could pass on.
        const held = watch.heldBy(`${worker.name}#`);
        log(`seed ${options.seed}: ${worker.name} holds ${held} streams when cut off`);
        for (let t = 0; t < forMs; t += 50) {
          await sleep(50);
          if (held > 0 && watch.heldBy(`${worker.name}#`) === 0) {
            report.stopTimesMs.push(Date.now() - cutAt);
            break;
          }
        }
        if (forMs > leaseMs && watch.heldBy(`${worker.name}#`) > 0) {
          report.lateStops.push(`${worker.name} still held ${watch.heldBy(`${worker.name}#`)} streams ${forMs} ms after a partition (lease ${leaseMs} ms)`);
        }
        worker.proxy.heal();
      } else if (roll < 0.6) {
        const forMs = random.int(200, 2_000);
        report.faults.push({ at, kind: 'reset', target: worker.name, forMs });
        worker.proxy.cutLink('reset');
        await sleep(forMs);
        worker.proxy.heal();
      } else if (roll < 0.85) {
        const forMs = random.int(300, 2_000);
        report.faults.push({ at, kind: 'kill-worker', target: worker.name, forMs });
        await worker.kill();
        await sleep(forMs);
        worker.start();
      } else {
        const forMs = random.int(200, 2_000);
        report.faults.push({ at, kind: 'kill-redis', target: 'redis', forMs });
        await redis.kill();
        await sleep(forMs);
        await redis.restart();
      }
      log(`seed ${options.seed}: ${report.faults.at(-1)?.kind} ${report.faults.at(-1)?.target} for ${report.faults.at(-1)?.forMs} ms`);
    }
    for (const worker of workers) if (!worker.alive) worker.start();

    // Every task finishes (the records say so), within the deadline.
    const finishedCount = (): number => [...seen.values()].filter((r) => r.outcome?.kind === 'finished').length;
    while (Date.now() - started < deadlineMs && finishedCount() < taskCount) await sleep(250);
    sampling = false;
    await sampling$;

    // The truth: the agent's own tasks.
    const direct = await connect(agent.cardUrl, { cardCache: false });
    const truth = new Map<string, string>();
    for (const id of ids) {
      const task = await direct.getTask(id);
      truth.set(id, artifactDigest(task));
      const record = seen.get(id);
      if (task.status.state !== 'completed') report.failures.push(`${id}: the agent says ${task.status.state}`);
      if (record?.outcome?.kind !== 'finished' || record.state !== task.status.state) {
        report.failures.push(`${id}: the record says ${record?.state ?? 'nothing'} (${record?.outcome?.kind ?? 'no outcome'}), the agent ${task.status.state}`);
      } else report.finished += 1;
    }
    for (const worker of workers) {
      for (const line of worker.lines) {
        if (line.kind === 'done') {
          report.doneReports += 1;
          if (line.detail !== truth.get(line.taskId)) report.wrongArtifacts.push(`${line.taskId}: ${worker.name} reported ${line.detail}, the agent has ${truth.get(line.taskId) ?? '?'}`);
        } else if (line.kind === 'failed') {
          if (line.detail === 'LEASE_LOST') report.leaseLost += 1;
          else report.failures.push(`${line.taskId}: ${worker.name} failed with ${line.detail}`);
        } else if (line.kind === 'store-error' && line.detail === 'LEASE_LOST') report.fencedWrites += 1;
      }
    }
    for (const worker of workers) {
      const notable = worker.lines.filter((l) => l.kind !== 'follow' && l.kind !== 'done');
      if (notable.length > 0) log(`seed ${options.seed}: ${worker.name}: ${notable.map((l) => `${l.at - started}ms ${l.kind} ${l.taskId.slice(0, 8)} ${l.detail}`).join('; ')}`);
    }
    report.doubles = [...watch.doubles];
    report.subscriptions = watch.opened;
    for (const worker of workers) await worker.kill('SIGTERM');
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    report.durationMs = Date.now() - started;
  }
  return report;
}
