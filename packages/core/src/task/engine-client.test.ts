import { describe, expect, it } from 'vitest';
import type { AgentCard, ProtocolVersion } from '../card/card-types.js';
import { realScheduler } from '../util/scheduler.js';
import { followContext, type EngineHost, type FollowSettings } from './engine-client.js';

describe("the engine's view of the agent", () => {
  it('is made once per card (every reduction of every follow reads it) and again when the card changes', () => {
    const card = (streaming: boolean): AgentCard => ({ capabilities: { streaming } }) as unknown as AgentCard;
    let now: { card: AgentCard; cardUrl: string; protocolVersion: ProtocolVersion } = {
      card: card(true),
      cardUrl: 'https://agent.example/card?api_key=s3cret',
      protocolVersion: '1.0',
    };
    const host: EngineHost = { run: () => Promise.reject(new Error('no calls here')), agent: () => ({ ...now }) };
    const context = followContext(host, { scheduler: realScheduler, leaseOwner: 'me', maxStreams: 1 } as unknown as FollowSettings);
    const first = context.client.agent;
    expect(first).toMatchObject({ streaming: true, listTasks: true, subscribeSnapshot: true });
    expect(first.url).not.toContain('s3cret');
    expect(context.client.agent).toBe(first);
    now = { ...now, card: card(false) };
    expect(context.client.agent).toMatchObject({ streaming: false });
    now = { ...now, protocolVersion: '0.3' };
    expect(context.client.agent).toMatchObject({ streaming: false, listTasks: false, subscribeSnapshot: false });
  });
});
