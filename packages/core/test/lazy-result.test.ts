import { describe, expect, it } from 'vitest';
import { LazyResult } from '../src/task/follow-types.js';

describe('LazyResult: a settle-once result whose promise is made on demand', () => {
  it('a promise asked for after the result resolved has the value; later settles are ignored', async () => {
    const result = new LazyResult<number>();
    result.resolve(1);
    result.resolve(2);
    result.reject(new Error('late'));
    await expect(result.promise).resolves.toBe(1);
  });

  it('a promise asked for before settling waits for it, and every ask gets the same promise', async () => {
    const result = new LazyResult<string>();
    const first = result.promise;
    expect(result.promise).toBe(first);
    result.reject(new Error('gone'));
    result.resolve('late');
    await expect(first).rejects.toThrow('gone');
  });

  it('a rejection nobody asked for is not reported as unhandled, and is there for a later ask', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const result = new LazyResult<void>();
      result.reject(new Error('failed early'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      await expect(result.promise).rejects.toThrow('failed early');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
