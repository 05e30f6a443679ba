// The SSRF guard: the address classifier, the `network` policy, and its enforcement through
// node's connect() — on the card's interfaces, on redirects, and after DNS resolution.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyAddress, connect, createNodeFetch, TetherError, type AddressKind, type Message } from '../src/index.js';
import { NetworkPolicy } from '../src/ssrf-guard.js';

const CLASSIFIED: [string, AddressKind | undefined][] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['169.253.255.255', 'public'],
  ['223.255.255.255', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['100.127.255.255', 'private'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.253', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
  ['ff02::1', 'reserved'],
  // IPv6 forms that carry an IPv4 address
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  ['64:ff9b::169.254.169.254', 'metadata'],
  ['64:ff9b::a00:1', 'private'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  // Cloud credential and metadata endpoints (issue 16), also inside the ranges they belong to
  ['169.254.170.2', 'metadata'], // AWS ECS task credentials
  ['169.254.170.23', 'metadata'], // AWS EKS Pod Identity
  ['fd00:ec2::23', 'metadata'],
  ['fd20:ce::254', 'metadata'], // GCP, IPv6
  ['168.63.129.16', 'metadata'], // Azure WireServer
  ['100.100.100.200', 'metadata'], // Alibaba Cloud
  ['192.0.0.192', 'metadata'], // Oracle Cloud (legacy)
  ['169.254.0.23', 'metadata'], // Tencent Cloud
  ['169.254.42.42', 'metadata'], // Scaleway
  ['fd00:42::42', 'metadata'],
  ['fd00:a9fe:a9fe::1', 'metadata'], // Akamai (Linode)
  ['fe80::a9fe:a9fe', 'metadata'], // OpenStack, IPv6
  ['fe80::a9fe:a9fe%eth0', 'metadata'],
  ['::ffff:169.254.170.2', 'metadata'],
  ['::ffff:0:a9fe:a9fe', 'metadata'], // IPv4-translated (SIIT)
  ['64:ff9b::a9fe:aa02', 'metadata'],
  ['2002:a9fe:aa02::1', 'metadata'],
  ['169.254.170.1', 'link-local'],
  ['100.100.100.199', 'private'],
  ['fd00:ec2::22', 'private'],
  // IANA special-purpose blocks that are not globally reachable (RFC 6890 registries)
  ['192.0.0.1', 'reserved'],
  ['192.0.0.171', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['100::1', 'reserved'],
  ['100:0:0:1::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['2001:2::1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['64:ff9b:1::a00:1', 'reserved'],
  ['::ffff:198.18.0.1', 'reserved'],
  ['64:ff9b::c000:201', 'reserved'],
  ['2002:cb00:7109::1', 'reserved'],
  // … and their public neighbours
  ['192.0.1.255', 'public'],
  ['192.0.3.0', 'public'],
  ['192.31.196.1', 'public'], // AS112, globally reachable
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['198.51.99.255', 'public'],
  ['203.0.114.0', 'public'],
  ['2001:200::1', 'public'],
  ['2620:4f:8000::1', 'public'], // AS112, globally reachable
  ['64:ff9b::808:808', 'public'],
  // Not IP addresses
  ['localhost', undefined],
  ['example.com', undefined],
  ['01.2.3.4', undefined],
  ['256.1.1.1', undefined],
  ['1.2.3', undefined],
  ['1::2::3', undefined],
  ['1:2:3:4:5:6:7:8:9', undefined],
  ['12345::1', undefined],
  ['', undefined],
];

describe('classifyAddress', () => {
  it.each(CLASSIFIED)('%s → %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('NetworkPolicy', () => {
  it('refuses every non-public kind by default and allows public addresses', () => {
    const policy = new NetworkPolicy({});
    for (const [address, kind] of CLASSIFIED) {
      if (kind === undefined) continue;
      expect(policy.refuses(address, address) === undefined, `${address} (${kind})`).toBe(kind === 'public');
    }
  });

  it('allowPrivate opens loopback, private, link-local and unspecified, not metadata or reserved', () => {
    const policy = new NetworkPolicy({ allowPrivate: true });
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', 'fd12::1', '169.254.1.1', 'fe80::1', '0.0.0.0', '::ffff:192.168.0.1']) {
      expect(policy.refuses(address, address), address).toBeUndefined();
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '::ffff:169.254.169.254', '224.0.0.1']) {
      expect(policy.refuses(address, address), address).toMatch(/metadata|reserved/);
    }
    // Every metadata address stays refused, those inside the private and link-local ranges too.
    for (const [address, kind] of CLASSIFIED) {
      if (kind === 'metadata' || kind === 'reserved') expect(policy.refuses(address, address), address).toMatch(new RegExp(`a ${kind} address`));
    }
  });

  it('a CIDR block in allow opens the reserved addresses in it, but a metadata address only when allow names it', () => {
    const blocks = new NetworkPolicy({ allow: ['169.254.0.0/16', 'fd00::/8', '100.64.0.0/10', '192.0.0.0/24', '198.18.0.0/15', '::/0'] });
    for (const address of ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', 'fd20:ce::254', '100.100.100.200', '192.0.0.192', '::ffff:169.254.169.254']) {
      expect(blocks.refuses(address, address), address).toMatch(/a metadata address, which the SSRF guard does not reach by default; add it to network\.allow/);
    }
    for (const address of ['169.254.1.1', 'fd12::1', '100.64.0.1', '192.0.0.8', '198.18.0.1', '2001:db8::1']) expect(blocks.refuses(address, address), address).toBeUndefined();
    const exact = new NetworkPolicy({ allow: ['169.254.170.2', 'fd00:ec2::254/128', 'metadata.internal'] });
    expect(exact.refuses('x', '169.254.170.2')).toBeUndefined();
    expect(exact.refuses('x', '::ffff:169.254.170.2')).toBeUndefined();
    expect(exact.refuses('x', 'fd00:ec2::254')).toBeUndefined();
    expect(exact.refuses('metadata.internal', '169.254.169.254')).toBeUndefined();
    expect(exact.refuses('x', '169.254.169.254')).toMatch(/metadata/);
  });

  it('allow takes host names, addresses and CIDR blocks; IPv4-mapped addresses match IPv4 blocks', () => {
    const policy = new NetworkPolicy({ allow: ['Agents.Internal', '10.1.0.0/16', '169.254.169.254', 'fd00::/8'] });
    expect(policy.refuses('agents.internal.', '192.168.3.4')).toBeUndefined();
    expect(policy.refuses('x', '10.1.200.3')).toBeUndefined();
    expect(policy.refuses('x', '::ffff:10.1.0.9')).toBeUndefined();
    expect(policy.refuses('x', '169.254.169.254')).toBeUndefined();
    expect(policy.refuses('x', 'fd00:1::1')).toBeUndefined();
    expect(policy.refuses('x', '10.2.0.1')).toMatch(/refused to connect to x \(10\.2\.0\.1\): a private address/);
    expect(policy.refuses('other.internal', '192.168.3.4')).toMatch(/private/);
  });

  it('rejects allow entries it cannot read', () => {
    for (const entry of ['10.0.0.0/33', '::/129', '10.0.0.0/x', 'http://agent/', 'a b']) {
      expect(() => new NetworkPolicy({ allow: [entry] }), entry).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    }
  });

  it('checks schemes and IP-literal hosts of URLs', () => {
    const policy = new NetworkPolicy({});
    expect(policy.checkUrl('file:///etc/passwd')?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(policy.checkUrl('ftp://8.8.8.8/')?.code).toBe('ADDRESS_NOT_ALLOWED');
    expect(policy.checkUrl('http://[::ffff:169.254.169.254]/latest')?.message).toMatch(/metadata/);
    expect(policy.checkUrl('http://2130706433/')?.message, 'URL parsing normalizes 127.0.0.1 written as a number').toMatch(/loopback/);
    expect(policy.checkUrl('https://8.8.8.8/')).toBeUndefined();
    // Host names are checked when they resolve (at connect time), not here.
    expect(policy.checkUrl('https://agent.example/')).toBeUndefined();
  });
});

// ---- enforcement through connect() ----

const servers: Server[] = [];
const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

interface CardServer {
  url: string;
  /** Requests that reached the server other than the card's. */
  calls: string[];
}

/** Serves a v1.0 card whose one JSON-RPC interface is `interfaceUrl(origin)`; `other` answers the rest. */
async function cardServer(interfaceUrl: (origin: string) => string, other?: (req: IncomingMessage, res: ServerResponse) => void): Promise<CardServer> {
  const calls: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'guard test',
          description: 'a card for the SSRF guard tests',
          version: '1.0.0',
          supportedInterfaces: [{ url: interfaceUrl(origin), protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      );
      return;
    }
    calls.push(`${req.method} ${req.url}`);
    if (other) other(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: origin, calls };
}

/** For tests only: the loopback test server's address counts as public, everything else is classified for real. */
const loopbackLooksPublic = (address: string): AddressKind | undefined => (address === '127.0.0.1' ? 'public' : classifyAddress(address));

/** A lookup that answers from a table and never asks DNS. */
function tableLookup(table: Record<string, string>): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const address = table[hostname];
    if (address === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }] satisfies LookupAddress[]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/** Runs `body`, counting the TCP sockets Node creates meanwhile (any connection attempt makes one). */
async function countingSockets<T>(body: () => Promise<T>): Promise<{ settled: PromiseSettledResult<T>; sockets: number }> {
  let sockets = 0;
  const onSocket = (): void => {
    sockets++;
  };
  subscribe('net.client.socket', onSocket);
  try {
    const [settled] = await Promise.allSettled([body()]);
    return { settled: settled as PromiseSettledResult<T>, sockets };
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
}

function refusedWith(settled: PromiseSettledResult<unknown>): TetherError {
  expect(settled.status).toBe('rejected');
  const error = (settled as PromiseRejectedResult).reason as unknown;
  expect(error).toBeInstanceOf(TetherError);
  const tether = error as TetherError;
  expect(tether.code, tether.message).toBe('ADDRESS_NOT_ALLOWED');
  expect(tether.isRetryable).toBe(false);
  expect(tether.maybeDelivered).toBe(false);
  return tether;
}

describe('connect() with the guard on (the default)', () => {
  it('a card served from 127.0.0.1 works as before: the agent the caller named is local', async () => {
    const agent = await startTestAgent();
    agents.push(agent);
    const client = await connect(agent.url, { cardCache: false });
    const result = await client.sendMessage('echo hello');
    expect(result.kind).toBe('message');
    expect(JSON.stringify((result as Message).parts)).toContain('echo: echo hello');
  });

  it.each([
    ['the ECS credentials endpoint', 'http://169.254.170.2/v2/credentials/role', /169\.254\.170\.2: a metadata address/],
    ['the EKS Pod Identity agent', 'http://169.254.170.23/v1/credentials', /169\.254\.170\.23: a metadata address/],
    ['the EKS Pod Identity agent over IPv6', 'http://[fd00:ec2::23]/v1/credentials', /fd00:ec2::23: a metadata address/],
    ['the GCP metadata server over IPv6', 'http://[fd20:ce::254]/computeMetadata/v1/', /fd20:ce::254: a metadata address/],
    ['the Alibaba Cloud metadata server', 'http://100.100.100.200/latest/meta-data/', /100\.100\.100\.200: a metadata address/],
    ['the legacy Oracle Cloud metadata server', 'http://192.0.0.192/latest/', /192\.0\.0\.192: a metadata address/],
    ['a benchmarking address (198.18.0.0/15)', 'http://198.18.0.1/a2a', /198\.18\.0\.1: a reserved address/],
  ])('a local agent whose card points at %s is refused without any connection attempt', async (_what, target, reason) => {
    const server = await cardServer(() => target);
    const client = await connect(server.url, { cardCache: false, maxRetries: 0 });
    const { settled, sockets } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(reason);
    expect(sockets).toBe(0);
  });

  it('a local agent whose card points at the metadata address is still refused', async () => {
    const server = await cardServer(() => 'http://169.254.169.254/a2a');
    const client = await connect(server.url, { cardCache: false });
    const { settled, sockets } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(/GetTask POST http:\/\/169\.254\.169\.254\/a2a: refused to connect to 169\.254\.169\.254: a metadata address/);
    expect(sockets).toBe(0);
  });

  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', /metadata address/],
    ['a private address', 'http://10.0.0.1:8080/a2a', /private address/],
    ['an IPv4-mapped loopback address', 'http://[::ffff:127.0.0.1]:1/a2a', /loopback address/],
    ['a file: URL', 'file:///etc/passwd', /only http: and https: URLs/],
  ])('a public agent whose card points at %s is refused without any connection attempt', async (_what, target, reason) => {
    const server = await cardServer(() => target);
    const client = await connect(server.url, { cardCache: false, network: { classify: loopbackLooksPublic } });
    const { settled, sockets } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(reason);
    expect(sockets).toBe(0);
  });

  it('a host name that resolves to a private address is refused at connect time (after DNS)', async () => {
    const server = await cardServer(() => 'http://internal.test:8080/a2a');
    const lookup = tableLookup({ 'internal.test': '10.0.0.1' });
    const client = await connect(server.url, { cardCache: false, network: { classify: loopbackLooksPublic, lookup } });
    const { settled } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(/internal\.test \(10\.0\.0\.1\): a private address/);
  });

  it('a host name the caller allowlists is reached even at a loopback address', async () => {
    let port = 0;
    const server = await cardServer(
      () => `http://agent.internal:${port}/a2a`,
      (_req, res) => res.writeHead(404).end(),
    );
    port = Number(new URL(server.url).port);
    // Both names lead to the loopback test server, classified for real (no seam).
    const lookup = tableLookup({ 'card.example': '127.0.0.1', 'agent.internal': '127.0.0.1' });
    const cardUrl = `http://card.example:${port}/`;

    const control = await connect(cardUrl, { cardCache: false, network: { allow: ['card.example'], allowPrivate: false, lookup } });
    const { settled } = await countingSockets(() => control.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(/agent\.internal \(127\.0\.0\.1\): a loopback address/);
    expect(server.calls).toEqual([]);

    const client = await connect(cardUrl, { cardCache: false, network: { allow: ['card.example', 'agent.internal'], allowPrivate: false, lookup } });
    const error = await client.getTask('t-1').catch((e: unknown) => e);
    expect((error as TetherError).status, 'the request reached the server').toBe(404);
    expect(server.calls).toEqual(['POST /a2a']);
  });

  it('allowPrivate: false refuses even the local agent the caller named', async () => {
    const agent = await startTestAgent();
    agents.push(agent);
    const { settled, sockets } = await countingSockets(() => connect(agent.url, { cardCache: false, maxRetries: 0, network: { allowPrivate: false } }));
    expect(refusedWith(settled).message).toMatch(/GetAgentCard GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json: refused to connect to 127\.0\.0\.1: a loopback address/);
    expect(sockets).toBe(0);
  });

  it.each([
    ['to the metadata address', 'http://169.254.169.254/latest/meta-data/', /metadata address/],
    ['to a private address', 'http://10.0.0.1:8080/a2a', /private address/],
    ['to a host name that resolves to loopback', 'http://rebound.test:8080/a2a', /rebound\.test \(127\.0\.0\.2\): a loopback address/],
  ])('a redirect %s is refused (undici follows it)', async (_what, location, reason) => {
    const server = await cardServer(
      (origin) => `${origin}/a2a`,
      (_req, res) => res.writeHead(307, { location }).end(),
    );
    const lookup = tableLookup({ 'rebound.test': '127.0.0.2' });
    const client = await connect(server.url, { cardCache: false, network: { classify: loopbackLooksPublic, lookup } });
    const { settled } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).message).toMatch(reason);
    expect(server.calls).toEqual(['POST /a2a']);
  });

  it('a redirect of a credentialed request (followed by hand) to a forbidden address is refused', async () => {
    const server = await cardServer(
      (origin) => `${origin}/a2a`,
      (_req, res) => res.writeHead(307, { location: 'http://10.0.0.1/a2a' }).end(),
    );
    const client = await connect(server.url, {
      cardCache: false,
      auth: { headers: () => ({ 'x-api-key': 'secret' }) },
      network: { classify: loopbackLooksPublic },
    });
    const { settled, sockets } = await countingSockets(() => client.getTask('t-1'));
    expect(refusedWith(settled).url).toBe('http://10.0.0.1/a2a');
    expect(server.calls).toEqual(['POST /a2a']);
    // Only the hop to the test server itself may have opened a socket (keep-alive usually reuses one).
    expect(sockets).toBeLessThanOrEqual(1);
  });

  it('network cannot be combined with your own fetch', async () => {
    await expect(connect('http://127.0.0.1:1/', { fetch: createNodeFetch(), network: { allowPrivate: true } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
