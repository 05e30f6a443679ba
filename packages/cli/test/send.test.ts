import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startTestAgent, type TestAgent, type TestPart } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

let agent: TestAgent;
let box: Sandbox;
let seenParts: TestPart[] = [];

beforeAll(async () => {
  agent = await startTestAgent({
    scenarios: {
      parts: (ctx) => {
        seenParts = ctx.userMessage.parts;
        ctx.message('got parts');
      },
      files: (ctx) => {
        ctx.status('working');
        ctx.artifact({ artifactId: 'a1', name: '../../escape', text: 'escaped?', lastChunk: true });
        ctx.artifact({ artifactId: 'a2', name: 'report', parts: [{ kind: 'data', data: { total: 3 } }], lastChunk: true });
        ctx.artifact({
          artifactId: 'a3',
          name: 'blob',
          parts: [{ kind: 'file', bytes: Buffer.from('hello-bytes').toString('base64'), filename: '../../../etc/passwd-evil', mediaType: 'application/octet-stream' }],
          lastChunk: true,
        });
        ctx.status('completed');
      },
    },
  });
  box = sandbox();
});
afterAll(async () => {
  await agent?.close();
  box?.remove();
});

const STREAM = 'stream updates=4 chunks=10 delayMs=10';
const RESULT = Array.from({ length: 10 }, (_, i) => `chunk-${i + 1};`).join('');

describe('send', () => {
  it('text: task id, context id and state as fields, the artifact as a block', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', STREAM]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Task ID: \S+\nContext ID: \S+\nState: completed\n/);
    expect(run.stdout).toContain(`Artifact result:\n${RESULT}\n\n`);
    const taskId = /^Task ID: (\S+)$/m.exec(run.stdout)?.[1] ?? '';
    // Only the task id on stderr, said before the wait (an interrupted wait keeps it).
    expect(run.stderr).toBe(`Waiting for task ${taskId} (interrupting stops watching, not the task: tether task resume ${taskId})\n`);
  });

  it('-o json: one document, the SendMessageResponse with the whole artifact', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', STREAM, '-o', 'json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0]?.parts.map((p) => p.text).join('')).toBe(RESULT);
    expect(agent.tasks.get(body.task.id)?.state).toBe('completed');
  });

  it('--stream -o json: JSON Lines of StreamResponse, the task first, the terminal status last', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', STREAM, '-o', 'json', '--stream']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, { status?: { state: string }; artifact?: { parts: { text: string }[] } }>);
    expect(lines.length).toBeGreaterThan(3);
    expect(Object.keys(lines[0] ?? {})).toEqual(['task']);
    for (const line of lines) expect(Object.keys(line)).toHaveLength(1);
    expect(lines.at(-1)?.['statusUpdate']?.status?.state).toBe('TASK_STATE_COMPLETED');
    const text = lines.flatMap((l) => l['artifactUpdate']?.artifact?.parts ?? []).map((p) => p.text).join('');
    expect(text).toBe(RESULT);
  });

  it('--stream text: each event in fields and blocks, the ids and state restated at the end', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', STREAM, '--stream']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Event: status\nState: working\n');
    expect(run.stdout).toContain('Event: artifact\n');
    expect(run.stdout).toMatch(/Task ID: \S+\nContext ID: \S+\nState: completed\n[^]*$/);
  });

  it('--context-id starts a new task in that context', async () => {
    const first = JSON.parse((await box.run(['send', '-a', agent.url, '--text', 'artifacts n=1 delayMs=1', '-o', 'json'])).stdout) as { task: { id: string; contextId: string } };
    const second = await box.run(['send', '-a', agent.url, '--context-id', first.task.contextId, '--text', 'artifacts n=1 delayMs=1', '-o', 'json']);
    expect(second.code).toBe(0);
    const { task } = JSON.parse(second.stdout) as { task: { id: string; contextId: string } };
    expect(task.contextId).toBe(first.task.contextId);
    expect(task.id).not.toBe(first.task.id);
  });

  it('renders every part: text as text, data as formatted JSON, a file by name, media type and size', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'files']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Artifact ../../escape:\nescaped?\n\n');
    expect(run.stdout).toContain('Artifact report:\n{\n  "total": 3\n}\n\n');
    expect(run.stdout).toContain('Artifact blob:\n[file ../../../etc/passwd-evil, application/octet-stream, 11 bytes]\n\n');
  });

  it('--verbose: a block per part with its kind, and the history', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'stream updates=1 chunks=2 delayMs=1', '--verbose']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Artifact result part 1 (text):\nchunk-1;\n\n');
    expect(run.stdout).toContain('Artifact result part 2 (text):\nchunk-2;\n\n');
    expect(run.stdout).toMatch(/History 1 \(user\):\nstream updates=1 chunks=2 delayMs=1\n\n/);
  });

  it('a direct message answer: exit 0, the message (json: { message })', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'echo hello there', '-o', 'json', '--stream']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ message: { role: 'ROLE_AGENT', parts: [{ text: 'echo: echo hello there' }] } });
  });

  it('a failed task still exits 0, names the outcome on stderr', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'fail']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('State: failed\n');
    expect(run.stdout).toContain('Status Message: failed on purpose\n');
    expect(run.stderr).toMatch(/Warning: task \S+ ended failed/);
  });

  it('input-required: stops with exit 0 and the exact resume command; --task-id answers it', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'input']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('State: input-required\n');
    const taskId = /^Task ID: (\S+)$/m.exec(run.stdout)?.[1] ?? '';
    expect(run.stdout).toContain(`Resume: tether send --task-id ${taskId} --text "<reply>" -a ${agent.url}\n`);
    const reply = await box.run(['send', '-a', agent.url, '--task-id', taskId, '--text', 'forty-two', '-o', 'json']);
    expect(reply.code).toBe(0);
    const body = JSON.parse(reply.stdout) as { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
    expect(body.task.id).toBe(taskId);
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0]?.parts[0]?.text).toBe('got: forty-two');
  });

  it('a rejected --task-id fails with TaskNotFoundError (exit 1) and starts no task', async () => {
    const before = agent.tasks.list().length;
    const run = await box.run(['send', '-a', agent.url, '--task-id', 'no-such-task', '--text', 'hello', '-o', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'TaskNotFoundError', a2aCode: -32001 } });
    expect(agent.tasks.list().length).toBe(before);
  });

  it('ordered parts: --text, --file with --media-type, --data from stdin', async () => {
    mkdirSync(box.cwd, { recursive: true });
    writeFileSync(join(box.cwd, 'report.bin'), 'PDF?');
    const run = await box.run(['send', '-a', agent.url, '--text', 'parts', '--file', 'report.bin', '--media-type', 'application/pdf', '--data', '-', '--text', 'tail'], { input: '{"k":[1,2]}' });
    expect(run.code).toBe(0);
    expect(seenParts.map((p) => p.kind)).toEqual(['text', 'file', 'data', 'text']);
    expect(seenParts[1]).toMatchObject({ kind: 'file', mediaType: 'application/pdf', filename: 'report.bin', bytes: Buffer.from('PDF?').toString('base64') });
    expect(seenParts[2]).toMatchObject({ kind: 'data', data: { k: [1, 2] } });
  });

  it('--timeout: exit 5, A2ACLI_ERR_TIMEOUT, the task id in the hint', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=400 delayMs=50', '--timeout', '1s', '-o', 'json']);
    expect(run.code).toBe(5);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; hint: string } };
    expect(error.code).toBe('A2ACLI_ERR_TIMEOUT');
    expect(error.hint).toMatch(/task resume \S+/);
  });
});

describe('--async, task get, task cancel, task list, task subscribe', () => {
  it('--async returns the ids at once; task get --wait polls to the end', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=10 delayMs=50', '--async', '-o', 'json']);
    expect(run.code).toBe(0);
    const { task } = JSON.parse(run.stdout) as { task: { id: string; contextId: string; status: { state: string } } };
    expect(task.id).not.toBe('');
    expect(task.contextId).not.toBe('');
    expect(task.status.state).not.toBe('TASK_STATE_COMPLETED');
    const got = await box.run(['task', 'get', task.id, '-a', agent.url, '--wait', '--poll-interval', '200ms', '-o', 'json']);
    expect(got.code).toBe(0);
    const final = JSON.parse(got.stdout) as { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] };
    expect(final.id).toBe(task.id);
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(final.artifacts[0]?.parts.map((p) => p.text).join('')).toBe(Array.from({ length: 10 }, (_, i) => `chunk-${i + 1};`).join(''));
    const text = await box.run(['task', 'get', task.id, '-a', agent.url, '--history', '5']);
    expect(text.stdout).toMatch(/^Task ID: \S+\nContext ID: \S+\nState: completed\n/);
  });

  it('task get --wait --timeout on a task that stays working: exit 5', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json']);
    const { task } = JSON.parse(run.stdout) as { task: { id: string } };
    const got = await box.run(['task', 'get', task.id, '-a', agent.url, '--wait', '--poll-interval', '100ms', '--timeout', '500ms']);
    expect(got.code).toBe(5);
    expect(got.stderr).toContain('Code: A2ACLI_ERR_TIMEOUT');
    await box.run(['task', 'cancel', task.id, '-a', agent.url]);
  });

  it('task cancel reports the canceled task; a second cancel is TaskNotCancelableError', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json']);
    const { task } = JSON.parse(run.stdout) as { task: { id: string } };
    const cancel = await box.run(['task', 'cancel', task.id, '-a', agent.url]);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain(`Task ID: ${task.id}\n`);
    expect(cancel.stdout).toContain('State: canceled\n');
    const again = await box.run(['task', 'cancel', task.id, '-a', agent.url, '-o', 'json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error.code).toBe('TaskNotCancelableError');
  });

  it('task get of an unknown id: TaskNotFoundError, exit 1, text on stderr', async () => {
    const run = await box.run(['task', 'get', 'nope-123', '-a', agent.url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Code: TaskNotFoundError\nA2A Code: -32001\n');
  });

  it('task list: ListTasksResponse in json, filtered by context', async () => {
    const first = JSON.parse((await box.run(['send', '-a', agent.url, '--text', 'artifacts n=1 delayMs=1', '-o', 'json'])).stdout) as { task: { id: string; contextId: string } };
    const run = await box.run(['task', 'list', '-a', agent.url, '--context-id', first.task.contextId, '-o', 'json']);
    expect(run.code).toBe(0);
    const page = JSON.parse(run.stdout) as { tasks: { id: string }[]; nextPageToken: string };
    expect(page.tasks.map((t) => t.id)).toEqual([first.task.id]);
    const text = await box.run(['task', 'list', '-a', agent.url, '--status', 'completed']);
    expect(text.stdout).toContain(`Task ID: ${first.task.id}\n`);
  });

  it('task subscribe follows a running task to its end (json: the terminal Task)', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=8 delayMs=50', '--async', '-o', 'json']);
    const { task } = JSON.parse(run.stdout) as { task: { id: string } };
    const sub = await box.run(['task', 'subscribe', task.id, '-a', agent.url, '-o', 'json']);
    expect(sub.code).toBe(0);
    const final = JSON.parse(sub.stdout) as { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] };
    expect(final.id).toBe(task.id);
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(final.artifacts[0]?.parts.map((p) => p.text).join('')).toBe(Array.from({ length: 8 }, (_, i) => `chunk-${i + 1};`).join(''));
  });
});

describe('task push-config and task download', () => {
  it('create, get, list, delete', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json']);
    const { task } = JSON.parse(run.stdout) as { task: { id: string } };
    const url = 'https://hooks.example.com/tether';
    const created = await box.run(['task', 'push-config', 'create', task.id, '--url', url, '--id', 'c1', '-a', agent.url, '-o', 'json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ taskId: task.id, id: 'c1', url });
    const got = await box.run(['task', 'push-config', 'get', task.id, 'c1', '-a', agent.url]);
    expect(got.stdout).toContain(`URL: ${url}\n`);
    const listed = await box.run(['task', 'push-config', 'list', task.id, '-a', agent.url, '-o', 'json']);
    expect((JSON.parse(listed.stdout) as { configs: { id: string }[] }).configs.map((c) => c.id)).toEqual(['c1']);
    const deleted = await box.run(['task', 'push-config', 'delete', task.id, 'c1', '-a', agent.url]);
    expect(deleted.stdout).toContain('Deleted: true\n');
    const after = await box.run(['task', 'push-config', 'list', task.id, '-a', agent.url, '-o', 'json']);
    expect((JSON.parse(after.stdout) as { configs: unknown[] }).configs).toEqual([]);
    await box.run(['task', 'cancel', task.id, '-a', agent.url]);
  });

  it('writes text, data and file parts into the directory, never outside it', async () => {
    const sent = JSON.parse((await box.run(['send', '-a', agent.url, '--text', 'files', '-o', 'json'])).stdout) as { task: { id: string } };
    const dir = join(box.cwd, 'downloads', 'one');
    const run = await box.run(['task', 'download', sent.task.id, '-a', agent.url, '--dir', dir]);
    expect(run.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['escape.txt', 'passwd-evil', 'report-1.json']);
    expect(readFileSync(join(dir, 'escape.txt'), 'utf8')).toBe('escaped?');
    expect(JSON.parse(readFileSync(join(dir, 'report-1.json'), 'utf8'))).toEqual({ total: 3 });
    expect(readFileSync(join(dir, 'passwd-evil'), 'utf8')).toBe('hello-bytes');
    expect(existsSync(join(dirname(dirname(dir)), 'escape.txt'))).toBe(false);
    expect(existsSync(join(dirname(dir), 'escape.txt'))).toBe(false);
    expect(run.stdout).toContain(`Saved: ${join(dir, 'escape.txt')} (8 bytes)\n`);
    // A second download never overwrites.
    await box.run(['task', 'download', sent.task.id, '-a', agent.url, '--dir', dir]);
    expect(readdirSync(dir)).toContain('escape-2.txt');
  });
});
