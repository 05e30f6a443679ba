/**
 * The shared knobs of the property-based (fast-check) fuzz tests under `test/fuzz/`.
 *
 * CI runs every property with a fixed seed and a bounded number of cases, so a run is
 * reproducible and takes seconds. `pnpm fuzz --runs N [--seed S]` (scripts/fuzz.mjs) sets
 * `FUZZ_RUNS` / `FUZZ_SEED` to run more cases, or other ones.
 *
 * ```ts
 * fc.assert(property, { numRuns: fuzzRuns(200), seed: fuzzSeed() });
 * ```
 */

/** The seed CI uses when `FUZZ_SEED` is not set. */
export const DEFAULT_FUZZ_SEED = 20261201;

/** Cases per property: `FUZZ_RUNS` when set (a positive integer), else `defaultRuns`. */
export function fuzzRuns(defaultRuns: number): number {
  return positiveInteger('FUZZ_RUNS') ?? defaultRuns;
}

/** The fast-check seed: `FUZZ_SEED` when set (an integer), else {@link DEFAULT_FUZZ_SEED}. */
export function fuzzSeed(): number {
  const raw = process.env['FUZZ_SEED'];
  if (raw === undefined || raw === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed;
}

function positiveInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * The time `run` takes, in ms — tried up to `tries` times, stopping at the first run within
 * `boundMs`, so one GC pause or a busy machine does not fail a per-case time bound while a real
 * blow-up (quadratic time) still does: it is slow every time.
 *
 * ```ts
 * expect(fastestMs(50, () => parse(input))).toBeLessThan(50);
 * ```
 */
export function fastestMs(boundMs: number, run: () => unknown, tries = 3): number {
  let best = Infinity;
  for (let i = 0; i < tries && best >= boundMs; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
