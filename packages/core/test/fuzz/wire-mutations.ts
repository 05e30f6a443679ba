import fc from 'fast-check';

// Mutations of captured wire payloads for the fuzz tests, as data (so fast-check can shrink a
// failing case to its smallest list of operations), and the checks the properties share.

type Json = Record<string, unknown>;

/** Names that are members of `Object.prototype` (or special to it): they must only ever be data. */
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'] as const;

/** One structural change of a payload. `at` picks a container (object or array), `key` one of its keys, modulo their counts. */
export type Op =
  | { readonly op: 'delete'; readonly at: number; readonly key: number }
  | { readonly op: 'retype'; readonly at: number; readonly key: number; readonly value: unknown }
  | { readonly op: 'proto'; readonly at: number; readonly name: string; readonly value: unknown }
  | { readonly op: 'enum'; readonly at: number; readonly pick: number }
  | { readonly op: 'deep'; readonly at: number; readonly key: number; readonly depth: number; readonly shape: 'array' | 'object' }
  | { readonly op: 'long'; readonly at: number; readonly key: number; readonly length: number; readonly unit: LongUnit }
  | { readonly op: 'many'; readonly at: number; readonly count: number };

export type LongUnit = 'ascii' | 'lone-surrogates' | 'markup' | 'escapes';

/** Enum spellings that mean the same (first: the model's value). States and roles, every dialect. */
const SAME_STATE: readonly (readonly (string | number)[])[] = [
  ['submitted', 'TASK_STATE_SUBMITTED', 1],
  ['working', 'TASK_STATE_WORKING', 2],
  ['completed', 'TASK_STATE_COMPLETED', 3],
  ['failed', 'TASK_STATE_FAILED', 4],
  ['canceled', 'cancelled', 'TASK_STATE_CANCELED', 'TASK_STATE_CANCELLED', 5],
  ['input-required', 'TASK_STATE_INPUT_REQUIRED', 6],
  ['rejected', 'TASK_STATE_REJECTED', 7],
  ['auth-required', 'TASK_STATE_AUTH_REQUIRED', 8],
  ['unknown', 'TASK_STATE_UNSPECIFIED', 0],
];
const SAME_ROLE: readonly (readonly (string | number)[])[] = [
  ['user', 'ROLE_USER', 1],
  ['agent', 'ROLE_AGENT', 2],
];
/** Spellings that are not the value's (another state, a prototype name, other cases, other numbers). */
const OTHER_SPELLINGS: readonly unknown[] = ['Working', 'task_state_working', 'TASK_STATE_', 'ROLE_SYSTEM', 'system', -1, 9, 2.5, 1e300, ...PROTOTYPE_NAMES];

/** A value of any JSON type, some of them meaningful somewhere in A2A (enum names, kinds, prototype names). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, '', [], {}, [[]], { data: {} }),
  fc.constantFrom<unknown>('TASK_STATE_WORKING', 'cancelled', 'ROLE_AGENT', 'status-update', 'text', 'data', 'file', ...PROTOTYPE_NAMES),
  fc.string({ maxLength: 12 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const at = fc.nat({ max: 10_000 });
const key = fc.nat({ max: 1_000 });

/** Small structural changes, most cases; large ones (deep, long, many) in a few. */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), at, key }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('retype' as const), at, key, value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('proto' as const), at, name: fc.constantFrom(...PROTOTYPE_NAMES), value: hostileValue }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('enum' as const), at, pick: fc.nat({ max: 100 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('deep' as const), at, key, depth: fc.integer({ min: 10, max: 20_000 }), shape: fc.constantFrom('array' as const, 'object' as const) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('long' as const),
      at,
      key,
      length: fc.integer({ min: 1_000, max: 300_000 }),
      unit: fc.constantFrom<LongUnit>('ascii', 'lone-surrogates', 'markup', 'escapes'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('many' as const), at, count: fc.integer({ min: 2, max: 5_000 }) }) },
);

/** 1 to 4 changes. */
export const opsArb: fc.Arbitrary<Op[]> = fc.array(opArb, { minLength: 1, maxLength: 4 });

/** Only enum spelling swaps to an equivalent spelling (the decoded result must not change). */
export const sameEnumOpsArb: fc.Arbitrary<{ at: number; pick: number }[]> = fc.array(fc.record({ at, pick: fc.nat({ max: 100 }) }), {
  minLength: 1,
  maxLength: 6,
});

export function isContainer(value: unknown): value is Json | unknown[] {
  return typeof value === 'object' && value !== null;
}

/** The containers of a payload, breadth first (what `at` picks from). Bounded: the seeds are small. */
export function containers(root: unknown, limit = 2_000): (Json | unknown[])[] {
  if (!isContainer(root)) return [];
  // Each container once (`many` shares items), and the queue no longer than the limit.
  const seen = new Set<object>([root]);
  const queue: (Json | unknown[])[] = [root];
  for (let i = 0; i < queue.length && queue.length < limit; i++) {
    for (const child of Object.values(queue[i] as object)) {
      if (!isContainer(child) || seen.has(child)) continue;
      seen.add(child);
      queue.push(child);
      if (queue.length >= limit) break;
    }
  }
  return queue;
}

function pick<T>(items: readonly T[], index: number): T | undefined {
  return items.length === 0 ? undefined : items[index % items.length];
}

function setOwn(node: Json | unknown[], name: string, value: unknown): void {
  // As JSON.parse makes it: an own, enumerable data property, even for `__proto__`.
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true });
}

/** A list or object nested `depth` times, built without recursion. */
export function nested(depth: number, shape: 'array' | 'object'): unknown {
  let value: unknown = shape === 'array' ? [] : {};
  for (let i = 0; i < depth; i++) value = shape === 'array' ? [value] : { a: value };
  return value;
}

/** A long string of `length` UTF-16 units: plain, unpaired surrogates, markup (`<a<a…`), or backslashes and quotes. */
export function longString(length: number, unit: LongUnit): string {
  const piece = { ascii: 'abcdefgh', 'lone-surrogates': '\ud800a\udc00', markup: '<a', escapes: '\\"\\u' }[unit];
  return piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
}

/** Swaps the spelling of a `state` or `role` found in `node`: to an equivalent one, or (`same: false`) maybe to another. */
function swapEnum(node: Json | unknown[], pickIndex: number, same: boolean): void {
  if (Array.isArray(node)) return;
  for (const [field, table] of [
    ['state', SAME_STATE],
    ['role', SAME_ROLE],
  ] as const) {
    const current = node[field];
    if (current === undefined) continue;
    const group = table.find((spellings) => spellings.includes(current as string | number));
    if (!same && pickIndex % 3 === 0) {
      node[field] = pick(OTHER_SPELLINGS, pickIndex);
      return;
    }
    if (group) node[field] = pick(group, pickIndex);
    return;
  }
}

/** What `many` grows a payload to at most, in {@link weight} units (about characters of JSON). */
const MAX_WEIGHT = 2_000_000;

/** Applies the changes in order to `root` (changed in place) and returns the new root. */
export function applyOps(root: unknown, ops: readonly Op[]): unknown {
  let out = root;
  for (const op of ops) {
    const nodes = containers(out);
    const node = pick(nodes, op.at);
    if (node === undefined) {
      out = op.op === 'retype' ? structuredClone(op.value) : out;
      continue;
    }
    const keys = Object.keys(node);
    const name = pick(keys, 'key' in op ? op.key : 0);
    switch (op.op) {
      case 'delete':
        if (name === undefined) break;
        if (Array.isArray(node)) node.splice(Number(name), 1);
        else delete node[name];
        break;
      // A copy of the value: fast-check hands out its constants as the same objects in every case.
      case 'retype':
        if (name !== undefined) setOwn(node, name, structuredClone(op.value));
        else if (node === out) out = structuredClone(op.value);
        break;
      case 'proto':
        if (!Array.isArray(node)) setOwn(node, op.name, structuredClone(op.value));
        break;
      case 'enum':
        swapEnum(node, op.pick, false);
        break;
      case 'deep':
        if (name !== undefined) setOwn(node, name, nested(op.depth, op.shape));
        break;
      case 'long':
        if (name !== undefined) setOwn(node, name, longString(op.length, op.unit));
        break;
      case 'many': {
        const list = Array.isArray(node) ? node : undefined;
        if (list === undefined || list.length === 0) break;
        // The same item again and again (shared: a copy of a deep item would cost more than the decode).
        const length = list.length;
        for (let i = length; i < op.count; i++) list.push(list[0]);
        // Not past about MAX_WEIGHT in all: a list inside shared items grows in every one of them.
        if (weight(out) > MAX_WEIGHT) list.length = length;
        break;
      }
    }
  }
  return out;
}

/** Applies equivalent enum swaps only. */
export function applySameEnums(root: unknown, ops: readonly { at: number; pick: number }[]): unknown {
  for (const op of ops) {
    const node = pick(containers(root), op.at);
    if (node !== undefined) swapEnum(node, op.pick, true);
  }
  return root;
}

/** A deep copy of a JSON payload (the seeds are small and shallow). */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

// ---- measures, without recursion (payloads may be 20,000 levels deep) -----------------------------

/**
 * Characters of strings and keys plus one per value, counting a shared item at every place it is
 * (as its JSON text would repeat it), memoized per object so a long list of one deep item stays cheap.
 */
export function weight(value: unknown): number {
  const memo = new Map<object, number>();
  const leaf = (item: unknown): number => 1 + (typeof item === 'string' ? item.length : 0);
  const stack: { node: object; expanded: boolean }[] = isContainer(value) ? [{ node: value, expanded: false }] : [];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: object; expanded: boolean };
    if (memo.has(top.node)) {
      stack.pop();
      continue;
    }
    const children = Object.values(top.node).filter((child): child is object => isContainer(child) && !memo.has(child));
    if (!top.expanded && children.length > 0) {
      top.expanded = true;
      for (const child of children) stack.push({ node: child, expanded: false });
      continue;
    }
    let total = 1;
    for (const [k, child] of Object.entries(top.node)) total += k.length + (isContainer(child) ? (memo.get(child) ?? 0) : leaf(child));
    memo.set(top.node, total);
    stack.pop();
  }
  return isContainer(value) ? (memo.get(value) ?? 0) : leaf(value);
}

/** Every string (values and keys) in `value`. */
export function strings(value: unknown, skip?: (key: string, parent: object) => boolean): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') out.add(item);
    else if (isContainer(item) && !seen.has(item)) {
      seen.add(item);
      for (const [k, child] of Object.entries(item)) {
        if (skip?.(k, item)) continue;
        out.add(k);
        stack.push(child);
      }
    }
  }
  return out;
}

/** Deep equality of two JSON-like values (own enumerable keys, order ignored), without recursion. */
export function sameJson(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (!isContainer(x) || !isContainer(y) || Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Json)[k], (y as Json)[k]]);
    }
  }
  return true;
}

// ---- prototypes ------------------------------------------------------------------------------------

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype] as const;

/** The own properties of the built-in prototypes, to tell later that nothing changed them. */
export function prototypeSnapshot(): Map<object, Map<string | symbol, unknown>> {
  return new Map(
    PROTOTYPES.map((proto) => [
      proto,
      new Map(Reflect.ownKeys(proto).map((k) => {
        const d = Object.getOwnPropertyDescriptor(proto, k);
        return [k, d && ('value' in d ? d.value : d.get)];
      })),
    ]),
  );
}

/** What changed on the built-in prototypes since `before` (empty: nothing). */
export function prototypeChanges(before: Map<object, Map<string | symbol, unknown>>): string[] {
  const changes: string[] = [];
  for (const [proto, props] of before) {
    const now = Reflect.ownKeys(proto);
    if (now.length !== props.size) changes.push(`${now.length - props.size} properties added`);
    for (const k of now) {
      const d = Object.getOwnPropertyDescriptor(proto, k);
      if (props.get(k) !== (d && ('value' in d ? d.value : d.get))) changes.push(`${String(k)} changed`);
    }
  }
  if (Object.getPrototypeOf(Object.prototype) !== null) changes.push('Object.prototype has a prototype');
  return changes;
}
