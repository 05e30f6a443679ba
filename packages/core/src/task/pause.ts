import { DEFAULTS } from '../defaults.js';
import { sleep, type Scheduler } from '../util/scheduler.js';
import type { NetworkSignals } from './coordinator.js';

/**
 * Waits `ms` before the next attempt; false when `signal` aborted first. With the platform's network
 * signals: a wake (back online, page shown) ends the wait early, after a random delay of up to a
 * second (tabs and clients do not all come back at once), and no attempt is made while the platform
 * says it is offline.
 */
export async function pause(
  time: { scheduler: Scheduler; random: () => number; network?: NetworkSignals | undefined },
  ms: number,
  signal: AbortSignal,
): Promise<boolean> {
  const { scheduler, random, network } = time;
  if (!network) return sleep(scheduler, ms, signal);
  /** Sleeps up to `limit` ms; a wake ends it early. Whether a wake did. */
  const untilWake = async (limit: number): Promise<boolean> => {
    const woken = new AbortController();
    const stop = network.onWake(() => woken.abort());
    try {
      await sleep(scheduler, limit, AbortSignal.any([signal, woken.signal]));
      return woken.signal.aborted;
    } finally {
      stop();
    }
  };
  if ((await untilWake(ms)) && !signal.aborted) await sleep(scheduler, Math.floor(random() * DEFAULTS.network.wakeJitterMs), signal);
  // Offline: wait for a wake, looking again now and then in case one was missed.
  while (!signal.aborted && !network.online()) await untilWake(DEFAULTS.network.offlineLookMs);
  return !signal.aborted;
}
