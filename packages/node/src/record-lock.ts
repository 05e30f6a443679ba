// One writer per record file, across processes: a lock file beside the record, taken before a
// read-modify-write and given back after it. Internal to this package (record-directory.ts).
import { randomBytes } from 'node:crypto';
import { link, open, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readCapped } from './read-capped.js';
import { holderAbandoned, ownTempTag } from './temp-owner.js';

/** How a record lock is waited for and judged abandoned. */
export const RECORD_LOCK = {
  /** A write waits this long (ms, monotonic) for another process's lock, then fails `STORE_UNAVAILABLE`. */
  waitMs: 10_000,
  /**
   * A lock whose holder is not provably alive (another host, no start time to compare) and that has
   * not been touched for this long (ms) is abandoned. Its holder touches it every third of this.
   */
  leaseMs: 30_000,
  /** The first pause between two tries (ms), doubled up to `maxPauseMs`, each drawn between half and all of it. */
  firstPauseMs: 1,
  maxPauseMs: 32,
} as const;

/** A lock file's content: its holder's tag (host, pid, start time) and a nonce no other lock has. */
const CONTENT = /^(\S{1,64}) ([0-9a-f]{16})$/;
/** Lock and claim files are a few dozen bytes: anything larger is not one. */
const MAX_LOCK_BYTES = 256;
/** Claims of claims: only a process that dies while taking an abandoned lock over adds one. */
const MAX_CLAIM_DEPTH = 8;

/** Why a lock could not be taken: the caller turns it into its store's typed error. */
export class LockFailure extends Error {
  constructor(
    readonly code: 'STORE_UNAVAILABLE' | 'STORE_WRITE_FAILED',
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

interface Holder {
  tag: string;
  nonce: string;
  /** When the lock was taken or last touched (wall clock, from the file: other processes read it too). */
  mtimeMs: number;
}

/**
 * Runs `operation` while holding the lock of record file `name` in `dir`: `.<name>.lock`, created
 * whole or not at all (written to a temporary file, then hard-linked to its name: `link` fails when
 * the name exists). Another process's lock is waited for, polling, up to {@link RECORD_LOCK}.waitMs;
 * an abandoned one (its holder gone, or silent past the lease) is taken over. Rejects with a
 * {@link LockFailure} when the lock cannot be had, and with what `operation` throws otherwise.
 *
 * Taking over is safe against other takers: removing the abandoned lock of nonce N first needs the
 * claim `.<name>.<N>.take`, which only one process can create. Since N is never reused, the claim's
 * holder alone may find N in the lock file and remove it; anyone else finds another nonce (or none)
 * and leaves the lock alone.
 */
export async function withRecordLock<T>(dir: string, name: string, operation: () => Promise<T>): Promise<T> {
  const lock = join(dir, `.${name}.lock`);
  const nonce = randomBytes(8).toString('hex');
  await acquire(dir, name, lock, nonce);
  const heartbeat = setInterval(() => {
    const now = new Date();
    void utimes(lock, now, now).catch(() => undefined);
  }, RECORD_LOCK.leaseMs / 3);
  heartbeat.unref();
  try {
    return await operation();
  } finally {
    clearInterval(heartbeat);
    // Still ours (a lease that lapsed may have been taken over): give it back.
    if ((await holder(lock).catch(() => undefined))?.nonce === nonce) await unlink(lock).catch(() => undefined);
  }
}

async function acquire(dir: string, name: string, lock: string, nonce: string): Promise<void> {
  const deadline = performance.now() + RECORD_LOCK.waitMs;
  let pause: number = RECORD_LOCK.firstPauseMs;
  let last: Holder | undefined;
  // Bounded by the deadline, checked on every turn that did not take the lock.
  for (;;) {
    if (await create(dir, `.${name}.lock`, nonce)) return;
    last = await holder(lock).catch(() => last);
    if (performance.now() >= deadline) {
      const by = last === undefined ? 'another writer' : `process ${last.tag.split('-')[1] ?? '?'} (${last.tag})`;
      throw new LockFailure('STORE_UNAVAILABLE', `its lock is held by ${by}, still after ${RECORD_LOCK.waitMs} ms`);
    }
    // An abandoned lock removed: try again at once. Otherwise wait for its holder to give it back.
    if (last !== undefined && holderAbandoned(last.tag, Date.now() - last.mtimeMs, RECORD_LOCK.leaseMs)) {
      if (await removeAbandoned(dir, name, lock, last.nonce, 0)) continue;
    }
    await new Promise((resolve) => setTimeout(resolve, pause / 2 + (Math.random() * pause) / 2));
    pause = Math.min(pause * 2, RECORD_LOCK.maxPauseMs);
  }
}

/** `link` errors of file systems without hard links (FAT, some FUSE and network ones). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates `dir`/`base` holding this process's tag and `nonce`, whole: false when it exists. Where hard
 * links cannot be made, it is created empty and then written (a reader may see it empty for a moment:
 * a lock judged by its age then, fresh).
 */
async function create(dir: string, base: string, nonce: string): Promise<boolean> {
  const path = join(dir, base);
  const content = `${ownTempTag()} ${nonce}`;
  const temp = join(dir, `.${base.slice(1)}.${ownTempTag()}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeNew(temp, content);
    try {
      await link(temp, path);
    } catch (error) {
      if (!NO_LINKS.has(codeOf(error))) throw error;
      await writeNew(path, content);
    }
    return true;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw new LockFailure('STORE_WRITE_FAILED', `could not create its lock file ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function writeNew(path: string, content: string): Promise<void> {
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(content, 'utf8');
  } finally {
    await file.close();
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * Who holds lock or claim `path`; undefined when nobody does. A file that is not one (garbage, a FIFO,
 * too large: not written by a store) has no holder's tag, and is judged by its age alone.
 */
async function holder(path: string): Promise<Holder | undefined> {
  const read = await readCapped(path, MAX_LOCK_BYTES);
  if (read.kind === 'missing') return undefined;
  if (read.kind !== 'bytes') return { tag: '', nonce: '', mtimeMs: 0 };
  const [, tag = '', nonce = ''] = CONTENT.exec(read.bytes.toString('utf8')) ?? [];
  return { tag, nonce, mtimeMs: read.mtimeMs };
}

/**
 * Removes lock (or claim) `path` if it still holds `nonce`, under the claim of that nonce; true
 * when it did (a claim of a claim removed counts: the lock's own claim is free again). A claim
 * held by a live taker is left to it; an abandoned claim (its taker died) is removed the same way.
 * A foreign file (no nonce) is removed only while it still is one: a lock is never without its nonce
 * where hard links can be made, so a lock created meanwhile is left alone.
 */
async function removeAbandoned(dir: string, name: string, path: string, nonce: string, depth: number): Promise<boolean> {
  // A file that is not a lock a store wrote has no nonce: its removal is claimed under one name.
  const claim = `.${name}.${nonce === '' ? 'foreign' : nonce}.take`;
  if (!(await create(dir, claim, randomBytes(8).toString('hex')))) {
    const taker = await holder(join(dir, claim)).catch(() => undefined);
    if (taker !== undefined && depth < MAX_CLAIM_DEPTH && holderAbandoned(taker.tag, Date.now() - taker.mtimeMs, RECORD_LOCK.leaseMs)) {
      return removeAbandoned(dir, name, join(dir, claim), taker.nonce, depth + 1);
    }
    return false;
  }
  try {
    if ((await holder(path).catch(() => undefined))?.nonce !== nonce) return false;
    return await unlink(path).then(
      () => true,
      () => false,
    );
  } finally {
    await unlink(join(dir, claim)).catch(() => undefined);
  }
}
