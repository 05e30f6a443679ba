/**
 * The program of a doc's ```ts runnable blocks, in order, with `https://agent.example` replaced by
 * `agentUrl`: imports hoisted, the first block at the top level, each later one in a block scope of its
 * own; `undefined` when the doc has none.
 */
export function programOf(markdown: string, agentUrl: string): string | undefined;
