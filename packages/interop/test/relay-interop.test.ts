import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { connect, TaskNotFoundError, type A2AClient, type Binding, type FetchLike, type ProtocolVersion } from '@a2a-tether/node';
import { createRelay, toNodeHandler } from '@a2a-tether/node/relay';
import { startFaultProxy } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// The relay in front of the official @a2a-js/sdk 1.3.0 server (v1.0, with its v0.3 compatibility layer,
// no CORS): the card the browser gets points at the relay, the agent gets the relay's bearer on every
// call, the browser never sees it, and a second user finds nothing of the first user's task.

const BEARER = 'official-relay-bearer-41c7e2';

interface Site {
  readonly origin: string;
  readonly url: string;
  close(): Promise<void>;
}

async function serveRelay(agentUrl: string): Promise<Site> {
  const relay = createRelay({
    basePath: '/api/a2a',
    agents: { official: { url: agentUrl, headers: { authorization: `Bearer ${BEARER}` } } },
    owner: (request) => /(?:^|; )session=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1],
  });
  const server: Server = createServer(toNodeHandler(relay));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/api/a2a/official`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function browserFetch(user: string, seen: string[], reading: Promise<unknown>[]): FetchLike {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('cookie', `session=${user}`);
    const response = await fetch(input, { ...init, headers });
    reading.push(
      response
        .clone()
        .text()
        .then(
          (text) => seen.push(`${[...response.headers].join('\n')}\n\n${text}`),
          () => undefined,
        ),
    );
    return response;
  };
}

async function browser(url: string, user: string, binding: Binding, version: ProtocolVersion, seen: string[], reading: Promise<unknown>[] = []): Promise<A2AClient> {
  return connect(url, {
    fetch: browserFetch(user, seen, reading),
    cardCache: false,
    preferredBindings: [binding],
    protocolVersions: [version],
    maxRetries: 0,
  });
}

const COMBOS: [Binding, ProtocolVersion][] = [
  ['JSONRPC', '1.0'],
  ['HTTP+JSON', '1.0'],
  ['JSONRPC', '0.3'],
  ['HTTP+JSON', '0.3'],
];

describe('the relay in front of the official v1.0 server', () => {
  let agent: OfficialServer;
  let site: Site;
  const authorizations: string[] = [];

  beforeAll(async () => {
    const watch: express.RequestHandler = (req, _res, next) => {
      authorizations.push(req.headers.authorization ?? '(none)');
      next();
    };
    agent = await startOfficialV1Server({ legacyCompat: true, watch });
    site = await serveRelay(agent.origin);
  });
  afterAll(async () => {
    await site?.close();
    await agent?.close();
  });

  it("the card's URLs are the relay's", async () => {
    const response = await fetch(`${site.url}/.well-known/agent-card.json`, { headers: { cookie: 'session=alice', 'a2a-version': '1.0' } });
    const text = await response.text();
    expect(text).not.toContain(agent.origin);
    const card = JSON.parse(text) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.length).toBe(4);
    for (const iface of card.supportedInterfaces) expect(iface.url).toMatch(new RegExp(`^${site.url}/(jsonrpc|rest)-(1\\.0|0\\.3)$`));
  });

  it.each(COMBOS)('over %s v%s: the second user gets not-found on every operation; the owner finishes the task', async (binding, version) => {
    const seen: string[] = [];
    const reading: Promise<unknown>[] = [];
    const alice = await browser(site.url, 'alice', binding, version, seen, reading);
    const bob = await browser(site.url, 'bob', binding, version, seen, reading);
    expect(alice.interface.url.startsWith(`${site.url}/`)).toBe(true);
    authorizations.length = 0;
    const task = await alice.start('input');
    await expect.poll(() => task.view.state).toBe('input-required');
    const { taskId, contextId } = task.view;
    const refused = async (what: string, call: () => Promise<unknown>): Promise<void> => {
      const error = await call().then(
        () => new Error(`${what}: no error`),
        (e: unknown) => e,
      );
      expect(error, what).toBeInstanceOf(TaskNotFoundError);
    };
    await refused('get', () => bob.getTask(taskId));
    await refused('cancel', () => bob.cancelTask(taskId));
    await refused('subscribe', async () => {
      for await (const _ of bob.subscribe(taskId)) break;
    });
    await refused('reply (taskId)', () => bob.sendMessage({ text: 'mine now', taskId, contextId }));
    await refused('reply (contextId)', () => bob.sendMessage({ text: 'mine now', contextId }));
    if (version === '1.0') {
      expect((await bob.listTasks({ contextId })).tasks).toEqual([]);
      expect((await alice.listTasks({ contextId })).tasks.map((t) => t.id)).toEqual([taskId]);
    }
    await task.reply('yes');
    expect((await task.done()).status.state).toBe('completed');
    // Every call that reached the agent carried the relay's bearer; nothing the browsers got carries it.
    expect(authorizations.length).toBeGreaterThan(0);
    expect(new Set(authorizations)).toEqual(new Set([`Bearer ${BEARER}`]));
    // Every body read to its end (at most 5 s: a stream may still be open).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(reading), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
    expect(seen.length).toBeGreaterThan(5);
    for (const text of seen) expect(text).not.toContain(BEARER);
  });

  it('a stream cut between the relay and the agent resumes: the task ends with the server’s artifacts', async () => {
    await using proxy = await startFaultProxy({ target: agent.origin });
    const cutSite = await serveRelay(proxy.url);
    try {
      proxy.addFault({ kind: 'cut', match: { sse: true, rpcMethod: 'SendStreamingMessage' }, afterEvents: 3, mode: 'reset' });
      const client = await browser(cutSite.url, 'alice', 'JSONRPC', '1.0', []);
      const task = await client.start('slow steps=6 delayMs=30');
      const final = await task.done();
      expect(final.status.state).toBe('completed');
      expect(proxy.stats.cuts.reset).toBe(1);
      expect(proxy.log.some((e) => e.rpcMethod === 'SubscribeToTask' || e.rpcMethod === 'GetTask')).toBe(true);
      const server = await client.getTask(final.id);
      expect(final.artifacts).toEqual(server.artifacts);
    } finally {
      await cutSite.close();
    }
  });
});
