/**
 * The key a store files a task's record under (and leases the task by): its agent and its id together,
 * `JSON.stringify([agentUrl, taskId])`. Agents choose task ids, and naive ones count from "1": two agents'
 * tasks "1" are two tasks, with two records and two leases (G11). `agentUrl` is the record's own (the
 * card URL with credential-like values masked, as the engine writes it: `client.taskKey(taskId)` gives
 * the key of a client's task). Stores of your own: key `get`, `update`, `delete` and `lease` by it, and
 * file a `put` record under `taskKey(record.agentUrl, record.taskId)`.
 */
export function taskKey(agentUrl: string, taskId: string): string {
  return JSON.stringify([agentUrl, taskId]);
}

/** The task id a {@link taskKey} names (for messages); the key itself when it is not one. */
export function taskIdOf(key: string): string {
  try {
    const parsed: unknown = JSON.parse(key);
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[1] === 'string') return parsed[1];
  } catch {
    // not a key: said as it is
  }
  return key;
}
