import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Artifact, Task } from '@a2a-tether/node';
import { openClient } from '../agent/open-client.js';
import { field, taskFields } from '../output/text.js';
import { line, UNSAFE_CHARS } from '../output/terminal-safe.js';
import { wireTask } from '../output/wire.js';
import type { RunContext } from './context.js';

/** One file written (or a part that was not: a file given by URI is not fetched). */
export interface Saved {
  path: string;
  bytes: number;
}

/** What a file name never holds: what the terminal never shows (bidi controls included), tab and newline, and characters Windows reserves. */
const UNSAFE_IN_NAMES = new RegExp(`[${UNSAFE_CHARS}\\t\\n<>:"|?*]`, 'g');

/**
 * A file name the agent chose, made safe: only its last path segment, no control, bidi or reserved
 * characters (each becomes `_`), no leading dots, at most 120 characters. Never a path: `../../x`
 * becomes `x`, and `..` the fallback.
 */
export function safeName(name: string | undefined, fallback: string): string {
  const last = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = last.replace(UNSAFE_IN_NAMES, '_').replace(/^[.\s]+/, '').replace(/[.\s]+$/, '').slice(0, 120);
  return cleaned === '' ? fallback : cleaned;
}

/** The file system as {@link saveArtifacts} uses it (tests count its calls). */
export interface ArtifactFiles {
  /** Creates the directory and its parents, if needed. */
  mkdir(dir: string): void;
  /** Creates `path` holding `content`; `false` when something already has that name (never overwritten). */
  create(path: string, content: Buffer): boolean;
}

/** Node's file system: a file is created exclusively (`wx`), so the existence check and the write are one step. */
export const nodeArtifactFiles: ArtifactFiles = {
  mkdir: (dir) => void mkdirSync(dir, { recursive: true }),
  create: (path, content) => {
    try {
      writeFileSync(path, content, { flag: 'wx', mode: 0o644 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  },
};

/**
 * Writes files into one directory under names that are free (`name`, then `name-2.ext`, `name-3.ext` …).
 * Each name remembers its next suffix, so n artifacts with one name cost n writes, not n²/2 probes;
 * a file that was there before costs one more try.
 */
class FreeNames {
  private readonly next = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly files: ArtifactFiles,
  ) {}

  /** Writes `content` under `name` or the first free name after it; the path written. Throws if it would leave the directory. */
  write(name: string, content: Buffer): string {
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const ext = dot > 0 ? name.slice(dot) : '';
    // Bounded: every name refused is an entry of the directory, and the suffix only grows.
    for (let i = this.next.get(name) ?? 1; ; i++) {
      const candidate = join(this.dir, i === 1 ? name : `${stem}-${i}${ext}`);
      const rel = relative(this.dir, candidate);
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`refusing to write outside ${this.dir}: ${name}`);
      if (this.files.create(candidate, content)) {
        this.next.set(name, i + 1);
        return candidate;
      }
    }
  }
}

/** Writes an artifact's parts: its text as `<name>.txt`, each data part as `.json`, each inline file as its bytes. */
function writeArtifact(names: FreeNames, artifact: Artifact, index: number, skipped: string[]): Saved[] {
  const base = safeName(artifact.name, safeName(artifact.artifactId, `artifact-${index + 1}`));
  const saved: Saved[] = [];
  const write = (name: string, content: Buffer): void => {
    saved.push({ path: names.write(name, content), bytes: content.length });
  };
  const text = artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  if (artifact.parts.some((p) => p.kind === 'text')) write(/\.[a-z0-9]{1,8}$/i.test(base) ? base : `${base}.txt`, Buffer.from(text, 'utf8'));
  artifact.parts.forEach((part, i) => {
    if (part.kind === 'data') write(`${base}-${i + 1}.json`, Buffer.from(`${JSON.stringify(part.data, null, 2)}\n`, 'utf8'));
    else if (part.kind === 'file') {
      if (part.bytes === undefined) skipped.push(`${base} part ${i + 1}: a file by URI (${part.uri}), not fetched`);
      else write(safeName(part.filename, `${base}-${i + 1}.bin`), Buffer.from(part.bytes, 'base64'));
    }
  });
  return saved;
}

/** Writes every artifact of a task into `dir` (created if needed); names are sanitized and never overwrite. */
export function saveArtifacts(task: Task, dir: string, files: ArtifactFiles = nodeArtifactFiles): { saved: Saved[]; skipped: string[] } {
  files.mkdir(dir);
  const names = new FreeNames(dir, files);
  const skipped: string[] = [];
  const saved = task.artifacts.flatMap((artifact, i) => writeArtifact(names, artifact, i, skipped));
  return { saved, skipped };
}

/** `task download <taskId> [--dir <dir>]`: GetTask, then the artifacts written to files. */
export async function taskDownload(context: RunContext, taskId: string, flags: { dir?: string | undefined }): Promise<void> {
  const { io, globals } = context;
  const dir = resolve(io.cwd, flags.dir ?? '.');
  const client = await openClient(context);
  const task = await client.getTask(taskId);
  const { saved, skipped } = saveArtifacts(task, dir);
  for (const note of skipped) io.err(line`Skipped: ${note}\n`);
  if (globals.output === 'json') {
    for (const file of saved) io.err(line`Saved: ${file.path} (${file.bytes} bytes)\n`);
    io.out(`${JSON.stringify(wireTask(task, client.interface.protocolVersion), null, 2)}\n`);
    return;
  }
  io.out(taskFields(task) + saved.map((file) => field('Saved', `${file.path} (${file.bytes} bytes)`)).join(''));
}
