import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { record, rpcResult, startScriptedAgent, statusFrame, task, taskFrame, within, type ScriptedAgent } from './helpers/scripted-agent.js';

// More tasks than sockets (issue 7): a client holds at most `maxStreams` task streams open; past it, a
// task is followed by polling (the connection state says so) and moves back to a stream when one closes.

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

describe('stream slots', () => {
  it('the third task of a client with maxStreams 2 is polled, and streams once a slot frees', async () => {
    const open = new Map<string, ServerResponse>();
    const states = new Map<string, string>();
    let next = 0;
    let streaming = 0;
    let most = 0;
    const track = (res: ServerResponse): void => {
      most = Math.max(most, ++streaming);
      res.on('close', () => streaming--);
    };
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      const id = `t${++next}`;
      open.set(id, res);
      track(res);
      agent.sse(res, [taskFrame(task('WORKING', 1, { id }))], false);
    };
    agent.handlers['SendMessage'] = (rpc, res) => {
      const id = `t${++next}`;
      rpcResult(res, rpc, task('WORKING', 1, { id }));
    };
    agent.handlers['GetTask'] = (rpc, res) => {
      const id = String(rpc.params['id']);
      rpcResult(res, rpc, task(states.get(id) ?? 'WORKING', 2, { id }));
    };
    agent.handlers['SubscribeToTask'] = (rpc, res) => {
      const id = String(rpc.params['id']);
      open.set(id, res);
      track(res);
      agent.sse(res, [taskFrame(task('WORKING', 2, { id }))], false);
    };
    const client = await agent.client({ maxStreams: 2 });
    const first = await client.start('one');
    const second = await client.start('two');
    const third = await client.start('three');
    const events = record(third);
    await agent.clock.advance(2_000);
    expect(agent.count('SendStreamingMessage')).toBe(2);
    expect(agent.count('SendMessage')).toBe(1); // the third send could not stream: unary, then polling
    expect(events.some((e) => e.type === 'connection' && e.state === 'polling')).toBe(true);
    expect(agent.count('GetTask')).toBeGreaterThan(0);

    // The first task ends: its stream closes, its slot frees, the third task streams again.
    states.set('t1', 'COMPLETED');
    open.get('t1')?.end(statusFrame('COMPLETED', 3, { taskId: 't1' }));
    await within(agent.clock, first.done());
    await agent.clock.advance(10_000);
    expect(agent.count('SubscribeToTask')).toBe(1);
    expect(events.filter((e) => e.type === 'connection').at(-1)).toMatchObject({ state: 'live' });
    // Never more than two streams open at once.
    expect(most).toBe(2);
    second.detach();
    third.detach();
  });
});
