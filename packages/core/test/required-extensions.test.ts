// Required extensions (issue 21): an extension the card marks `required` that the client does not activate
// is refused by connect() before any A2A request, naming it (EXTENSION_REQUIRED); activated, it is sent in
// the version's extensions header on every call. Optional ones never block.
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TetherError } from '../src/index.js';

const REQUIRED = 'https://ext.example/signed-receipts/v1';
const OPTIONAL = 'https://ext.example/citations/v1';

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function extensionAgent(versions: Array<'1.0' | '0.3'>): Promise<TestAgent> {
  agent = await startTestAgent({
    versions,
    cardOverride: (card) => ({
      ...card,
      capabilities: {
        ...(card['capabilities'] as object),
        extensions: [
          { uri: REQUIRED, required: true, description: 'receipts' },
          { uri: OPTIONAL, required: false },
        ],
      },
    }),
  });
  return agent;
}

const a2aRequests = (a: TestAgent): unknown[] => a.requests.filter((r) => !r.path.includes('agent-card') && !r.path.endsWith('agent.json'));

describe('required extensions', () => {
  for (const [versions, header] of [
    [['1.0'], 'a2a-extensions'],
    [['0.3'], 'x-a2a-extensions'],
  ] as const) {
    it(`v${versions[0]}: refused before any request, naming the extension; activated, sent in ${header}`, async () => {
      const a = await extensionAgent([...versions]);
      const error = (await connect(a.url, { cardCache: false }).catch((e: unknown) => e)) as TetherError;
      expect(error).toBeInstanceOf(TetherError);
      expect(error.code).toBe('EXTENSION_REQUIRED');
      expect(error.maybeDelivered).toBe(false);
      expect(error.message).toContain(REQUIRED);
      expect(error.message).not.toContain(OPTIONAL);
      expect(a2aRequests(a)).toEqual([]);
      // An optional extension activated does not satisfy the required one.
      expect(((await connect(a.url, { cardCache: false, extensions: [OPTIONAL] }).catch((e: unknown) => e)) as TetherError).code).toBe('EXTENSION_REQUIRED');

      const client = await connect(a.url, { cardCache: false, extensions: [REQUIRED] });
      await client.sendMessage('echo hi');
      const sent = a.requests.at(-1);
      expect(String(sent?.headers[header])).toContain(REQUIRED);
    });
  }

  it('a card without required extensions connects with none activated', async () => {
    agent = await startTestAgent();
    const client = await connect(agent.url, { cardCache: false });
    expect(client.card.capabilities.extensions.filter((e) => e.required)).toEqual([]);
  });
});
