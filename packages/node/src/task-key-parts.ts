// What a task store's key names (`taskKey(agentUrl, taskId)` of core: JSON of the pair), read back for the
// stores' checks and messages. Internal to this package.

/** The agent and task id of a key; `undefined` when `key` is not one. */
export function keyParts(key: unknown): { agentUrl: string; taskId: string } | undefined {
  if (typeof key !== 'string' || !key.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(key);
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') return { agentUrl: parsed[0], taskId: parsed[1] };
  } catch {
    // not a key
  }
  return undefined;
}

/** The task id a key names, for errors' `taskId`; the key itself when it is not one. */
export function keyTaskId(key: string | undefined): string | undefined {
  return key === undefined ? undefined : (keyParts(key)?.taskId ?? key);
}
