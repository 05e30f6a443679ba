// An A2A v1.0 JSON-RPC agent for push tests that behaves as the official servers do at the edges that
// matter here: it pushes as it creates a task — before its answer to the send names the task — and it
// names its tasks itself, here all with one id (naive agents count from "1"). Each SendMessage creates a
// task `taskId` in state working (pushed at once, with the config's token in X-A2A-Notification-Token,
// and answered only once that push was answered), then `completeAfterMs` later completes it with one
// artifact `done-<n>` and pushes that. GetTask answers the latest task of the id. Every push's HTTP
// status is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Created {
  readonly id: string;
  readonly contextId: string;
  state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED';
  readonly artifact: string;
}

export interface EarlyAgent {
  readonly cardUrl: string;
  /** The HTTP status of every push, in the order they were answered. */
  readonly pushStatuses: number[];
  close(): Promise<void>;
}

const read = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const wire = (task: Created): Record<string, unknown> => ({
  id: task.id,
  contextId: task.contextId,
  status: { state: task.state },
  artifacts: task.state === 'TASK_STATE_COMPLETED' ? [{ artifactId: 'a', parts: [{ text: task.artifact }] }] : [],
});

export async function startEarlyAgent(options: { taskId: string; completeAfterMs: number; name: string }): Promise<EarlyAgent> {
  const pushStatuses: number[] = [];
  let latest: Created | undefined;
  let created = 0;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const push = async (hook: { url: string; token: string }, task: Created): Promise<void> => {
    const body = JSON.stringify({ statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: task.state } } });
    const answer = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': hook.token }, body });
    await answer.arrayBuffer();
    pushStatuses.push(answer.status);
  };
  const json = (res: ServerResponse, body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server = createServer((req, res) => {
    void (async () => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.method === 'GET') {
        return json(res, {
          name: options.name,
          description: 'pushes before it answers the send',
          version: '1',
          supportedInterfaces: [{ url: `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: false, pushNotifications: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        });
      }
      const rpc = JSON.parse(await read(req)) as { id: number; method: string; params: { configuration?: { taskPushNotificationConfig?: { url: string; token: string } } } };
      if (rpc.method === 'SendMessage') {
        const hook = rpc.params.configuration?.taskPushNotificationConfig;
        const task: Created = { id: options.taskId, contextId: `${options.name}-ctx-${++created}`, state: 'TASK_STATE_WORKING', artifact: `done-${options.name}-${created}` };
        latest = task;
        if (hook) await push(hook, task); // before the answer names the task
        json(res, { jsonrpc: '2.0', id: rpc.id, result: wire(task) });
        const timer = setTimeout(() => {
          timers.delete(timer);
          task.state = 'TASK_STATE_COMPLETED';
          if (hook) void push(hook, task).catch(() => undefined);
        }, options.completeAfterMs);
        timers.add(timer);
        return;
      }
      if (rpc.method === 'GetTask' && latest) return json(res, { jsonrpc: '2.0', id: rpc.id, result: wire(latest) });
      return json(res, { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: `no ${rpc.method}` } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    cardUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/agent-card.json`,
    pushStatuses,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
