import { startTestAgent } from '@a2a-tether/testkit';
import type { TestAgent, TestAgentBehaviour } from '@a2a-tether/testkit';
import type { Binding, ProtocolVersion } from '@a2a-tether/node';
import { startOfficialV03Server } from '../official-v03-server.js';
import { startOfficialV1Server } from '../official-v1-server.js';
import type { OfficialServer } from '../official-server.js';

/** Which agent a chaos target runs against. */
export type ChaosAgentKind = 'testkit' | 'official-v1' | 'official-v0.3';

/** The testkit agent behaviours the chaos suite covers (see `TestAgentBehaviour`). */
export const CHAOS_BEHAVIOURS: Readonly<Record<string, TestAgentBehaviour>> = Object.freeze({
  default: {},
  'subscribeSnapshot:false': { subscribeSnapshot: false },
  'replayOnResubscribe:true': { replayOnResubscribe: true },
  'sseIds:true': { sseIds: true },
  'closeAtInterrupted:false': { closeAtInterrupted: false },
});

/** One agent × interface the runner drives tasks through (each gets its own fault proxy). */
export interface ChaosTarget {
  /** E.g. `testkit[sseIds:true] v1.0 JSONRPC`, `official v0.3 HTTP+JSON`. */
  name: string;
  agent: ChaosAgentKind;
  /** Testkit only: the behaviour's name in {@link CHAOS_BEHAVIOURS}. */
  behaviour?: string | undefined;
  version: ProtocolVersion;
  binding: Binding;
}

const COMBOS: ReadonlyArray<{ version: ProtocolVersion; binding: Binding }> = [
  { version: '1.0', binding: 'JSONRPC' },
  { version: '1.0', binding: 'HTTP+JSON' },
  { version: '0.3', binding: 'JSONRPC' },
  { version: '0.3', binding: 'HTTP+JSON' },
];

/**
 * Every target: the testkit agent under each behaviour × the four version/binding combinations,
 * then the official v1.0 server (@a2a-js/sdk 1.3.0) and v0.3 server (0.3.14) on both bindings.
 */
export function allChaosTargets(): ChaosTarget[] {
  const targets: ChaosTarget[] = [];
  for (const behaviour of Object.keys(CHAOS_BEHAVIOURS)) {
    for (const { version, binding } of COMBOS) {
      targets.push({ name: `testkit[${behaviour}] v${version} ${binding}`, agent: 'testkit', behaviour, version, binding });
    }
  }
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    targets.push({ name: `official v1.0 ${binding}`, agent: 'official-v1', version: '1.0', binding });
  }
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    targets.push({ name: `official v0.3 ${binding}`, agent: 'official-v0.3', version: '0.3', binding });
  }
  return targets;
}

/** A running agent behind one target. */
export interface ChaosBackend {
  /** What the fault proxy forwards to, and what a direct client connects to (the agent's base URL). */
  readonly url: string;
  /** Tasks of this agent whose creating message (same message id) was executed more than once. */
  duplicateExecutions(): number;
  close(): Promise<void>;
}

function duplicates(ids: readonly string[]): number {
  const seen = new Set<string>();
  let repeated = 0;
  for (const id of ids) {
    if (seen.has(id)) repeated++;
    else seen.add(id);
  }
  return repeated;
}

function testkitBackend(agent: TestAgent): ChaosBackend {
  return {
    url: agent.url,
    duplicateExecutions: () => duplicates(agent.tasks.list().map((task) => task.history[0]?.messageId ?? task.id)),
    close: () => agent.close(),
  };
}

function officialBackend(server: OfficialServer): ChaosBackend {
  return {
    url: server.origin,
    duplicateExecutions: () => duplicates(server.receivedMessageIds),
    close: () => server.close(),
  };
}

/** Starts the agent a target needs. */
export async function startBackend(target: ChaosTarget): Promise<ChaosBackend> {
  switch (target.agent) {
    case 'testkit': {
      const behaviour = CHAOS_BEHAVIOURS[target.behaviour ?? 'default'];
      if (behaviour === undefined) throw new Error(`unknown testkit behaviour ${target.behaviour}`);
      return testkitBackend(await startTestAgent({ behaviour: { ...behaviour } }));
    }
    case 'official-v1':
      return officialBackend(await startOfficialV1Server());
    case 'official-v0.3':
      return officialBackend(await startOfficialV03Server());
  }
}
