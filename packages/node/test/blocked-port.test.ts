import { describe, expect, it } from 'vitest';
import { connect, TetherError } from '../src/index.js';

describe("undici's fetch refusing a port", () => {
  it.each(['http://127.0.0.1:6000', 'http://127.0.0.1:10080'])('connect(%s) → NETWORK, not retryable, never delivered', async (origin) => {
    const error = await connect(origin, { cardCache: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'NETWORK', isRetryable: false, maybeDelivered: false });
    expect((error as TetherError).message).toContain(`refuses port ${new URL(origin).port}`);
  });
});
