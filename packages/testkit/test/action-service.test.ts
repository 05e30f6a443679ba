import { afterEach, describe, expect, it } from 'vitest';
import { startActionService } from '../src/index.js';
import type { ActionService, ActionServiceOptions } from '../src/index.js';
import type { HttpResult, Json } from './helpers.js';

let service: ActionService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start(options?: ActionServiceOptions): Promise<ActionService> {
  service = await startActionService(options);
  return service;
}

async function result(response: Response): Promise<HttpResult> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

function post(s: ActionService, body: unknown): Promise<Response> {
  return fetch(`${s.url}/actions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function perform(s: ActionService, key: string, operation = 'pay', input: unknown = { amount: 5 }): Promise<HttpResult> {
  return result(await post(s, { key, operation, input }));
}

async function lookup(s: ActionService, key: string): Promise<HttpResult> {
  return result(await fetch(`${s.url}/actions/${encodeURIComponent(key)}`));
}

describe('startActionService', () => {
  it('listens on 127.0.0.1 and performs over HTTP', async () => {
    const s = await start();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await perform(s, 'k1', 'pay', { amount: 5 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ seq: 1, key: 'k1', operation: 'pay', input: { amount: 5 } });
    expect(answer.body['duplicateOf']).toBeUndefined();
    expect(Date.parse(answer.body['at'] as string)).not.toBeNaN();
    expect(s.effects).toEqual([answer.body]);
  });

  it('dedupes a known key by default: the first record comes back and nothing is performed', async () => {
    const s = await start();
    const first = await perform(s, 'k1', 'pay', 1);
    const second = await perform(s, 'k1', 'pay', 2);
    expect(second.body).toEqual({ ...first.body, duplicateOf: 1 });
    expect(s.count('k1')).toBe(1);
    expect(s.effects).toHaveLength(1);
    expect(s.calls.map((call) => call.duplicateOf)).toEqual([undefined, 1]);
    const inProcess = s.perform('k1', 'pay', 3);
    expect(inProcess).toMatchObject({ seq: 1, input: 1, duplicateOf: 1 });
    expect(s.count('k1')).toBe(1);
  });

  it('with dedupe off, every perform is an effect; lookup keeps the first', async () => {
    const s = await start({ dedupe: false });
    s.perform('k1', 'pay', 1);
    const second = await perform(s, 'k1', 'pay', 2);
    expect(second.body).toMatchObject({ seq: 2, input: 2 });
    expect(second.body['duplicateOf']).toBeUndefined();
    expect(s.count('k1')).toBe(2);
    expect(s.effects.map((effect) => effect.seq)).toEqual([1, 2]);
    expect(s.lookup('k1')).toMatchObject({ seq: 1, input: 1 });
  });

  it('hands out copies: mutating effects does not change the service', async () => {
    const s = await start();
    s.perform('k1', 'pay', 1);
    (s.effects[0] as { key: string }).key = 'changed';
    expect(s.lookup('k1')?.key).toBe('k1');
  });

  it('loseNextAnswers records the effect and destroys the connection without an answer', async () => {
    const s = await start();
    s.loseNextAnswers(1);
    await expect(perform(s, 'lost')).rejects.toThrow();
    expect(s.lookup('lost')).toMatchObject({ seq: 1, key: 'lost' });
    expect((await lookup(s, 'lost')).body).toMatchObject({ seq: 1, key: 'lost' });
    const next = await perform(s, 'after');
    expect(next.status).toBe(200);
  });

  it('loseNextAnswers(n) loses exactly n answers', async () => {
    const s = await start();
    s.loseNextAnswers(2);
    await expect(perform(s, 'a')).rejects.toThrow();
    await expect(perform(s, 'b')).rejects.toThrow();
    expect((await perform(s, 'c')).status).toBe(200);
    expect(s.effects.map((effect) => effect.key)).toEqual(['a', 'b', 'c']);
  });

  it('delayNextAnswers records at once and answers late, then answers promptly again', async () => {
    const s = await start();
    s.delayNextAnswers(1, 150);
    const started = Date.now();
    const pending = perform(s, 'slow');
    await expect.poll(() => s.count('slow')).toBe(1);
    expect(Date.now() - started).toBeLessThan(150);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const quick = Date.now();
    await perform(s, 'quick');
    expect(Date.now() - quick).toBeLessThan(100);
  });

  it('the delayMs option delays every answer', async () => {
    const s = await start({ delayMs: 120 });
    const started = Date.now();
    await perform(s, 'k');
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('lookups: 200 with the record, 404 when unknown, 503 while unavailable', async () => {
    const s = await start();
    s.perform('order/1 ü', 'ship', 'box');
    const found = await lookup(s, 'order/1 ü');
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ seq: 1, key: 'order/1 ü', operation: 'ship', input: 'box' });
    const missing = await lookup(s, 'nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not found' });
    s.setLookupAvailable(false);
    expect((await lookup(s, 'order/1 ü')).status).toBe(503);
    s.setLookupAvailable(true);
    expect((await lookup(s, 'order/1 ü')).status).toBe(200);
  });

  it('400 for bad JSON or missing fields, and nothing is performed', async () => {
    const s = await start();
    const bodies: unknown[] = ['{not json', '[]', { operation: 'pay', input: 1 }, { key: 'k', input: 1 }, { key: 'k', operation: 'pay' }, { key: '', operation: 'pay', input: 1 }];
    for (const body of bodies) {
      const answer = await result(await post(s, body));
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(typeof answer.body['error']).toBe('string');
    }
    expect(s.effects).toEqual([]);
  });

  it('413 for a body over 1 MiB, and nothing is performed', async () => {
    const s = await start();
    const answer = await perform(s, 'big', 'upload', 'x'.repeat(1024 * 1024 + 1));
    expect(answer.status).toBe(413);
    expect(s.effects).toEqual([]);
    expect((await perform(s, 'small')).status).toBe(200);
  });

  it('413 for a chunked body (no Content-Length) that grows over 1 MiB', async () => {
    const s = await start();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 40) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        else controller.close();
      },
    });
    const response = await fetch(`${s.url}/actions`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    await response.text();
    expect(s.effects).toEqual([]);
  });

  it('404 for other paths, 405 for other methods', async () => {
    const s = await start();
    expect((await fetch(`${s.url}/other`)).status).toBe(404);
    expect((await fetch(`${s.url}/actions`)).status).toBe(405);
    expect((await fetch(`${s.url}/actions/k`, { method: 'DELETE' })).status).toBe(405);
  });

  it('close() does not wait for answers still delayed, and the pending request fails', async () => {
    const s = await start();
    s.delayNextAnswers(1, 60_000);
    const pending = perform(s, 'stuck');
    await expect.poll(() => s.count('stuck')).toBe(1);
    const started = Date.now();
    await s.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });

  it('rejects bad counts', async () => {
    const s = await start();
    expect(() => s.loseNextAnswers(-1)).toThrow(/non-negative integer/);
    expect(() => s.delayNextAnswers(1, 1.5)).toThrow(/non-negative integer/);
  });
});
