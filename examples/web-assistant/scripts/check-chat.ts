/**
 * The chat page (index.html: useChat over A2AChatTransport, through the relay), checked in real Chromium
 * against the demo agent — run once on Vite's dev server (React StrictMode, unbundled) and once on the
 * production build:
 *   1. a request: the plan shows, then the agent's question (input-required); the next message answers it;
 *   2. the report streams; the page is reloaded in the middle of it: the same answer continues to the end
 *      (exactly the agent's artifact, the file attached), the agent got the answer once and no CancelTask;
 *   3. a second request, answered, then Stop mid-report: one CancelTask, the task ends canceled;
 *   4. one more reload: the user's four messages, the question and the answers are all there.
 */
import { connect as nodeConnect, type Part } from '@a2a-tether/node';
import type { TestAgent } from '@a2a-tether/testkit';
import type { BrowserContext, Page } from 'playwright-core';
import { CheckFailed, cancelsOf, check, sendsOf, shoot, waitFor, WAIT_MS } from './check-util.js';

const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** The report as the page holds it (the last assistant message's report text). */
async function shownReport(page: Page): Promise<string> {
  return (await page.locator('.msg.assistant').last().locator('.report').getAttribute('data-report').catch(() => null)) ?? '';
}

async function waitForReport(page: Page, what: string, accept: (text: string) => boolean): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = await shownReport(page);
    if (accept(text)) return text;
    check(Date.now() - started < WAIT_MS, `timed out after ${WAIT_MS} ms waiting for ${what} (the page shows ${JSON.stringify(text.slice(-120))})`);
    await page.waitForTimeout(50);
  }
}

async function ready(page: Page, what: string): Promise<void> {
  await waitFor(page, `the chat to connect ${what}`, 'body', 'data-ready', (r) => r === 'true');
  await waitFor(page, `the chat to be ready ${what}`, '#messages', 'data-status', (s) => s === 'ready');
}

async function say(page: Page, text: string): Promise<void> {
  await page.fill('form input[name=text]', text);
  await page.click('form button[type=submit]');
}

/** Sends `request`, waits for the plan and the agent's question, answers it with `audience`. */
async function askAndAnswer(page: Page, agent: TestAgent, request: string, audience: string): Promise<void> {
  await say(page, request);
  await page.locator('.msg.assistant').last().locator('[data-pause="input-required"]').waitFor({ timeout: WAIT_MS });
  await waitFor(page, 'the chat to be ready at the question', '#messages', 'data-status', (s) => s === 'ready');
  const question = await page.locator('.msg.assistant').last().innerText();
  check(question.includes('Who is the report for'), `the agent's question is not shown: ${JSON.stringify(question)}`);
  check(sendsOf(agent, request) === 1, `the request reached the agent ${sendsOf(agent, request)} times`);
  await say(page, audience);
}

/** The chat's tasks at the agent (its context is the one of the chat's first task). */
async function agentTasks(agent: TestAgent, request: string) {
  const client = await nodeConnect(agent.url);
  const all = (await client.listTasks({ includeArtifacts: true, historyLength: 10 })).tasks;
  return all.filter((t) => t.history.some((m) => textOf(m.parts) === request));
}

async function chatSteps(page: Page, agent: TestAgent, url: string, mode: string): Promise<void> {
  const cancels = cancelsOf(agent);
  await page.goto(url);
  await ready(page, 'at first');
  const REQUEST = `Plan the move of our app to Postgres (${mode})`;
  const AUDIENCE = `new engineers (${mode})`;
  await askAndAnswer(page, agent, REQUEST, AUDIENCE);
  const before = await waitForReport(page, 'the report to reach its Plan section', (t) => t.includes('## Plan'));
  await page.reload();
  await waitFor(page, 'the chat to connect after the reload', 'body', 'data-ready', (r) => r === 'true');
  const report = await waitForReport(page, 'the report to end after the reload', (t) => t.endsWith('meet again in a week.'));
  await page.locator('.msg.assistant').last().locator('a.file').waitFor({ timeout: WAIT_MS });
  await waitFor(page, 'the chat to be ready after the report', '#messages', 'data-status', (s) => s === 'ready');
  const [task] = await agentTasks(agent, REQUEST);
  check(task !== undefined && task.status.state === 'completed', `the agent holds the report's task as ${task?.status.state}`);
  const truth = textOf(task.artifacts.find((a) => a.artifactId === 'report')?.parts ?? []);
  check(truth.includes('## Next steps') && report === truth, `after the reload the page shows ${JSON.stringify(report.slice(-80))}, the agent's report ends ${JSON.stringify(truth.slice(-80))}`);
  check(sendsOf(agent, AUDIENCE) === 1, `the answer reached the agent ${sendsOf(agent, AUDIENCE)} times (once expected: the reload continued the same task)`);
  check(cancelsOf(agent) === cancels, `the reload sent ${cancelsOf(agent) - cancels} CancelTask (none expected: only Stop cancels)`);
  const file = page.locator('.msg.assistant').last().locator('a.file');
  const href = (await file.getAttribute('href')) ?? '';
  check(href.startsWith('data:text/markdown') && Buffer.from(href.split(',')[1] ?? '', 'base64').toString() === truth, `the attached file is not the report (${href.slice(0, 60)}…)`);
  await shoot(`chat-${mode}`, page);

  // Stop: the one thing that cancels.
  const REQUEST2 = `Plan a team offsite (${mode})`;
  await askAndAnswer(page, agent, REQUEST2, `the team lead (${mode})`);
  await waitForReport(page, 'the second report to start', (t) => t.includes('## Summary'));
  await page.click('form button.stop');
  await waitFor(page, 'the chat to be ready after Stop', '#messages', 'data-status', (s) => s === 'ready');
  const [stopped] = await agentTasks(agent, REQUEST2);
  check(stopped !== undefined, 'the agent has no task of the second request');
  for (let i = 0; i < 100 && (await nodeConnect(agent.url).then((c) => c.getTask(stopped.id))).status.state !== 'canceled'; i++) await page.waitForTimeout(50);
  const state = (await (await nodeConnect(agent.url)).getTask(stopped.id)).status.state;
  check(state === 'canceled', `after Stop the agent holds the task as ${state}`);
  check(cancelsOf(agent) === cancels + 1, `Stop sent ${cancelsOf(agent) - cancels} CancelTask (one expected)`);

  // Everything the chat showed comes back from IndexedDB.
  await page.reload();
  await ready(page, 'after the last reload');
  const users = await page.locator('.msg.user').allInnerTexts();
  const expected = [REQUEST, AUDIENCE, REQUEST2, `the team lead (${mode})`];
  check(JSON.stringify(users) === JSON.stringify(expected), `after the last reload the user's messages are ${JSON.stringify(users)}`);
  const assistant = await page.locator('.msg.assistant').allInnerTexts();
  check(assistant.length === 4 && assistant[0]?.includes('Who is the report for') === true, `after the last reload the agent's messages are ${JSON.stringify(assistant).slice(0, 300)}`);
  check(cancelsOf(agent) === cancels + 1, 'the last reload sent a CancelTask');
  console.log(`  ✔ chat (${mode}): the question shown and answered; reloaded ${before.length} characters into the report, the same answer continued to the agent's ${truth.length} characters exactly (the agent got the message once, no CancelTask), the file attached; Stop sent one CancelTask and the task ended canceled; after a reload the 4 user messages and 4 answers are there`);
}

export async function chatPage(context: BrowserContext, agent: TestAgent, url: string, mode: string): Promise<void> {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  try {
    await chatSteps(page, agent, url, mode);
  } catch (error) {
    await shoot(`chat-${mode}-failed`, page).catch(() => undefined);
    const shown = await page.locator('#root').innerText().catch(() => '');
    throw new CheckFailed(`${error instanceof Error ? error.message : String(error)}\n  the page showed: ${shown.slice(0, 600)}`);
  } finally {
    await page.close();
  }
}
