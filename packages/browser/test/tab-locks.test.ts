import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

// The tab coordinator's Web Locks in real Chromium: one lock per task (and per agent), so a tab that
// drives one task never keeps another tab from driving another task. Issue 16: a lock named after the
// agent alone (one driver for all of an agent's tasks) survived every test. The page bundles the
// coordinator from source, so this test needs no build.

const available = chromiumAvailable('the tab-lock tests');

const PAGE_SCRIPT = `
import { createTabCoordinator } from '../src/tabs.ts';
const coordinators = {};
const claims = {};
const key = (scope, taskId) => scope + '/' + taskId;
window.locks = {
  async claim(scope, taskId) {
    const coordinator = (coordinators[scope] ??= createTabCoordinator(scope));
    const claim = await coordinator.claim(taskId);
    claims[key(scope, taskId)] = claim;
    return claim.leading;
  },
  release(scope, taskId) {
    claims[key(scope, taskId)].release();
    return true;
  },
  // Resolves once the claim leads; a guard against a hang, not a timing under test.
  async granted(scope, taskId) {
    const claim = claims[key(scope, taskId)];
    return Promise.race([claim.granted.then(() => claim.leading), new Promise((resolve) => setTimeout(() => resolve('not granted within 10 s'), 10000))]);
  },
  async held() {
    return (await navigator.locks.query()).held.map((lock) => lock.name).sort();
  },
};
`;

type LocksApi = {
  locks: {
    claim(scope: string, taskId: string): Promise<boolean>;
    release(scope: string, taskId: string): boolean;
    granted(scope: string, taskId: string): Promise<boolean | string>;
    held(): Promise<string[]>;
  };
};

describe.skipIf(!available)('tab locks in real Chromium', () => {
  let browser: Browser;
  let site: TestSite;
  let context: BrowserContext;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext(); // one origin's locks, shared by its pages (tabs)
  });
  afterEach(async () => {
    await context?.close();
  });

  async function openTab(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'locks' in window && typeof (window as unknown as Partial<LocksApi>).locks?.claim === 'function');
    return page;
  }
  const claim = (page: Page, scope: string, taskId: string): Promise<boolean> =>
    page.evaluate(([s, t]) => (window as unknown as LocksApi).locks.claim(s, t), [scope, taskId] as const);

  it('each task has its own lock: one tab may drive several tasks, and another tab drives the others', async () => {
    const [one, two] = [await openTab(), await openTab()];
    expect(await claim(one, 'agent-a', 'task-1')).toBe(true);
    expect(await claim(one, 'agent-a', 'task-2')).toBe(true);
    expect(await claim(two, 'agent-a', 'task-3')).toBe(true);
    // The same task: the second tab mirrors it until the first lets go.
    expect(await claim(two, 'agent-a', 'task-1')).toBe(false);
    expect(await one.evaluate(() => (window as unknown as LocksApi).locks.held())).toEqual([
      'tether:agent-a:task-1',
      'tether:agent-a:task-2',
      'tether:agent-a:task-3',
    ]);
    await one.evaluate(() => (window as unknown as LocksApi).locks.release('agent-a', 'task-1'));
    expect(await two.evaluate(() => (window as unknown as LocksApi).locks.granted('agent-a', 'task-1'))).toBe(true);
  });

  it('the same task id at another agent is another lock', async () => {
    const [one, two] = [await openTab(), await openTab()];
    expect(await claim(one, 'agent-a', 'task-1')).toBe(true);
    expect(await claim(two, 'agent-b', 'task-1')).toBe(true);
    expect(await two.evaluate(() => (window as unknown as LocksApi).locks.held())).toEqual(['tether:agent-a:task-1', 'tether:agent-b:task-1']);
  });
});
