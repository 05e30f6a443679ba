import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestAgent, type TestAgent, type TestAgentOptions } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TetherError } from '../src/index.js';

// Issue 20: what a new user meets in the first hour, said in words that tell them what to do — a
// refused connection, an unknown host, https:// to a plain-HTTP agent, a URL whose path has no card
// (the host's root card is used), an extended card the agent does not have.

const agents: TestAgent[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function agentWith(options: TestAgentOptions = {}): Promise<TestAgent> {
  const agent = await startTestAgent(options);
  agents.push(agent);
  return agent;
}

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TetherError);
  return error as TetherError;
}

describe('network failures name the cause and the next step', () => {
  it('a refused connection: is the agent running at this URL?', async () => {
    const agent = await agentWith();
    const { url } = agent;
    await agent.close();
    agents.splice(0);
    const error = await failure(connect(url, { cardCache: false, maxRetries: 0 }));
    expect(error.code).toBe('NETWORK');
    expect(error.maybeDelivered).toBe(false);
    expect(error.message).toBe(`GetAgentCard GET ${url}/.well-known/agent-card.json: request failed: ECONNREFUSED, connection refused: is the agent running at this URL?`);
  });

  it('an unknown host: check the host name', async () => {
    const expected = /^GetAgentCard GET http:\/\/no-such-agent\.invalid\/\.well-known\/agent-card\.json: request failed: ENOTFOUND, host not found: check the host name$/;
    // The real lookup (.invalid never resolves, RFC 6761) — unless this machine has no DNS at all (EAI_AGAIN).
    const real = await failure(connect('http://no-such-agent.invalid/', { cardCache: false, maxRetries: 0 }));
    expect(real.code).toBe('NETWORK');
    if (!real.message.includes('EAI_AGAIN')) expect(real.message).toMatch(expected);
    // What undici throws for it, through an injected fetch: the same message, the raw error kept as the cause.
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND no-such-agent.invalid'), { code: 'ENOTFOUND' });
    const fetch = (): Promise<Response> => Promise.reject(new TypeError('fetch failed', { cause: lookup }));
    const injected = await failure(connect('http://no-such-agent.invalid/', { cardCache: false, maxRetries: 0, fetch }));
    expect(injected.message).toMatch(expected);
    expect((injected.cause as Error).cause).toBe(lookup);
  });

  it('https:// to a plain-HTTP agent: says so, instead of OpenSSL text', async () => {
    const server = createServer((_req, res) => res.end('plain')).listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const error = await failure(connect(`https://127.0.0.1:${port}/`, { cardCache: false, maxRetries: 0 }));
    expect(error.code).toBe('NETWORK');
    expect(error.maybeDelivered).toBe(false);
    expect(error.message).toBe(`GetAgentCard GET https://127.0.0.1:${port}/.well-known/agent-card.json: request failed: ERR_SSL_WRONG_VERSION_NUMBER, not TLS: an https:// URL to a plain-HTTP agent? Try http://`);
    expect(error.message).not.toMatch(/openssl|ssl3_get_record/i);
  });
});

describe("a URL whose path has no card: the host's root card, with a warning", () => {
  it('warns through the debug log, naming both URLs', async () => {
    const agent = await agentWith();
    const lines: string[] = [];
    const log = { warn: (line: string) => lines.push(`warn ${line}`), info: (line: string) => lines.push(`info ${line}`) };
    const client = await connect(`${agent.url}/agents/writer`, { cardCache: false, log });
    expect(client.cardUrl).toBe(agent.cardUrl);
    // (The two 404s before it are logged as failed requests, as any.)
    expect(lines.filter((line) => line.includes('root card'))).toEqual([
      `warn [tether] no agent card at ${agent.url}/agents/writer/.well-known/agent-card.json: using the host's root card ${agent.cardUrl} (another agent's?); check the URL's path`,
    ]);

    // The agent's own URL: no warning.
    lines.length = 0;
    await connect(agent.url, { cardCache: false, log });
    expect(lines.filter((line) => line.includes('root card'))).toEqual([]);
  });
});

describe('getExtendedCard() of an agent without one', () => {
  for (const version of ['1.0', '0.3'] as const) {
    it(`v${version}: UNSUPPORTED_OPERATION, and no request`, async () => {
      const agent = await agentWith({ versions: [version] });
      const client = await connect(agent.url, { cardCache: false });
      expect(client.card.capabilities.extendedAgentCard).toBe(false);
      const before = agent.requests.length;
      const error = await failure(client.getExtendedCard());
      expect(error.code).toBe('UNSUPPORTED_OPERATION');
      expect(error.message).toMatch(/^GetExtendedAgentCard: agent "Tether Test Agent" has no extended card \(its card says so: capabilities\.extendedAgentCard\)$/);
      expect(agent.requests.slice(before)).toEqual([]);
    });

    it(`v${version}: an agent whose card offers one is asked (control)`, async () => {
      const agent = await agentWith({ versions: [version], capabilities: { extendedAgentCard: true } });
      const client = await connect(agent.url, { cardCache: false });
      const extended = await client.getExtendedCard();
      expect(extended.skills.map((skill) => skill.id)).toContain('extended');
    });
  }
});
