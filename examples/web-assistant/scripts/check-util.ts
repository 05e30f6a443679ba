/** What the web assistant's checks share: failing, bounded waits, screenshots, the agent's requests. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestAgent } from '@a2a-tether/testkit';
import type { Page } from 'playwright-core';

export const WAIT_MS = 30_000;
const output = fileURLToPath(new URL('../test-output', import.meta.url));

export class CheckFailed extends Error {}
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** Waits (at most WAIT_MS) until `attribute` of the first `selector` is accepted; returns it. */
export async function waitFor(page: Page, what: string, selector: string, attribute: string, accept: (value: string) => boolean): Promise<string> {
  const started = Date.now();
  for (;;) {
    const value = await page.locator(selector).first().getAttribute(attribute, { timeout: WAIT_MS }).catch(() => null);
    if (value !== null && accept(value)) return value;
    check(Date.now() - started < WAIT_MS, `timed out after ${WAIT_MS} ms waiting for ${what} (last ${attribute}=${value ?? 'none'})`);
    await page.waitForTimeout(50);
  }
}

export async function shoot(name: string, page: Page): Promise<void> {
  await mkdir(output, { recursive: true });
  await page.screenshot({ path: join(output, `${name}.png`), fullPage: true });
}

/** How many CancelTask requests the agent got (either binding, either version). */
export function cancelsOf(agent: TestAgent): number {
  return agent.requests.filter((r) => {
    const method = (r.body as { method?: string } | undefined)?.method;
    return method === 'CancelTask' || method === 'tasks/cancel' || r.path.endsWith(':cancel');
  }).length;
}

/** The requests whose body carries `text` as a JSON string (the sends of that message). */
export function sendsOf(agent: TestAgent, text: string): number {
  return agent.requests.filter((r) => JSON.stringify(r.body ?? '').includes(JSON.stringify(text))).length;
}
