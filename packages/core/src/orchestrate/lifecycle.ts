/** The runner's step loop: idle, stepping, or stepping with another step asked for meanwhile. */
export type Loop = 'idle' | 'stepping' | 'again';

/**
 * Where a workflow runner is in its life. `failing`: an escalation failed the workflow; what runs is
 * stopped and it ends `failed`. `stopped`: `stop()` — nothing is followed, the record stays for a
 * restart. `broken`: the store failed; `done()` rejected. `stopped` on the last two: `stop()` came too.
 */
export type Lifecycle =
  | { phase: 'running'; loop: Loop }
  | { phase: 'failing'; loop: Loop; reason: string }
  | { phase: 'stopped' }
  | { phase: 'ended'; stopped: boolean }
  | { phase: 'broken'; error: unknown; stopped: boolean };

export type LifecycleInput =
  | { type: 'step' }
  | { type: 'stepped' }
  | { type: 'fail'; reason: string }
  | { type: 'stop' }
  | { type: 'end' }
  | { type: 'break'; error: unknown };

export const INITIAL_LIFECYCLE: Lifecycle = { phase: 'running', loop: 'idle' };

/** The next lifecycle: a pure function, so every move is a row of a table test. */
export function nextLifecycle(l: Lifecycle, input: LifecycleInput): Lifecycle {
  if (l.phase === 'ended' || l.phase === 'broken') return input.type === 'stop' ? { ...l, stopped: true } : l;
  if (l.phase === 'stopped') {
    if (input.type === 'end') return { phase: 'ended', stopped: true };
    if (input.type === 'break') return { phase: 'broken', error: input.error, stopped: true };
    return l;
  }
  switch (input.type) {
    case 'step':
      return { ...l, loop: l.loop === 'idle' ? 'stepping' : 'again' };
    case 'stepped':
      return { ...l, loop: l.loop === 'again' ? 'stepping' : 'idle' };
    case 'fail':
      return { phase: 'failing', loop: l.loop, reason: input.reason };
    case 'stop':
      return { phase: 'stopped' };
    case 'end':
      return { phase: 'ended', stopped: false };
    case 'break':
      return { phase: 'broken', error: input.error, stopped: false };
  }
}

/** Still working: it may start hops, follow tasks and escalate. */
export function live(l: Lifecycle): l is Extract<Lifecycle, { loop: Loop }> {
  return l.phase === 'running' || l.phase === 'failing';
}

/** `stop()` was called (whatever came after it). */
export function isStopped(l: Lifecycle): boolean {
  return l.phase === 'stopped' || ((l.phase === 'ended' || l.phase === 'broken') && l.stopped);
}

/** Finished or failed: `done()` has settled. */
export function isEnded(l: Lifecycle): boolean {
  return l.phase === 'ended' || l.phase === 'broken';
}
