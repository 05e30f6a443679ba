// Who wrote a record directory's temporary file or holds a record's lock, and whether that file or
// lock is provably abandoned. Internal to this package (record-directory.ts, record-lock.ts).
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * A temporary file untouched this long is abandoned, whoever wrote it: a write goes from its last
 * byte to its rename in milliseconds (seconds on a slow disk).
 */
export const STALE_TEMP_MS = 60 * 60_000;

/** A start time that could not be read (no `/proc`): such a process is told apart by its pid only. */
const UNKNOWN = '0';

/** `.<record name>.<host>-<pid>-<start>.<random>.tmp` */
const OWNED = /\.([0-9a-f]{8})-([1-9]\d{0,9})-(\d{1,20})\.[0-9a-f]+\.tmp$/;

/** The process that wrote a temporary file. */
interface TempOwner {
  /** Its host name and pid namespace, hashed: a pid means something only inside its namespace. */
  host: string;
  pid: number;
  /** When it started (clock ticks after boot): a pid the system gave to a later process has another one. */
  start: string;
}

let hostToken: string | undefined;

/** This host and pid namespace: containers that share a volume each have their own pids. */
function host(): string {
  if (hostToken === undefined) {
    let namespace = '';
    try {
      namespace = readlinkSync('/proc/self/ns/pid'); // e.g. `pid:[4026531836]`; Linux only
    } catch {
      // Elsewhere the host name alone stands for the namespace.
    }
    hostToken = createHash('sha256').update(`${hostname()}\n${namespace}`).digest('hex').slice(0, 8);
  }
  return hostToken;
}

/** When process `pid` started, from `/proc/<pid>/stat` (Linux); `undefined` where it cannot be read. */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command, is in parentheses and may hold spaces: count from after its last ')'.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; // field 22, starttime
    return start !== undefined && /^\d{1,20}$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` exists: signal 0 is never delivered, only checked (EPERM: it exists, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

let ownStart: string | undefined;

/** When this process started (read once: worker threads share it). */
function startOfSelf(): string {
  ownStart ??= startOf(process.pid) ?? UNKNOWN;
  return ownStart;
}

/**
 * The owner part of the names of the temporary files that process `pid` (of this host) writes:
 * `<host>-<pid>-<start>`. Worker threads share their process's tag.
 */
export function tempTag(pid: number): string {
  return `${host()}-${pid}-${pid === process.pid ? startOfSelf() : (startOf(pid) ?? UNKNOWN)}`;
}

/** {@link tempTag} of this process. */
export function ownTempTag(): string {
  return tempTag(process.pid);
}

/** `<host>-<pid>-<start>`, as {@link tempTag} writes it. */
const TAG = /^([0-9a-f]{8})-([1-9]\d{0,9})-(\d{1,20})$/;

function ownerOf(name: string): TempOwner | undefined {
  const match = OWNED.exec(name);
  return match ? owner(match) : undefined;
}

function owner([, host = '', pid = '', start = UNKNOWN]: RegExpExecArray): TempOwner {
  return { host, pid: Number(pid), start };
}

/**
 * Whether a temporary file `ageMs` old can be removed because no write will ever rename it:
 * - its writer, on this host, is gone: no process has its pid, or the process that has it started at
 *   another time (the pid was given to a later process, e.g. this one after a restart);
 * - or it is older than {@link STALE_TEMP_MS} and its writer is not provably alive (another host or
 *   pid namespace, no start time to compare, a name from a Tether that wrote no owner tag).
 * The file of a writer that is provably alive — this process included — is never abandoned.
 */
export function tempAbandoned(name: string, ageMs: number): boolean {
  return abandoned(ownerOf(name), ageMs, STALE_TEMP_MS);
}

/**
 * Whether what the process tagged `tag` ({@link tempTag}) holds — a record's lock — is abandoned
 * after `ageMs` without a sign of life: its holder is provably gone, or it is not provably alive and
 * `ageMs` is over `boundMs`. A malformed tag is judged by its age alone.
 */
export function holderAbandoned(tag: string, ageMs: number, boundMs: number): boolean {
  const match = TAG.exec(tag);
  return abandoned(match ? owner(match) : undefined, ageMs, boundMs);
}

function abandoned(owner: TempOwner | undefined, ageMs: number, boundMs: number): boolean {
  if (owner !== undefined && owner.host === host()) {
    if (!alive(owner.pid)) return true;
    const start = owner.pid === process.pid ? startOfSelf() : startOf(owner.pid);
    if (owner.start !== UNKNOWN && start !== undefined && start !== UNKNOWN) return start !== owner.start;
  }
  return ageMs > boundMs;
}
