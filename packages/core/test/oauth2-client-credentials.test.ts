// OAuth 2.0 client credentials (issue 21): `auth: { oauth2 }` gets a token from the token endpoint (HTTP Basic
// client authentication, grant_type, scope), keeps it in memory until shortly before it expires, fetches a
// new one after a 401, refuses to send the secret to a token URL the caller did not allow, and never puts
// the secret in an error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, connectWithParts, TetherError } from '../src/index.js';

const SECRET = 's3cret-never-shown';

interface TokenServer {
  url: string;
  origin: string;
  requests: Array<{ authorization: string | undefined; body: URLSearchParams }>;
  expiresIn: number | undefined;
  close(): Promise<void>;
}

let agent: TestAgent;
let tokens: TokenServer;

/** A token endpoint: client `tether` / SECRET; each token it issues becomes the one the agent accepts. */
async function startTokenServer(onIssue: (token: string) => void): Promise<TokenServer> {
  let issued = 0;
  const requests: TokenServer['requests'] = [];
  const state = { expiresIn: 3600 as number | undefined };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      requests.push({ authorization: req.headers.authorization, body: params });
      const expected = `Basic ${Buffer.from(`tether:${SECRET}`).toString('base64')}`;
      res.setHeader('Content-Type', 'application/json');
      if (req.headers.authorization !== expected || params.get('grant_type') !== 'client_credentials') {
        res.writeHead(401).end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client or bad secret' }));
        return;
      }
      const token = `tok-${++issued}`;
      onIssue(token);
      res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', ...(state.expiresIn === undefined ? {} : { expires_in: state.expiresIn }) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/oauth/token`,
    origin,
    requests,
    get expiresIn() {
      return state.expiresIn;
    },
    set expiresIn(value) {
      state.expiresIn = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeEach(async () => {
  agent = await startTestAgent({ auth: { bearer: ['nothing-yet'] } });
  tokens = await startTokenServer((token) => agent.rotateBearer(token));
});
afterEach(async () => {
  await agent.close();
  await tokens.close();
});

describe('auth.oauth2 (client credentials)', () => {
  it('gets a token once, with Basic client auth and the scopes, and reuses it while fresh', async () => {
    const client = await connect(agent.url, { auth: { oauth2: { clientId: 'tether', clientSecret: SECRET, scopes: ['a2a.read', 'a2a.write'], tokenUrl: tokens.url } } });
    await client.sendMessage('echo one');
    await client.sendMessage('echo two');
    expect(tokens.requests).toHaveLength(1);
    expect(tokens.requests[0]?.body.get('grant_type')).toBe('client_credentials');
    expect(tokens.requests[0]?.body.get('scope')).toBe('a2a.read a2a.write');
    const sent = agent.requests.filter((r) => r.method === 'POST').map((r) => r.headers.authorization);
    expect(sent).toEqual(['Bearer tok-1', 'Bearer tok-1']);
  });

  it('fetches a new token shortly before it expires, and after a 401 (one retry)', async () => {
    let clock = 1_000_000;
    tokens.expiresIn = 120; // used until 90 s
    const client = await connect(agent.url, { now: () => clock, auth: { oauth2: { clientId: 'tether', clientSecret: async () => SECRET, tokenUrl: tokens.url } } });
    await client.sendMessage('echo a');
    clock += 89_000;
    await client.sendMessage('echo b');
    expect(tokens.requests).toHaveLength(1);
    clock += 2_000;
    await client.sendMessage('echo c');
    expect(tokens.requests).toHaveLength(2);
    // The agent stops accepting the token (revoked): a 401, one new token, the request goes through.
    agent.rotateBearer('revoked-all');
    await client.sendMessage('echo d');
    expect(tokens.requests).toHaveLength(3);
    expect(agent.requests.filter((r) => r.method === 'POST').at(-1)?.headers.authorization).toBe('Bearer tok-3');
  });

  it('a refused client is UNAUTHENTICATED naming the OAuth error, never the secret', async () => {
    const client = await connect(agent.url, { auth: { oauth2: { clientId: 'tether', clientSecret: 'wrong-secret-value', tokenUrl: tokens.url } } });
    const error = (await client.sendMessage('echo x').catch((e: unknown) => e)) as TetherError;
    expect(error).toBeInstanceOf(TetherError);
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toContain('invalid_client');
    expect(JSON.stringify({ message: error.message, cause: String(error.cause) })).not.toContain('wrong-secret-value');
    expect(agent.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it("the card's token URL: used only on an origin the caller allowed; otherwise nothing is sent anywhere", async () => {
    await agent.close();
    agent = await startTestAgent({
      versions: ['0.3'],
      auth: { bearer: ['nothing-yet'] },
      cardOverride: (card) => ({
        ...card,
        securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: tokens.url, scopes: { 'a2a.write': 'send' } } } } },
        security: [{ oauth: ['a2a.write'] }],
      }),
    });
    const options = { clientId: 'tether', clientSecret: SECRET };
    const refused = await connect(agent.url, { cardCache: false, auth: { oauth2: options } });
    const error = (await refused.sendMessage('echo x').catch((e: unknown) => e)) as TetherError;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(`the card's token URL is on ${tokens.origin}, which is neither the agent's origin nor in auth.origins`);
    expect(tokens.requests).toEqual([]);

    const allowed = await connect(agent.url, { cardCache: false, auth: { oauth2: options, origins: [tokens.origin] } });
    await allowed.sendMessage('echo y');
    expect(tokens.requests).toHaveLength(1);
  });

  it('not without the grant part (the browser package): refused before any request, the secret sent nowhere', async () => {
    const error = (await connectWithParts({}, agent.url, { auth: { oauth2: { clientId: 'tether', clientSecret: SECRET, tokenUrl: tokens.url } } }).catch((e: unknown) => e)) as TetherError;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('auth.oauth2 is for servers');
    expect(tokens.requests).toEqual([]);
    expect(agent.requests).toEqual([]);
  });
});
