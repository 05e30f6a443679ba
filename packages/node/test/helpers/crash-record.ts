// What the file-store crash children write and their parents check: a record is one that was written
// whole when its digest matches. Imported by the child fixture too, so it stays free of test-only imports.
import { createHash } from 'node:crypto';

/** The fields a crash child adds to every record it writes. */
export interface CrashFields {
  /** `round * 1_000_000 + i`: a later write has a larger one. */
  seq: number;
  payload: string;
  /** sha256 of `id|seq|payload`. */
  digest: string;
}

/** The digest of a crash record with this id, seq and payload. */
export function crashDigest(id: string, seq: number, payload: string): string {
  return createHash('sha256').update(`${id}|${seq}|${payload}`).digest('hex');
}

/** Crash fields with a payload of `size` characters that depends on `seq`. */
export function crashFields(id: string, seq: number, size: number): CrashFields {
  const unit = createHash('sha256').update(String(seq)).digest('hex');
  const payload = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return { seq, payload, digest: crashDigest(id, seq, payload) };
}
