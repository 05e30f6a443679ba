export interface Snippet {
  /** The first line of the block's code in the Markdown (1-based). */
  line: number;
  code: string;
  /** Its fence says ```ts fragment: not checked. */
  fragment: boolean;
  /** A ```tsx block: a React module, JSX on. */
  tsx: boolean;
  /** Its fence says ```ts runnable: scripts/docs-run.mjs runs it too. */
  runnable?: true;
}
export interface Prelude {
  /** The first line of its code in the Markdown (1-based). */
  line: number;
  code: string;
}
/** The Markdown files whose snippets are checked, relative to the repository root. */
export function docFiles(): string[];
/** The ```ts / ```typescript blocks of one Markdown text and its `<!-- snippet-prelude … -->`; throws on a second prelude or an unclosed one. */
export function extractSnippets(markdown: string): { snippets: Snippet[]; prelude: Prelude | undefined };
/** A folder inside the repository (git-ignored) with an app's view of the built workspace packages. */
export function makeWorkDir(): string;
/** Type-checks the snippets of the docs (each doc a program of its own) against the built packages. */
export function checkDocs(
  docs: readonly { file: string; markdown: string }[],
  options?: { keep?: boolean },
): { errors: string[]; checked: number; fragments: number };
