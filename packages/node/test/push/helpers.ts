import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PushNotice, PushReceiver, TaskState } from '../../src/index.js';

/** A Node server on 127.0.0.1 (port 0) running the receiver's node handler. */
export async function serve(receiver: PushReceiver): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(receiver.nodeHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const WIRE_STATE: Record<TaskState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

/** A v1.0 push body: a StreamResponse carrying a status update. */
export function v1Status(taskId: string, state: TaskState, timestamp?: string): string {
  const status = timestamp === undefined ? { state: WIRE_STATE[state] } : { state: WIRE_STATE[state], timestamp };
  return JSON.stringify({ statusUpdate: { taskId, contextId: 'ctx-1', status } });
}

/** A v0.3 push body: the whole Task. */
export function v03Task(taskId: string, state: TaskState): string {
  return JSON.stringify({ kind: 'task', id: taskId, contextId: 'ctx-1', status: { state }, history: [], artifacts: [] });
}

/** Collects a task's notices; `gate` (when given) holds each listener call until released. */
export function recorder(receiver: PushReceiver, taskId: string): { notices: PushNotice[]; next: (count: number) => Promise<void> } {
  const notices: PushNotice[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  receiver.subscribe(taskId, (notice) => {
    notices.push(notice);
    for (const waiter of waiters.splice(0)) {
      if (notices.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  return {
    notices,
    next: (count) =>
      notices.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
  };
}

/** Lets pending setImmediate callbacks (listener deliveries) run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
