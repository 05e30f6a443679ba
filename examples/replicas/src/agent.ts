// The agent every replica talks to: the testkit's fake A2A agent (v1.0, push notifications on), in
// main.ts's process on 127.0.0.1, port 0. It runs the testkit's built-in scenarios (the push tasks use
// `stream …`), plus three of its own for the workflow's hops — `gather`, `draft` and `review`, picked by
// the first word of the hop's message — which record every message that reaches the agent, so the
// example can count each hop's sends at the agent itself. `draft` is held: its task stays `working` until
// main.ts calls `releaseDraft()` (after the replica driving the workflow was killed and another took over).
import { startTestAgent, type ScenarioContext, type TestAgent } from '@a2a-tether/testkit';

/** A message that started a hop's task at the agent. */
export interface HopMessage {
  /** The workflow node the orchestrator stamped on the message (metadata `a2a-tether/node`). */
  node: unknown;
  messageId: string;
  taskId: string;
  text: string;
}

export interface ExampleAgent {
  agent: TestAgent;
  /** Every hop message the agent received, in order. */
  hopMessages: HopMessage[];
  /** Lets the held `draft` task finish. */
  releaseDraft(): void;
}

/** What each hop answers, given the rest of its message (after the first word). */
const ANSWERS: Record<string, (input: string) => string> = {
  gather: (topic) => `notes on ${topic}`,
  draft: (notes) => `draft from (${notes})`,
  review: (draft) => `approved: ${draft}`,
};

export async function startExampleAgent(): Promise<ExampleAgent> {
  const hopMessages: HopMessage[] = [];
  let releaseDraft!: () => void;
  const draftReleased = new Promise<void>((resolve) => (releaseDraft = resolve));

  const hop = async (ctx: ScenarioContext): Promise<void> => {
    const [word = '', ...rest] = ctx.text.split(' ');
    hopMessages.push({ node: ctx.userMessage.metadata?.['a2a-tether/node'], messageId: ctx.userMessage.messageId, taskId: ctx.task.id, text: ctx.text });
    ctx.status('working');
    if (word === 'draft') {
      // Held until released; failed after a minute or when the agent closes, so that a broken run cannot
      // hang here. Its own timer, cleared at once: a pending ctx.sleep() would keep the process alive.
      let timer: NodeJS.Timeout | undefined;
      const givenUp = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 60_000);
        ctx.cancelled.addEventListener('abort', () => resolve(false), { once: true });
      });
      const released = await Promise.race([draftReleased.then(() => true), givenUp]);
      clearTimeout(timer);
      if (!released) return ctx.status('failed', 'the example never released the draft');
    } else {
      await ctx.sleep(100);
    }
    ctx.artifact({ artifactId: 'result', name: 'result', text: ANSWERS[word]?.(rest.join(' ')) ?? '', lastChunk: true });
    ctx.status('completed');
  };

  const agent = await startTestAgent({
    versions: ['1.0'],
    capabilities: { pushNotifications: true }, // the default, said out loud: the card offers push
    scenarios: { gather: hop, draft: hop, review: hop },
  });
  return { agent, hopMessages, releaseDraft };
}

/** What the workflow's last hop must answer, given its goal. */
export function expectedReport(goal: string): string {
  const gather = ANSWERS['gather'] as (input: string) => string;
  const draft = ANSWERS['draft'] as (input: string) => string;
  const review = ANSWERS['review'] as (input: string) => string;
  return review(draft(gather(goal)));
}
