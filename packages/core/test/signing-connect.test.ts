// connect(url, { verifyCard }) against a testkit agent serving a signed, an unsigned or a tampered card.
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, MemoryCardCache, TetherError, type CardVerifier } from '../src/index.js';
import { cardVerifier, type CardVerification } from '../src/signing-entry.js';
import { refusal, signCard, testKey, type TestKey } from './helpers/sign-card.js';

let key: TestKey;
let other: TestKey;
beforeAll(async () => {
  [key, other] = await Promise.all([testKey('agent-2026'), testKey('someone-else')]);
});

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

/** A v1-only testkit agent whose public card is `serve(builtCard)`. */
async function agentServing(serve?: (card: Record<string, unknown>) => Promise<unknown> | unknown, extended = false): Promise<TestAgent> {
  const agent = await startTestAgent({ versions: ['1.0'], cardOverride: serve, capabilities: { extendedAgentCard: extended } });
  agents.push(agent);
  return agent;
}

/** Requests the agent got other than for its card. */
function a2aRequests(agent: TestAgent): string[] {
  return agent.requests.filter((r) => !r.path.includes('/.well-known/')).map((r) => `${r.method} ${r.path}`);
}

describe('connect(url, { verifyCard })', () => {
  it('accepts a card signed with a trusted key, and the client uses the verified card', async () => {
    let served: Record<string, unknown> | undefined;
    const agent = await agentServing(async (card) => (served ??= await signCard({ ...card, iconUrl: null }, key)));
    const verified: CardVerification[] = [];
    const verifyCard = cardVerifier({ trustedKeys: [key.publicJwk], onVerified: (v) => verified.push(v) });
    const client = await connect(agent.url, { verifyCard, cardCache: false });
    expect(client.card.name).toBe('Tether Test Agent');
    expect(verified).toHaveLength(1);
    expect(verified[0]?.signatures).toEqual([{ index: 0, valid: true, alg: 'ES256', kid: 'agent-2026', keySource: 'trustedKeys' }]);
    // The client holds the object rebuilt from the signed bytes, not what was served.
    expect(client.card.raw).toBe(verified[0]?.card);
    expect(client.card.raw).not.toHaveProperty('iconUrl');
    const reply = await client.sendMessage('echo signed');
    expect(JSON.stringify(reply)).toContain('echo signed');
  });

  it('refuses an unsigned card with SIGNATURE_INVALID before any use', async () => {
    const agent = await agentServing();
    const error = await refusal(connect(agent.url, { verifyCard: cardVerifier({ trustedKeys: [key.publicJwk] }), cardCache: false }));
    expect(error.message).toContain('the agent card is not signed');
    expect(error.operation).toBe('GetAgentCard');
    expect(error.url).toBe(agent.cardUrl);
    expect(a2aRequests(agent)).toEqual([]);
  });

  it('refuses a card changed after signing, and one signed by an untrusted key', async () => {
    const tampered = await agentServing(async (card) => ({ ...(await signCard(card, key)), name: 'Evil Agent' }));
    const foreign = await agentServing((card) => signCard(card, other));
    const verifyCard = cardVerifier({ trustedKeys: [key.publicJwk] });
    expect((await refusal(connect(tampered.url, { verifyCard, cardCache: false }))).message).toContain('signature verification failed');
    expect((await refusal(connect(foreign.url, { verifyCard, cardCache: false }))).message).toContain('unknown kid');
    expect([...a2aRequests(tampered), ...a2aRequests(foreign)]).toEqual([]);
  });

  it('verifies a cached card too', async () => {
    const agent = await agentServing();
    const cardCache = new MemoryCardCache();
    await connect(agent.url, { cardCache }); // caches the unsigned card
    agent.requests.length = 0;
    await refusal(connect(agent.url, { cardCache, verifyCard: cardVerifier({ trustedKeys: [key.publicJwk] }) }));
    expect(agent.requests).toEqual([]); // served from the cache, and still refused
  });

  it('verifies a card passed as `card`', async () => {
    const agent = await agentServing();
    const card = (await (await fetch(agent.cardUrl, { headers: { 'A2A-Version': '1.0' } })).json()) as Record<string, unknown>;
    const verifyCard = cardVerifier({ trustedKeys: [key.publicJwk] });
    await refusal(connect(agent.url, { card, verifyCard }));
    const client = await connect(agent.url, { card: await signCard(card, key), verifyCard });
    expect(client.card.name).toBe('Tether Test Agent');
  });

  it('verifies the extended card as well, and keeps the public one when it is refused', async () => {
    const agent = await agentServing((card) => signCard(card, key), true);
    const client = await connect(agent.url, { verifyCard: cardVerifier({ trustedKeys: [key.publicJwk] }), cardCache: false });
    const before = client.card;
    // The testkit's extended card is unsigned.
    const error = await refusal(client.getExtendedCard());
    expect(error.message).toContain('not signed');
    expect(client.card).toBe(before);
  });

  it('turns a custom verifier failure into SIGNATURE_INVALID, and normalizes what it returns', async () => {
    const agent = await agentServing();
    const failing: CardVerifier = () => Promise.reject(new Error('no pinned hash matches'));
    const error = await refusal(connect(agent.url, { verifyCard: failing, cardCache: false }));
    expect(error.message).toContain('the card verifier refused the agent card: no pinned hash matches');
    const renaming: CardVerifier = (card) => Promise.resolve({ ...card, name: 'Checked' });
    expect((await connect(agent.url, { verifyCard: renaming, cardCache: false })).card.name).toBe('Checked');
    const broken: CardVerifier = () => Promise.resolve({ nothing: true });
    await refusal(connect(agent.url, { verifyCard: broken, cardCache: false }), 'CARD_INVALID');
  });

  it('cardVerifier refuses bad options at once', () => {
    expect(() => cardVerifier({})).toThrow(TetherError);
    expect(() => cardVerifier({ trustedKeys: [key.publicJwk], algorithms: ['HS256'] })).toThrow(/HMAC/);
  });
});
