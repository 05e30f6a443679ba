/**
 * The example's demo agent: a small scripted "report writer" on the testkit's A2A server (both
 * bindings, v1.0 and v0.3, and no CORS headers at all — the page reaches it through the relay).
 *
 * Any prompt runs the assistant: it plans (a status), asks who the report is for (input-required),
 * streams a report with sections (the artifact `report`, word by word), attaches it as a Markdown
 * file (the artifact `report-file`) and completes. The testkit's scenario commands (`stream …`,
 * `input`, `slow …`) still work, for the multi-tab page.
 */
import { startTestAgent, type ScenarioContext, type ScenarioFn, type TestAgent } from '@a2a-tether/testkit';

/** Options of {@link startAssistantAgent}. */
export interface AssistantAgentOptions {
  /** Port to listen on. Default 0 (any free port). */
  port?: number | undefined;
  /** The pause between two words of the report, in ms. Default 60. */
  wordDelayMs?: number | undefined;
}

/** The report, by section, for `topic` written for `audience`. */
export function reportFor(topic: string, audience: string): string {
  const who = audience.trim() === '' ? 'the team' : audience.trim();
  return [
    `# ${topic}`,
    '',
    '## Summary',
    `A short plan for ${who}: what to do first, what can wait, and how to know it worked. Each step is small enough to finish in a day and can be checked on its own.`,
    '',
    '## Plan',
    '1. Write down the goal in one sentence and agree on it.',
    '2. List what exists today and what is missing; keep the list short.',
    '3. Do the smallest useful step first, then review it together.',
    '4. Repeat until the goal is met; stop when it is.',
    '',
    '## Risks',
    `- Scope grows while the work runs: ${who} decides what is in and what is out.`,
    '- A step takes longer than planned: make it smaller rather than waiting.',
    '',
    '## Next steps',
    `Share this report with ${who}, pick an owner for step 1, and meet again in a week.`,
  ].join('\n');
}

/** The assistant's script: plan, ask, write, attach. */
export function assistantScenario(wordDelayMs: number): ScenarioFn {
  return async (ctx: ScenarioContext) => {
    const topic = ctx.text.trim().replace(/[.?!]+$/, '') || 'Your request';
    ctx.status('working', `Planning "${topic}": 1. find out who it is for, 2. write the report, 3. attach it as a file.`);
    await ctx.sleep(300);
    ctx.status('input-required', 'Who is the report for (for example: the team lead, new engineers, a customer)?');
    const audience = await ctx.waitForInput();
    ctx.status('working', `Writing the report for ${audience.trim() || 'the team'}…`);
    const report = reportFor(topic, audience);
    // Word by word, spaces and line breaks kept, so the page shows the report as it grows.
    const words = report.match(/\S+\s*/g) ?? [report];
    for (const [i, word] of words.entries()) {
      await ctx.sleep(wordDelayMs);
      ctx.artifact({ artifactId: 'report', name: 'Report', text: word, append: i > 0, lastChunk: i === words.length - 1 });
    }
    ctx.artifact({
      artifactId: 'report-file',
      name: 'report.md',
      parts: [{ kind: 'file', bytes: Buffer.from(report).toString('base64'), mediaType: 'text/markdown', filename: 'report.md' }],
      lastChunk: true,
    });
    ctx.status('completed');
  };
}

/** Starts the demo agent. Scenario commands of the testkit agent keep working; anything else is the assistant. */
export async function startAssistantAgent(options: AssistantAgentOptions = {}): Promise<TestAgent> {
  const assistant = assistantScenario(options.wordDelayMs ?? 60);
  // `echo` is where every prompt that names no scenario goes.
  return startTestAgent({ port: options.port ?? 0, cors: false, scenarios: { echo: assistant, assistant } });
}
