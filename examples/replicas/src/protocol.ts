// What the main script (main.ts) and the replica processes (replica.ts) share: the settings every replica
// runs with, and the lines they exchange. The main script writes commands to a replica's stdin, one per
// line; a replica answers on stdout with one JSON object per line (a `ReplicaMessage`).
import type { PushReceiverStats } from '@a2a-tether/node';

/**
 * The lease of the Redis task and workflow stores (ms). Short, so that the example's takeover happens
 * within seconds: a replica that dies gives its tasks and workflows up at most this long after its last
 * renewal. Production uses longer leases (the default is 30 s); keep it well above your worst pause.
 */
export const LEASE_MS = 1_500;

/**
 * The safety poll of push delivery (ms): ten minutes. A task followed by push asks the agent with GetTask
 * this often anyway, in case a push was lost. Here it is far longer than the run, so only pushes can
 * finish a task in time.
 */
export const SAFETY_POLL_MS = 10 * 60_000;

/** The workflow replica A starts: its id (the key of its record in Redis) and its goal. */
export const WORKFLOW_ID = 'otter-report';
export const WORKFLOW_GOAL = 'sea otters';

/** The environment variable that carries the receiver-wide push secret (the same on every replica). */
export const PUSH_TOKEN_ENV = 'PUSH_TOKEN';

/** What the main script writes to a replica's stdin. */
export type ReplicaCommand =
  | `tasks ${number}` // start that many tasks with delivery 'push' and follow each to its end
  | 'stats' // report the push receiver's stats
  | 'workflow' // start the workflow WORKFLOW_ID (replica A)
  | 'exit'; // shut down cleanly

/** What a replica writes to its stdout, one JSON object per line. */
export type ReplicaMessage =
  | { type: 'ready'; replica: string; pid: number; port: number }
  | { type: 'task'; replica: string; taskId: string; state: string; ms: number; text: string; connections: string[]; error?: string }
  | { type: 'tasks-done'; replica: string }
  | { type: 'stats'; replica: string; stats: PushReceiverStats }
  | { type: 'workflow-node'; replica: string; node: string; state: string; taskId?: string | undefined }
  | { type: 'took-over'; replica: string; workflow: string }
  | { type: 'workflow-done'; replica: string; state: string; tree: string; result: string }
  | { type: 'workflow-lost'; replica: string; error: string }
  | { type: 'error'; replica: string; error: string };
