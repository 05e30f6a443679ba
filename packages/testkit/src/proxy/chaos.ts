import { matchesRequest, matchesResponse } from './fault-match.js';
import type { FaultMatch, RequestFacts } from './fault-match.js';
import type { CutFault, StallFault, StatusFault } from './fault-rule.js';
import type { SeededRandom } from './seeded-random.js';

/** Random faults on every matching request. See {@link FaultProxy.chaos}. */
export interface ChaosOptions {
  /** Reseed the proxy's PRNG, so the same request sequence gets the same faults. Default: keep it. */
  seed?: number | undefined;
  /** Per SSE response: the chance that it is cut. */
  cutProbability?: number | undefined;
  /** A cut comes after a random 0…this many events. Also bounds where a stall starts. */
  maxEventsBeforeCut?: number | undefined;
  /** Share of cuts that are TCP resets; the rest are clean ends. */
  resetRatio?: number | undefined;
  /** Share of cuts that land inside an event rather than right after one. */
  midEventRatio?: number | undefined;
  /** Per request: the chance of a 503 or 429 (Retry-After 0 or 1 s) instead of forwarding. */
  statusProbability?: number | undefined;
  /** Per SSE response that was not cut: the chance that it stalls. */
  stallProbability?: number | undefined;
  /** Which requests chaos applies to; all when absent. With `sse` set there is no status injection. */
  match?: FaultMatch | undefined;
}

/** Chaos settings for whatever {@link ChaosOptions} leaves out. Stalls are off: they hang naive clients. */
export const CHAOS_DEFAULTS: Readonly<{
  cutProbability: number;
  maxEventsBeforeCut: number;
  resetRatio: number;
  midEventRatio: number;
  statusProbability: number;
  stallProbability: number;
}> = Object.freeze({
  cutProbability: 0.2,
  maxEventsBeforeCut: 3,
  resetRatio: 0.5,
  midEventRatio: 0.25,
  statusProbability: 0.1,
  stallProbability: 0,
});

/** Chaos options with defaults filled in. */
export interface ResolvedChaos {
  cutProbability: number;
  maxEventsBeforeCut: number;
  resetRatio: number;
  midEventRatio: number;
  statusProbability: number;
  stallProbability: number;
  match: FaultMatch | undefined;
}

export function resolveChaos(options: ChaosOptions): ResolvedChaos {
  const resolved: ResolvedChaos = {
    cutProbability: options.cutProbability ?? CHAOS_DEFAULTS.cutProbability,
    maxEventsBeforeCut: options.maxEventsBeforeCut ?? CHAOS_DEFAULTS.maxEventsBeforeCut,
    resetRatio: options.resetRatio ?? CHAOS_DEFAULTS.resetRatio,
    midEventRatio: options.midEventRatio ?? CHAOS_DEFAULTS.midEventRatio,
    statusProbability: options.statusProbability ?? CHAOS_DEFAULTS.statusProbability,
    stallProbability: options.stallProbability ?? CHAOS_DEFAULTS.stallProbability,
    match: options.match,
  };
  for (const key of ['cutProbability', 'resetRatio', 'midEventRatio', 'statusProbability', 'stallProbability'] as const) {
    const value = resolved[key];
    if (!(value >= 0 && value <= 1)) throw new RangeError(`chaos ${key} must be within 0–1, got ${value}`);
  }
  if (!(Number.isInteger(resolved.maxEventsBeforeCut) && resolved.maxEventsBeforeCut >= 0)) {
    throw new RangeError(`chaos maxEventsBeforeCut must be a non-negative integer, got ${resolved.maxEventsBeforeCut}`);
  }
  return resolved;
}

/** Before forwarding: maybe a 503 or 429 instead. */
export function chaosBeforeForwarding(chaos: ResolvedChaos, rng: SeededRandom, request: RequestFacts): StatusFault | undefined {
  if (chaos.match?.sse !== undefined || !matchesRequest(chaos.match, request)) return undefined;
  if (!rng.chance(chaos.statusProbability)) return undefined;
  const status = rng.chance(0.5) ? 503 : 429;
  return { kind: 'status', status, retryAfter: rng.int(0, 1) };
}

/** Once the response is known: maybe cut or stall an SSE response. */
export function chaosForResponse(
  chaos: ResolvedChaos,
  rng: SeededRandom,
  request: RequestFacts,
  sse: boolean,
): CutFault | StallFault | undefined {
  if (!sse || !matchesRequest(chaos.match, request) || !matchesResponse(chaos.match, sse)) return undefined;
  if (rng.chance(chaos.cutProbability)) {
    const afterEvents = rng.int(0, chaos.maxEventsBeforeCut);
    const mode = rng.chance(chaos.resetRatio) ? 'reset' : 'end';
    const within = rng.chance(chaos.midEventRatio) ? 'event' : 'boundary';
    return { kind: 'cut', afterEvents, mode, within };
  }
  if (rng.chance(chaos.stallProbability)) return { kind: 'stall', afterEvents: rng.int(0, chaos.maxEventsBeforeCut) };
  return undefined;
}
