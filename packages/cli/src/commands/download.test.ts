import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Artifact, Task } from '@a2a-tether/node';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeArtifactFiles, safeName, saveArtifacts, type ArtifactFiles } from './download.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tether-download-'));
  dirs.push(dir);
  return dir;
};

const task = (artifacts: Artifact[]): Task => ({ kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' }, artifacts, history: [] });

/** Node's file system, each create (the existence check and the write in one) counted. */
function counted(): ArtifactFiles & { creates: number } {
  const files = {
    creates: 0,
    mkdir: nodeArtifactFiles.mkdir,
    create: (path: string, content: Buffer) => {
      files.creates++;
      return nodeArtifactFiles.create(path, content);
    },
  };
  return files;
}

describe('saveArtifacts: free names in linear time', () => {
  it('20,000 artifacts with one name: 20,000 files, one create each (no probing of the names already written)', () => {
    const dir = freshDir();
    const files = counted();
    const n = 20_000;
    const artifacts = Array.from({ length: n }, (_, i): Artifact => ({ artifactId: `a${i}`, name: 'same', parts: [{ kind: 'text', text: `#${i + 1}` }] }));
    const { saved } = saveArtifacts(task(artifacts), dir, files);
    expect(saved).toHaveLength(n);
    expect(files.creates).toBe(n);
    expect(readdirSync(dir)).toHaveLength(n);
    expect(saved[0]?.path).toBe(join(dir, 'same.txt'));
    expect(saved[n - 1]?.path).toBe(join(dir, `same-${n}.txt`));
    expect(readFileSync(join(dir, `same-${n}.txt`), 'utf8')).toBe(`#${n}`);
  });

  it('files already there are never overwritten: each costs one more try', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'report.txt'), 'mine');
    writeFileSync(join(dir, 'report-2.txt'), 'mine too');
    const files = counted();
    const artifacts = Array.from({ length: 3 }, (_, i): Artifact => ({ artifactId: `a${i}`, name: 'report', parts: [{ kind: 'text', text: `new ${i}` }] }));
    const { saved } = saveArtifacts(task(artifacts), dir, files);
    expect(saved.map((s) => s.path)).toEqual(['report-3.txt', 'report-4.txt', 'report-5.txt'].map((name) => join(dir, name)));
    expect(files.creates).toBe(5);
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(dir, 'report-2.txt'), 'utf8')).toBe('mine too');
  });

  it('a name that looks like a generated one gets its own suffix', () => {
    const dir = freshDir();
    const artifacts: Artifact[] = [
      { artifactId: 'a', name: 'x', parts: [{ kind: 'text', text: '1' }] },
      { artifactId: 'b', name: 'x-2.txt', parts: [{ kind: 'text', text: '2' }] },
      { artifactId: 'c', name: 'x', parts: [{ kind: 'text', text: '3' }] },
    ];
    const { saved } = saveArtifacts(task(artifacts), dir);
    expect(saved.map((s) => s.path)).toEqual(['x.txt', 'x-2.txt', 'x-3.txt'].map((name) => join(dir, name)));
  });
});

describe('safeName', () => {
  it('never a path, never dots alone', () => {
    expect(safeName('../../etc/passwd', 'f')).toBe('passwd');
    expect(safeName('..\\..\\boot.ini', 'f')).toBe('boot.ini');
    expect(safeName('..', 'f')).toBe('f');
    expect(safeName('a/..', 'f')).toBe('f');
    expect(safeName('.hidden', 'f')).toBe('hidden');
    expect(safeName(undefined, 'f')).toBe('f');
  });

  it('no control, bidi or reserved character, no tab or newline: each becomes _', () => {
    expect(safeName('a\u001b[2Jb', 'f')).toBe('a_[2Jb');
    expect(safeName('invoice\u202etxt.exe', 'f')).toBe('invoice_txt.exe');
    expect(safeName('a\u009bb\u0085c\u2066d\u200fe\u061cf\u2028g', 'f')).toBe('a_b_c_d_e_f_g');
    expect(safeName('a\tb\nc\rd\u007fe', 'f')).toBe('a_b_c_d_e');
    expect(safeName('a<b>c:d"e|f?g*h', 'f')).toBe('a_b_c_d_e_f_g_h');
  });
});
