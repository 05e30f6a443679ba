import { resolve } from 'node:path';
import type { TetherError } from '@a2a-tether/core';
import { WORKFLOW_RECORD_VERSION, type WorkflowRecord, type WorkflowStore } from '@a2a-tether/core/orchestrate';
import { RecordDirectory, type RecordKind } from './record-directory.js';

/** Options of {@link createFileWorkflowStore}. */
export interface FileWorkflowStoreOptions {
  /**
   * Called once per record file that `list()` skipped: `STORE_CORRUPT` for one that is not a workflow
   * record (not JSON, truncated, not an object, no `id` or `schemaVersion`, a `schemaVersion` newer
   * than this version of Tether knows, or filed under another workflow's name), `STORE_READ_FAILED`
   * for one that could not be read. The error's message names the file. Without it, skipped files
   * are silent.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
}

const WORKFLOWS: RecordKind = {
  noun: 'workflow',
  idField: 'id',
  version: WORKFLOW_RECORD_VERSION,
  store: 'FileWorkflowStore',
  repair: 'save() the workflow',
  maxBytes: 64 << 20, // a workflow's nodes, ledger and checkpoints, however long it runs
};

/**
 * A {@link WorkflowStore} that keeps one JSON file per workflow in `dir`, with the guarantees of
 * `createFileTaskStore` (the two share their file handling):
 * - `save` is all or nothing, also across a crash or `kill -9`: the record goes to a temporary file
 *   in the same directory, is fsynced, renamed over the old one, and the directory is fsynced. Once
 *   `save` resolves, `load` returns the new record, in this process or after a restart.
 * - Calls for one workflow run one at a time, in call order; `list` sees every `save` called before it.
 *   Stores of this process on one real directory share their queues; a `save` holds the workflow
 *   file's lock (`.<file>.lock`) against other processes' saves, as a task store's writes do.
 * - Files are created with mode 0600, the directory (created on first use, with its parents) 0700.
 * - File names derive from the workflow id (hex of it, or a SHA-256 for long ids), never a path;
 *   the id is also stored inside the record and checked on read.
 * - Temporary files a crash left behind are ignored, and removed (best effort) when the store opens.
 * - Only regular files of at most 64 MiB are read, opened without blocking (a FIFO or a huge file
 *   under a workflow's file name is `STORE_CORRUPT`); a larger record is refused (`INVALID_ARGUMENT`).
 *
 * Errors are {@link TetherError}s naming the file: `STORE_CORRUPT` from `load` for a file that is
 * not a workflow record (not a regular file, over 64 MiB, not JSON …), holds a `schemaVersion`
 * newer than {@link WORKFLOW_RECORD_VERSION} or another workflow's id (`list` skips such files and reports them to `options.onCorrupt`; `save`
 * replaces it); `STORE_WRITE_FAILED` when a write fails (permissions, a full disk; `cause` is the
 * file system's error), leaving the previous record intact; `STORE_UNAVAILABLE` (retryable) when
 * another process held the workflow's lock for 10 s; `STORE_READ_FAILED` when a file or the
 * directory cannot be read; `INVALID_ARGUMENT` for an empty or malformed id or a record that is not
 * JSON-serializable.
 *
 * @param dir The directory of the records, resolved against the current directory now.
 */
export function createFileWorkflowStore(dir: string, options: FileWorkflowStoreOptions = {}): WorkflowStore {
  return new FileWorkflowStore(new RecordDirectory<WorkflowRecord>(resolve(dir), WORKFLOWS), options);
}

class FileWorkflowStore implements WorkflowStore {
  constructor(
    private readonly files: RecordDirectory<WorkflowRecord>,
    private readonly options: FileWorkflowStoreOptions,
  ) {}

  load(workflowId: string): Promise<WorkflowRecord | undefined> {
    return this.files.serially(workflowId, 'load', (name) => this.files.read(name, workflowId, 'load'));
  }

  save(record: WorkflowRecord): Promise<void> {
    const id = (record as Partial<WorkflowRecord> | null)?.id as string;
    return this.files.serially(id, 'save', (name) => this.files.locked(name, id, 'save', () => this.files.write(name, record, 'save')));
  }

  async list(): Promise<string[]> {
    const found = await this.files.readAll('list', this.options.onCorrupt);
    return found.map((record) => record.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
