// Reading a file a store did not necessarily write: a record or a lock whose name someone else may have
// given to a FIFO, a device or a huge file. Internal to this package (record-directory.ts, record-lock.ts).
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/**
 * Opened without waiting: a FIFO opens at once instead of blocking (a thread of the pool, for ever)
 * until some writer opens it. Windows has no such flag, and no FIFOs to open.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Bytes asked of one read(2) past the size the file had when opened (it grew meanwhile). */
const CHUNK = 64 * 1024;

/** What {@link readCapped} found. */
export type CappedRead =
  | { kind: 'missing' }
  | { kind: 'bytes'; bytes: Buffer; mtimeMs: number }
  /** Not a regular file: `what` is "a FIFO", "a directory" … */
  | { kind: 'special'; what: string }
  /** A regular file of more than the cap: `size` is what it holds (at least what was read of it). */
  | { kind: 'over'; size: number };

/**
 * The bytes of the regular file at `path` — `missing` when there is none — reading at most `cap` + 1
 * bytes of it whatever it holds: what the opened file is (fstat, not the name) decides, so a FIFO, a
 * device or a file over `cap` bytes is never read. Other file-system errors are thrown as they are.
 */
export async function readCapped(path: string, cap: number): Promise<CappedRead> {
  let file;
  try {
    file = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT') return { kind: 'missing' };
    // A socket (or a device without a driver) cannot be opened at all: it is not a file either.
    const info = code === 'ENXIO' ? await stat(path).catch(() => undefined) : undefined;
    if (info !== undefined && !info.isFile()) return { kind: 'special', what: special(info) };
    throw error;
  }
  try {
    const info = await file.stat();
    if (!info.isFile()) return { kind: 'special', what: special(info) };
    if (info.size > cap) return { kind: 'over', size: info.size };
    const chunks: Buffer[] = [];
    let total = 0;
    // Each turn reads at least one byte, and stops past `cap`: at most `cap` + 1 bytes in all.
    for (let want = info.size + 1; ; want = Math.min(CHUNK, cap + 1 - total)) {
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await file.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > cap) return { kind: 'over', size: total };
    }
    return { kind: 'bytes', bytes: Buffer.concat(chunks, total), mtimeMs: info.mtimeMs };
  } finally {
    await file.close();
  }
}

function special(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a directory';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a file';
}
