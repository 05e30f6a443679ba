/**
 * Where a relay keeps who owns each task and context it has seen created. Keys name the agent too (G11):
 * two agents' task "1" are two keys. The memory one serves one process; a relay on several processes or
 * serverless instances needs one they share (a table of the app's database, Redis …).
 */
export interface RelayOwnership {
  /** The owner of `key`, if it has one. */
  ownerOf(key: string): string | undefined | Promise<string | undefined>;
  /** Gives `key` to `owner` unless it has an owner already; returns its owner afterwards. */
  claim(key: string, owner: string): string | Promise<string>;
}

/** The key of an agent's task or context id. */
export function ownershipKey(agent: string, kind: 'task' | 'context', id: string): string {
  return JSON.stringify([agent, kind, id]);
}

/**
 * Ownership in memory, for one process: at most `maxEntries` keys (default 100,000); past that the
 * oldest are forgotten (their tasks are then not found by anyone through the relay).
 */
export function createMemoryOwnership(maxEntries = 100_000): RelayOwnership {
  const owners = new Map<string, string>();
  return {
    ownerOf: (key) => owners.get(key),
    claim(key, owner) {
      const current = owners.get(key);
      if (current !== undefined) return current;
      owners.set(key, owner);
      if (owners.size > maxEntries) owners.delete(owners.keys().next().value as string);
      return owner;
    },
  };
}
