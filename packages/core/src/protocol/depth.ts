import { DecodeError } from './decode-error.js';

/**
 * The deepest nesting of objects and arrays decoded from an agent (`DEFAULTS.maxDepth`, the same number).
 * JSON.parse builds any depth, but JSON.stringify, structuredClone and recursive walkers (validators, diffs)
 * overflow the stack at a few thousand levels: what is decoded stays far below.
 */
export const MAX_DEPTH = 100;

/**
 * Throws a DecodeError naming the limit and where, when `value` nests objects and arrays more than
 * {@link MAX_DEPTH} levels deep (`value` itself is level 1). Iterative, so any depth is checked.
 */
export function checkDepth(value: unknown, path: string): void {
  // The objects from `value` down to the one being read, each with its keys and the next key's index.
  const stack: [Record<string, unknown>, string[], number][] = [];
  let next = value;
  for (;;) {
    if (typeof next === 'object' && next !== null) {
      if (stack.length === MAX_DEPTH) {
        const where = stack.slice(0, 8).map(([, keys, i]) => (keys[i - 1] as string).slice(0, 40));
        throw new DecodeError(`nested deeper than ${MAX_DEPTH} levels`, `${[path, ...where].join('.')}…`);
      }
      stack.push([next as Record<string, unknown>, Object.keys(next), 0]);
    }
    let top = stack[stack.length - 1];
    while (top && top[2] === top[1].length) top = (stack.pop(), stack[stack.length - 1]);
    if (!top) return;
    next = top[0][top[1][top[2]++] as string];
  }
}
