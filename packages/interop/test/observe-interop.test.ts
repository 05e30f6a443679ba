import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type LifecycleEvent, type TaskEvent, type TetherPlugin } from '@a2a-tether/node';
import { startFaultProxy } from '@a2a-tether/testkit';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// Issue 18 against the official @a2a-js/sdk servers (1.3.0 for v1.0, 0.3.14 for v0.3): every A2A request
// carries a traceparent of the task's one trace, also through cuts; a plugin's header reaches the server;
// a plugin's task-event hook sees what the app sees.

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

const seen: Seen[] = [];
let v1: OfficialServer;
let v03: OfficialServer;
const watch = (req: { originalUrl: string; headers: IncomingHttpHeaders }, _res: unknown, next: () => void): void => {
  seen.push({ path: req.originalUrl, headers: req.headers });
  next();
};

beforeAll(async () => {
  [v1, v03] = await Promise.all([startOfficialV1Server({ watch }), startOfficialV03Server({ watch })]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close()]);
});

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe.each([
  ['v1.0', () => v1, '1.0'],
  ['v0.3', () => v03, '0.3'],
] as const)('the official %s server', (_name, server, version) => {
  it('receives a traceparent of the task\'s one trace on every request, through cuts, and the plugin\'s header', async () => {
    const proxy = await startFaultProxy({ target: server().origin, seed: 7 });
    try {
      // Two cuts mid-stream: the task is followed through two subscriptions.
      proxy.addFault({ kind: 'cut', afterEvents: 4, mode: 'reset', times: 2, match: { sse: true } });
      const taskEvents: TaskEvent[] = [];
      const lifecycle: LifecycleEvent[] = [];
      const plugin: TetherPlugin = {
        name: 'tagger',
        onRequest: (_request, headers) => headers.set('X-Tether-Plugin', 'seen'),
        onTaskEvent: (event) => taskEvents.push(event),
        onLifecycle: (event) => lifecycle.push(event),
      };
      const client = await connect(`${proxy.origin}/.well-known/agent-card.json`, {
        cardCache: false,
        protocolVersions: [version],
        preferredBindings: ['JSONRPC'],
        plugins: [plugin],
        resilience: { initialDelayMs: 10, maxDelayMs: 50 },
      });
      seen.length = 0;
      const handle = await client.start('slow steps=12 delayMs=15');
      const app: TaskEvent[] = [];
      for await (const event of handle.events()) app.push(event);
      expect((await handle.done()).status.state).toBe('completed');
      expect(proxy.stats.cuts.reset).toBeGreaterThanOrEqual(1);

      const a2a = seen.filter((s) => s.path.startsWith('/a2a'));
      expect(a2a.length).toBeGreaterThanOrEqual(2);
      const traces = new Set(a2a.map((s) => TRACEPARENT.exec(String(s.headers['traceparent']))?.[1]));
      expect(traces.size).toBe(1);
      expect([...traces][0]).toMatch(/^[0-9a-f]{32}$/);
      for (const s of a2a) expect(s.headers['x-tether-plugin']).toBe('seen');
      // The task's lifecycle carries that trace id; the plugin saw every event the app saw, in order.
      expect(lifecycle.filter((e) => e.type === 'state-changed').every((e) => e.traceId === [...traces][0])).toBe(true);
      expect(taskEvents).toEqual(app);
    } finally {
      await proxy.close();
    }
  });
});
