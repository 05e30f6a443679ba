// A few hand-written checks for wire data, instead of a schema library on the runtime path
// (decisions.md D15). A check answers `undefined` when the value fits and otherwise its first
// problem: depth first, fields in the order the shape lists them. It does not copy: what passes
// is the caller's own value, unknown fields included (the decoders read only the fields they know).
// The zod/mini schemas these replace stay beside the tests as the oracle (`wire-oracle.test.ts`).

/** The first problem found: where it is, and the type expected there (none when several would do). */
export interface Issue {
  /** Field names and array indexes from the checked value down to the problem. */
  readonly path: (string | number)[];
  readonly expected?: string | undefined;
}

/** What is wrong, in the words zod/mini used: `expected string`, or `Invalid input` when several types would do. */
export function problem(issue: Issue): string {
  return issue.expected === undefined ? 'Invalid input' : `expected ${issue.expected}`;
}

declare const checked: unique symbol;

/** Checks that a value is a `T` (`T` exists only for {@link Infer}). */
export type Check<T> = ((value: unknown) => Issue | undefined) & { readonly [checked]?: T };

/** The type a {@link Check} accepts. */
export type Infer<C> = C extends Check<infer T> ? T : never;

type Fields<S> = { [K in keyof S as undefined extends Infer<S[K]> ? K : never]?: Infer<S[K]> } & {
  [K in keyof S as undefined extends Infer<S[K]> ? never : K]: Infer<S[K]>;
};
type Flat<T> = { [K in keyof T]: T[K] } & {};

function simple<T>(expected: string | undefined, test: (value: unknown) => boolean): Check<T> {
  return (value) => (test(value) ? undefined : { path: [], expected });
}

function at(key: string | number, issue: Issue): Issue {
  issue.path.unshift(key);
  return issue;
}

/** A string (any, `''` included). */
export const string = simple<string>('string', (value) => typeof value === 'string');
/** `true` or `false`. */
export const boolean = simple<boolean>('boolean', (value) => typeof value === 'boolean');
/** Finite numbers only (`NaN` and `Infinity` are not numbers on the wire). */
export const number = simple<number>('number', Number.isFinite);
/** A proto enum: a name, a v0.3 kebab name, or a number. */
export const enumValue = simple<string | number>(undefined, (value) => typeof value === 'string' || Number.isFinite(value));
/** Anything, absent included (`data` parts, record values). */
export const unknown: Check<unknown> = () => undefined;

/** Absent, `null` or a `T`: ProtoJSON omits defaults, and some writers send `null` for them. */
export function opt<T>(check: Check<T>): Check<T | null | undefined> {
  return (value) => (value === undefined || value === null ? undefined : check(value));
}

/** An array whose items are all `T`. */
export function array<T>(item: Check<T>): Check<T[]> {
  return (value) => {
    if (!Array.isArray(value)) return { path: [], expected: 'array' };
    for (let i = 0; i < value.length; i++) {
      const issue = item(value[i]);
      if (issue) return at(i, issue);
    }
    return undefined;
  };
}

/** An object with (at least) these fields; other fields are allowed and left alone. */
export function object<S extends Record<string, Check<unknown>>>(shape: S): Check<Flat<Fields<S>>> {
  const fields = Object.entries(shape);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { path: [], expected: 'object' };
    for (const [key, check] of fields) {
      const issue = check((value as Record<string, unknown>)[key]);
      if (issue) return at(key, issue);
    }
    return undefined;
  };
}

/**
 * A plain object (a JSON object, not an instance of a class) whose values are `T`. Read it with
 * {@link entries} or copy it with {@link plain}: a key `__proto__` is not an entry.
 */
export function record<T>(values: Check<T>): Check<Record<string, T>> {
  return (value) => {
    const proto: unknown = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
    if (Array.isArray(value) || (proto !== null && proto !== Object.prototype)) return { path: [], expected: 'record' };
    if (values === unknown) return undefined;
    for (const [key, item] of entries(value as Record<string, unknown>)) {
      const issue = values(item);
      if (issue) return at(key, issue);
    }
    return undefined;
  };
}

/** A record's entries, without a `__proto__` key (JSON.parse makes it an own key; it is never data here). */
export function entries<T>(value: Record<string, T>): [string, T][] {
  return Object.entries(value).filter(([key]) => key !== '__proto__');
}

/** A record as the model keeps it: the same object unless it has a `__proto__` key to leave out. */
export function plain<T>(value: Record<string, T>): Record<string, T> {
  if (!Object.hasOwn(value, '__proto__')) return value;
  // A plain loop: ~3× faster than Object.fromEntries on a record of many keys (a hostile agent's).
  const copy: Record<string, T> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = value[key] as T;
  return copy;
}
