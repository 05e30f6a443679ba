import { TetherError } from '@a2a-tether/core';
import { PUSH_RECEIVER_DEFAULTS } from './defaults.js';
import type { PushReceiverOptions } from './receiver-types.js';

/** The options of `createPushReceiver` this file checks (see `PushReceiverOptions` for their meaning). */
export type SettingsInput = Omit<PushReceiverOptions, 'now' | 'onRefused' | 'onListenerError' | 'relay'>;

/** A receiver's limits, checked and with the defaults filled in. */
export interface ReceiverSettings {
  readonly algorithms: readonly string[];
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly maxUnverifiedBytes: number;
  readonly windowSec: number;
  readonly maxPendingPerTask: number;
  readonly maxEarlyPushes: number;
  readonly maxEarlyBytes: number;
  readonly maxRememberedBodies: number;
  readonly replayCacheSize: number;
  readonly retryAfterSec: number;
}

const FORBIDDEN_ALGORITHMS = /^(none|HS\d+)$/i;

function invalid(message: string): TetherError {
  return new TetherError('INVALID_ARGUMENT', `createPushReceiver: ${message}`);
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw invalid(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * Checks a receiver's options and fills in the defaults ({@link PUSH_RECEIVER_DEFAULTS}).
 *
 * @throws TetherError `INVALID_ARGUMENT` when no authentication is configured or an option is invalid.
 */
export function receiverSettings(options: SettingsInput): ReceiverSettings {
  const { token, jwt, hmac } = options;
  if (token === undefined && jwt === undefined && hmac === undefined) {
    // `token: process.env.X` with X unset is the usual way here.
    const unset = 'token' in options ? ' (token is undefined: is the variable it was read from set?)' : '';
    throw invalid(`configure at least one of token, jwt, hmac${unset}`);
  }
  if (token === '') throw invalid('token must not be empty');
  if (jwt !== undefined && jwt.audience === '') throw invalid('jwt.audience must not be empty');
  const algorithms = jwt?.algorithms ?? PUSH_RECEIVER_DEFAULTS.jwtAlgorithms;
  if (jwt !== undefined && (algorithms.length === 0 || algorithms.some((alg) => FORBIDDEN_ALGORITHMS.test(alg)))) {
    throw invalid(`jwt.algorithms must list asymmetric algorithms only (not none or HS*), got ${JSON.stringify(algorithms)}`);
  }
  if (hmac !== undefined && (hmac.secret.length === 0 || hmac.secret === 'whsec_')) throw invalid('hmac.secret must not be empty');
  const d = PUSH_RECEIVER_DEFAULTS;
  return {
    algorithms,
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, d.maxBodyBytes),
    bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs, d.bodyTimeoutMs),
    maxUnverifiedBytes: positive('maxUnverifiedBytes', options.maxUnverifiedBytes, d.maxUnverifiedBytes),
    windowSec: positive('windowSec', options.windowSec, d.windowSec),
    maxPendingPerTask: positive('maxPendingPerTask', options.maxPendingPerTask, d.maxPendingPerTask),
    maxEarlyPushes: positive('maxEarlyPushes', options.maxEarlyPushes, d.maxEarlyPushes),
    maxEarlyBytes: positive('maxEarlyBytes', options.maxEarlyBytes, d.maxEarlyBytes),
    maxRememberedBodies: positive('maxRememberedBodies', options.maxRememberedBodies, d.maxRememberedBodies),
    replayCacheSize: positive('replayCacheSize', options.replayCacheSize, d.replayCacheSize),
    retryAfterSec: positive('retryAfterSec', options.retryAfterSec, d.retryAfterSec),
  };
}
