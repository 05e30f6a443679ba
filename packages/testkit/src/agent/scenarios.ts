import type { ScenarioContext, ScenarioFn } from './scenario.js';

/** The scenario parameter `key` as a non-negative integer, or `fallback` when absent; throws when malformed. */
export function intParam(ctx: ScenarioContext, key: string, fallback: number): number {
  const raw = ctx.params[key];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`Parameter ${key}=${raw} must be a non-negative integer`);
  return value;
}

/** Two-, three- and four-byte UTF-8 characters, so a fault proxy can cut inside one. */
const MULTI_BYTE_SUFFIX = 'é✓😀';

/**
 * `chunk-${i};` (plus {@link MULTI_BYTE_SUFFIX} when `unicode`), right-padded with "x" up to `size`
 * characters when `chunkSize` was given.
 */
function chunkText(i: number, size: number | undefined, unicode = false): string {
  const text = unicode ? `chunk-${i};${MULTI_BYTE_SUFFIX}` : `chunk-${i};`;
  return size !== undefined && size > text.length ? text + 'x'.repeat(size - text.length) : text;
}

/** `echo`: replies with a Message `echo: <full text>` and creates no task. */
const echo: ScenarioFn = (ctx) => {
  ctx.message(`echo: ${ctx.text}`);
};

/**
 * `stream updates=3 chunks=5 delayMs=5 chunkSize=? unicode=0 createAfterMs=0`: submitted, then `updates`
 * working statuses (`step 1`…) interleaved with `chunks` chunks of the artifact `result` (`chunk-1;`…),
 * then completed. `unicode=1` makes the chunks `chunk-1;é✓😀`…, multi-byte characters to cut inside.
 * `createAfterMs=N`: the agent takes the message, works N ms, and only then creates the task (as the
 * official server stores a task only once its executor publishes it): until then no stream, GetTask or
 * ListTasks shows it.
 */
const stream: ScenarioFn = async (ctx) => {
  const updates = intParam(ctx, 'updates', 3);
  const chunks = intParam(ctx, 'chunks', 5);
  const delayMs = intParam(ctx, 'delayMs', 5);
  const chunkSize = ctx.params['chunkSize'] === undefined ? undefined : intParam(ctx, 'chunkSize', 0);
  const unicode = intParam(ctx, 'unicode', 0) !== 0;
  const createAfterMs = intParam(ctx, 'createAfterMs', 0);
  if (createAfterMs > 0) await ctx.sleep(createAfterMs);
  ctx.status('submitted');
  for (let i = 1; i <= Math.max(updates, chunks); i++) {
    if (i <= updates) {
      await ctx.sleep(delayMs);
      ctx.status('working', `step ${i}`);
    }
    if (i <= chunks) {
      await ctx.sleep(delayMs);
      ctx.artifact({
        artifactId: 'result',
        name: 'result',
        text: chunkText(i, chunkSize, unicode),
        append: i > 1,
        lastChunk: i === chunks,
      });
    }
  }
  await ctx.sleep(delayMs);
  ctx.status('completed');
};

function interrupted(state: 'input-required' | 'auth-required', prompt: string): ScenarioFn {
  return async (ctx) => {
    ctx.status('working');
    ctx.status(state, prompt);
    const answer = await ctx.waitForInput();
    ctx.status('working');
    ctx.artifact({ artifactId: 'answer', name: 'answer', text: `got: ${answer}`, lastChunk: true });
    ctx.status('completed');
  };
}

/** `input`: working → input-required (`need input`); a follow-up resumes it → artifact `answer` → completed. */
const input: ScenarioFn = interrupted('input-required', 'need input');

/** `auth`: like `input` but auth-required (`need auth`). */
const auth: ScenarioFn = interrupted('auth-required', 'need auth');

/** `fail`: working → failed (`failed on purpose`). */
const fail: ScenarioFn = (ctx) => {
  ctx.status('working');
  ctx.status('failed', 'failed on purpose');
};

/** `reject`: → rejected (`rejected on purpose`). */
const reject: ScenarioFn = (ctx) => {
  ctx.status('rejected', 'rejected on purpose');
};

/**
 * `slow steps=50 delayMs=20`: a working status (`step i`) and one chunk of artifact `result` per step,
 * then completed. CancelTask at any step ends it canceled (ctx.sleep rejects on cancel).
 */
const slow: ScenarioFn = async (ctx) => {
  const steps = intParam(ctx, 'steps', 50);
  const delayMs = intParam(ctx, 'delayMs', 20);
  ctx.status('working');
  for (let i = 1; i <= steps; i++) {
    await ctx.sleep(delayMs);
    ctx.status('working', `step ${i}`);
    ctx.artifact({ artifactId: 'result', name: 'result', text: chunkText(i, undefined), append: i > 1, lastChunk: i === steps });
  }
  ctx.status('completed');
};

/** `artifacts n=2 delayMs=5`: `n` separate complete artifacts (`artifact-1`…), then completed. */
const artifacts: ScenarioFn = async (ctx) => {
  const n = intParam(ctx, 'n', 2);
  const delayMs = intParam(ctx, 'delayMs', 5);
  ctx.status('working');
  for (let i = 1; i <= n; i++) {
    await ctx.sleep(delayMs);
    ctx.artifact({ artifactId: `artifact-${i}`, name: `artifact-${i}`, text: `artifact ${i}`, lastChunk: true });
  }
  ctx.status('completed');
};

/** The built-in scenarios, by name. Unknown names fall back to `echo`. */
export const BUILT_IN_SCENARIOS: Readonly<Record<string, ScenarioFn>> = Object.freeze({
  echo,
  stream,
  input,
  auth,
  fail,
  reject,
  slow,
  artifacts,
});
