// Typed results (issue 21): `handle.data(schema)` and `dataOf()` check an agent's data part with any Standard
// Schema validator (zod 4 here), type the result by the schema, and refuse a wrong shape with
// SCHEMA_MISMATCH keeping the part whole — on both protocol versions and both HTTP bindings.
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { connect, isSchemaMismatch, TetherError, type StandardSchema, type Task } from '../src/index.js';
import { dataOf, SchemaMismatchError } from '../src/protocol-entry.js';

const forecast = z.object({ city: z.string(), tempC: z.number(), days: z.array(z.object({ day: z.string(), rain: z.boolean() })) });
const GOOD = { city: 'Lisbon', tempC: 21.5, days: [{ day: 'mon', rain: false }] };

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** An agent whose `forecast` scenario answers with a text artifact, then a data artifact holding the message's JSON. */
async function forecastAgent(versions: Array<'1.0' | '0.3'>, bindings: Array<'JSONRPC' | 'HTTP+JSON'>): Promise<TestAgent> {
  agent = await startTestAgent({
    versions,
    bindings,
    scenarios: {
      forecast: async (ctx) => {
        ctx.status('working');
        ctx.artifact({ artifactId: 'summary', text: 'sunny', lastChunk: true });
        ctx.artifact({ artifactId: 'data', parts: [{ kind: 'data', data: JSON.parse(ctx.text.slice('forecast '.length)) as unknown }], lastChunk: true });
        ctx.status('completed');
      },
    },
  });
  return agent;
}

describe('handle.data(schema)', () => {
  for (const [versions, bindings] of [
    [['1.0'], ['JSONRPC']],
    [['1.0'], ['HTTP+JSON']],
    [['0.3'], ['JSONRPC']],
    [['0.3'], ['HTTP+JSON']],
  ] as const) {
    it(`v${versions[0]} ${bindings[0]}: the data part, typed and checked by a zod schema`, async () => {
      const a = await forecastAgent([...versions], [...bindings]);
      const client = await connect(a.url);
      const task = await client.start(`forecast ${JSON.stringify(GOOD)}`);
      const value = await task.data(forecast);
      expectTypeOf(value).toEqualTypeOf<{ city: string; tempC: number; days: Array<{ day: string; rain: boolean }> }>();
      expect(value).toEqual(GOOD);
      // @ts-expect-error: the schema has no such field
      expect(value.humidity).toBeUndefined();
    });
  }

  it('a wrong shape: SCHEMA_MISMATCH naming the fields, with the part kept whole and the issues', async () => {
    const a = await forecastAgent(['1.0'], ['JSONRPC']);
    const client = await connect(a.url);
    const bad = { city: 'Lisbon', tempC: '21', days: [{ day: 'mon' }], extra: [1, 2] };
    const task = await client.start(`forecast ${JSON.stringify(bad)}`);
    const error = await task.data(forecast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toBeInstanceOf(TetherError);
    expect(isSchemaMismatch(error)).toBe(true);
    expect(isSchemaMismatch(new TetherError('NETWORK', 'x'))).toBe(false);
    const mismatch = error as SchemaMismatchError;
    expect(mismatch.code).toBe('SCHEMA_MISMATCH');
    expect(mismatch.part).toEqual({ kind: 'data', data: bad });
    expect(mismatch.artifactId).toBe('data');
    expect(mismatch.taskId).toBe(task.taskId);
    expect(mismatch.issues.map((i) => i.path?.join('.'))).toEqual(['tempC', 'days.0.rain']);
    expect(mismatch.message).toContain('the data part of artifact data does not match the schema: tempC: ');
    expect(mismatch.isRetryable).toBe(false);
    // The task itself is fine, and still there.
    expect((await task.done()).status.state).toBe('completed');
  });

  it('picks the artifact asked for; none there is SCHEMA_MISMATCH without a part', async () => {
    const a = await forecastAgent(['1.0'], ['JSONRPC']);
    const client = await connect(a.url);
    const task = await client.start(`forecast ${JSON.stringify(GOOD)}`);
    expect(await task.data(forecast, { artifactId: 'data' })).toEqual(GOOD);
    const none = (await task.data(forecast, { artifactId: 'summary' }).catch((e: unknown) => e)) as SchemaMismatchError;
    expect(none.code).toBe('SCHEMA_MISMATCH');
    expect(none.part).toBeUndefined();
    expect(none.message).toContain('no data part in artifact summary');
  });

  it('types a transform by its output, and takes an async validator', async () => {
    const a = await forecastAgent(['1.0'], ['JSONRPC']);
    const client = await connect(a.url);
    const task = await client.start(`forecast ${JSON.stringify(GOOD)}`);
    const fahrenheit = forecast.transform((f) => ({ city: f.city, tempF: (f.tempC * 9) / 5 + 32 }));
    const converted = await task.data(fahrenheit);
    expectTypeOf(converted).toEqualTypeOf<{ city: string; tempF: number }>();
    expect(converted).toEqual({ city: 'Lisbon', tempF: 70.7 });
    // A validator of our own, async, through the Standard Schema interface alone.
    const cityOnly: StandardSchema<unknown, string> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value) => {
          await Promise.resolve();
          const city = (value as { city?: unknown }).city;
          return typeof city === 'string' ? { value: city } : { issues: [{ message: 'no city', path: ['city'] }] };
        },
      },
    };
    expect(await task.data(cityOnly)).toBe('Lisbon');
  });
});

describe('dataOf', () => {
  const task: Task = {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state: 'completed' },
    artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'x' }, { kind: 'data', data: GOOD }] }],
    history: [],
  };

  it('reads a task, an artifact and a message (a sendMessage answer)', async () => {
    expect(await dataOf(task, forecast)).toEqual(GOOD);
    expect(await dataOf(task.artifacts[0]!, forecast)).toEqual(GOOD);
    const message = { kind: 'message' as const, messageId: 'm', role: 'agent' as const, parts: [{ kind: 'data' as const, data: { city: 'Porto', tempC: 18, days: [] } }] };
    expect((await dataOf(message, forecast)).city).toBe('Porto');
  });

  it('cuts a long list of issues in the message, and keeps them all on the error', async () => {
    const many = z.object(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}`, z.string()])));
    const error = (await dataOf(task, many).catch((e: unknown) => e)) as SchemaMismatchError;
    expect(error.issues).toHaveLength(6);
    expect(error.message).toContain('(+3 more)');
  });
});
