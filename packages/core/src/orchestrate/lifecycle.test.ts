import { describe, expect, it } from 'vitest';
import { INITIAL_LIFECYCLE, isEnded, isStopped, live, nextLifecycle, type Lifecycle, type LifecycleInput } from './lifecycle.js';

const running: Lifecycle = { phase: 'running', loop: 'idle' };
const stepping: Lifecycle = { phase: 'running', loop: 'stepping' };
const failing: Lifecycle = { phase: 'failing', loop: 'idle', reason: 'deadline' };
const stopped: Lifecycle = { phase: 'stopped' };
const ended: Lifecycle = { phase: 'ended', stopped: false };
const broken: Lifecycle = { phase: 'broken', error: 'disk full', stopped: false };

describe('the workflow lifecycle', () => {
  it.each<[string, Lifecycle, LifecycleInput, Lifecycle]>([
    ['a step starts', running, { type: 'step' }, stepping],
    ['a step asked for during a step runs after it', stepping, { type: 'step' }, { phase: 'running', loop: 'again' }],
    ['a step ends', stepping, { type: 'stepped' }, running],
    ['a step ends with another asked for: it runs', { phase: 'running', loop: 'again' }, { type: 'stepped' }, stepping],
    ['a step that ends after stop changes nothing', stopped, { type: 'stepped' }, stopped],
    ['an escalation fails the workflow', stepping, { type: 'fail', reason: 'deadline' }, { phase: 'failing', loop: 'stepping', reason: 'deadline' }],
    ['failing keeps stepping', failing, { type: 'step' }, { phase: 'failing', loop: 'stepping', reason: 'deadline' }],
    ['stop', stepping, { type: 'stop' }, stopped],
    ['it ends', failing, { type: 'end' }, ended],
    ['a stopped workflow whose last step finished ends, still stopped', stopped, { type: 'end' }, { phase: 'ended', stopped: true }],
    ['the store fails', running, { type: 'break', error: 'disk full' }, broken],
    ['the store fails after stop', stopped, { type: 'break', error: 'disk full' }, { phase: 'broken', error: 'disk full', stopped: true }],
    ['stop after the end', ended, { type: 'stop' }, { phase: 'ended', stopped: true }],
    ['stop after a failure', broken, { type: 'stop' }, { phase: 'broken', error: 'disk full', stopped: true }],
    ['nothing more steps once stopped', stopped, { type: 'step' }, stopped],
    ['nothing more steps once ended', ended, { type: 'step' }, ended],
    ['an ended workflow does not fail later', ended, { type: 'break', error: 'late' }, ended],
    ['an ended workflow does not end twice', ended, { type: 'end' }, ended],
    ['a broken workflow does not end', broken, { type: 'end' }, broken],
    ['an escalation after the end changes nothing', ended, { type: 'fail', reason: 'x' }, ended],
  ])('%s', (_name, from, input, to) => {
    expect(nextLifecycle(from, input)).toEqual(to);
  });

  it('starts running and idle; says what is live, stopped and ended', () => {
    expect(INITIAL_LIFECYCLE).toEqual(running);
    expect([running, failing, stopped, ended, broken].map(live)).toEqual([true, true, false, false, false]);
    expect([running, stopped, ended, { phase: 'ended', stopped: true } as Lifecycle, broken].map(isStopped)).toEqual([false, true, false, true, false]);
    expect([running, failing, stopped, ended, broken].map(isEnded)).toEqual([false, false, false, true, true]);
  });
});
