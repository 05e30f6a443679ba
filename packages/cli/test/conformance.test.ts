import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

interface Report {
  passed: boolean;
  checks: { name: string; required: boolean; status: 'pass' | 'fail' | 'skip'; reason: string }[];
}

let agent: TestAgent;
let broken: Server;
let brokenUrl: string;
let box: Sandbox;

/**
 * An agent that answers wrongly: its card lacks `description` and `defaultOutputModes`, and every
 * JSON-RPC call is answered with InternalError (-32603) — an unknown task id included.
 */
async function startBrokenAgent(): Promise<Server> {
  const server = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'broken',
          version: '1.0.0',
          supportedInterfaces: [{ url: `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: false },
          defaultInputModes: ['text/plain'],
          skills: [],
        }),
      );
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let id: unknown = null;
      try {
        id = (JSON.parse(body) as { id?: unknown }).id ?? null;
      } catch {
        // answered below all the same
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'always broken' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  agent = await startTestAgent();
  broken = await startBrokenAgent();
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  box = sandbox();
});
afterAll(async () => {
  await agent?.close();
  await new Promise<void>((resolve) => broken.close(() => resolve()));
  box?.remove();
});

describe('conformance', () => {
  it('passes against the testkit agent: exit 0, every required check passes', async () => {
    const run = await box.run(['conformance', '-a', agent.url, '-o', 'json']);
    expect(run.code, run.stdout).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.passed).toBe(true);
    const byName = new Map(report.checks.map((c) => [c.name, c]));
    for (const name of ['card.fetch', 'card.valid', 'send.message', 'task.get', 'task.get.unknown', 'task.list', 'task.cancel', 'task.cancel.unknown', 'stream.message', 'task.subscribe', 'task.subscribe.unknown', 'push-config']) {
      expect(byName.get(name)?.status, `${name}: ${byName.get(name)?.reason ?? 'missing'}`).toBe('pass');
    }
  });

  it('text: one line per check, a Result line', async () => {
    const run = await box.run(['conformance', '-a', agent.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^card\.fetch: pass — /m);
    expect(run.stdout).toMatch(/^task\.get\.unknown: pass — TaskNotFoundError/m);
    expect(run.stdout).toMatch(/^Result: pass /m);
  });

  it('fails against a broken agent: exit 1, each failed check named with its reason', async () => {
    const run = await box.run(['conformance', '-a', brokenUrl, '-o', 'json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.passed).toBe(false);
    const failed = new Map(report.checks.filter((c) => c.status === 'fail').map((c) => [c.name, c.reason]));
    expect([...failed.keys()]).toEqual(expect.arrayContaining(['card.valid', 'send.message', 'task.get.unknown', 'task.cancel.unknown']));
    expect(failed.get('card.valid')).toContain('description');
    expect(failed.get('card.valid')).toContain('defaultOutputModes');
    expect(failed.get('task.get.unknown')).toContain('expected TaskNotFoundError, got InternalError');
    // What the card does not offer is skipped with the reason, not failed.
    expect(report.checks.find((c) => c.name === 'stream.message')).toMatchObject({ status: 'skip', required: false });
    const text = await box.run(['conformance', '-a', brokenUrl]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^Result: fail \(card\.valid, send\.message, /m);
  });

  it('an unreachable agent: card.fetch fails, exit 1', async () => {
    const run = await box.run(['conformance', '-a', 'http://127.0.0.1:9', '-o', 'json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.checks).toEqual([expect.objectContaining({ name: 'card.fetch', status: 'fail' })]);
    expect(report.checks[0]?.reason).toContain('A2ACLI_ERR_UNREACHABLE');
  });
});
