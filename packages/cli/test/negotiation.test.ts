import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

// Transport choice, tenants, API keys, and what the card does not offer (checked before any request).

let agent: TestAgent;
let noStream: TestAgent;
let tenanted: TestAgent;
let keyed: TestAgent;
let box: Sandbox;

beforeAll(async () => {
  [agent, noStream, tenanted, keyed] = await Promise.all([
    startTestAgent(),
    startTestAgent({ capabilities: { streaming: false, pushNotifications: false } }),
    startTestAgent({ tenant: 'acme' }),
    startTestAgent({ auth: { apiKey: { values: ['key-abcdef-42'] } } }),
  ]);
  box = sandbox();
});
afterAll(async () => {
  await Promise.all([agent?.close(), noStream?.close(), tenanted?.close(), keyed?.close()]);
  box?.remove();
});

describe('transports', () => {
  it('uses the card\'s first interface by default, --transport HTTP+JSON when asked', async () => {
    const first = await box.run(['card', 'get', '-a', agent.url, '--debug']);
    expect(first.stderr).toMatch(/interface: JSONRPC v1\.0 at \S+\/a2a\/jsonrpc/);
    const rest = await box.run(['send', '-a', agent.url, '--transport', 'HTTP+JSON', '--text', 'artifacts n=1 delayMs=1', '--debug']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/interface: HTTP\+JSON v1\.0 at \S+\/a2a\/rest/);
    const grpc = await box.run(['card', 'get', '-a', agent.url, '--transport', 'GRPC', '--transport', 'HTTP+JSON', '--debug']);
    expect(grpc.code).toBe(0);
    expect(grpc.stderr).toContain('Warning: gRPC is not supported');
    expect(grpc.stderr).toMatch(/interface: HTTP\+JSON/);
  });

  it('the same A2A error, the same envelope, on both bindings', async () => {
    const envelopes = [];
    for (const binding of ['JSONRPC', 'HTTP+JSON']) {
      const run = await box.run(['task', 'get', 'missing-task', '-a', agent.url, '--transport', binding, '-o', 'json']);
      expect(run.code).toBe(1);
      envelopes.push(JSON.parse(run.stdout) as { error: { code: string; a2aCode: number } });
    }
    expect(envelopes[0]?.error.code).toBe('TaskNotFoundError');
    expect(envelopes[1]?.error.code).toBe(envelopes[0]?.error.code);
    expect(envelopes[1]?.error.a2aCode).toBe(envelopes[0]?.error.a2aCode);
  });

  it('a tenant of the card is sent on every request', async () => {
    const run = await box.run(['send', '-a', tenanted.url, '--text', 'artifacts n=1 delayMs=1', '-o', 'json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('--api-key (and A2ACLI_API_KEY) is placed as the card says; never printed under --debug', async () => {
    const flag = await box.run(['send', '-a', keyed.url, '--text', 'echo hi', '--api-key', 'key-abcdef-42', '--debug']);
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stdout + flag.stderr).not.toContain('key-abcdef-42');
    const env = await box.run(['send', '-a', keyed.url, '--text', 'echo hi'], { env: { A2ACLI_API_KEY: 'key-abcdef-42' } });
    expect(env.code).toBe(0);
  });
});

describe('what the card does not offer', () => {
  it('--stream on an agent that cannot stream: JSON Lines all the same (polled), exit 0', async () => {
    const run = await box.run(['send', '-a', noStream.url, '--text', 'stream updates=2 chunks=3 delayMs=5', '--stream', '-o', 'json', '--poll-interval', '100ms']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, { status?: { state: string } }>);
    expect(Object.keys(lines[0] ?? {})).toEqual(['task']);
    expect(lines.at(-1)?.['statusUpdate']?.status?.state ?? lines.at(-1)?.['task']?.status?.state).toBe('TASK_STATE_COMPLETED');
    const methods = noStream.requests.map((r) => `${(r.body as { method?: string } | undefined)?.method ?? ''} ${r.path}`);
    expect(methods.some((m) => /SendStreamingMessage|message\/stream|message:stream/.test(m))).toBe(false);
  });

  it('task subscribe and push-config: the protocol\'s error names, no request sent', async () => {
    const sent = JSON.parse((await box.run(['send', '-a', noStream.url, '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json'])).stdout) as { task: { id: string } };
    noStream.requests.length = 0;
    const sub = await box.run(['task', 'subscribe', sent.task.id, '-a', noStream.url, '-o', 'json']);
    expect(sub.code).toBe(1);
    expect(JSON.parse(sub.stdout).error.code).toBe('UnsupportedOperationError');
    const push = await box.run(['task', 'push-config', 'list', sent.task.id, '-a', noStream.url, '-o', 'json']);
    expect(push.code).toBe(1);
    expect(JSON.parse(push.stdout).error.code).toBe('PushNotificationNotSupportedError');
    expect(noStream.requests.filter((r) => r.method === 'POST')).toEqual([]);
    await box.run(['task', 'cancel', sent.task.id, '-a', noStream.url]);
  });

  it('--stream -o json: an error ends the JSON Lines as one envelope line', async () => {
    const run = await box.run(['send', '-a', agent.url, '--task-id', 'gone-task', '--text', 'hi', '--stream', '-o', 'json']);
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ error: { code: 'TaskNotFoundError' } });
  });
});
