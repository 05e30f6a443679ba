import fc from 'fast-check';
import { isContainer } from './wire-mutations.js';

// "No input loses data silently", made checkable: plant a unique marker in a field the model keeps
// (on a node the decoder reads as that type), beside or instead of what is there. Then a decode that
// succeeds must show every marker somewhere in its result; ambiguous input (two values for one
// field of the model) must fail instead. The nodes are found the way the decoders find them.

type Json = Record<string, unknown>;

/** Types of wire nodes, and the fields of each that the model keeps (with the value to plant there). */
type NodeType = 'root' | 'part' | 'file' | 'message' | 'status' | 'artifact' | 'task' | 'statusUpdate' | 'artifactUpdate' | 'pushConfig' | 'pushAuth' | 'page';

const msg = (m: string): Json => ({ messageId: m, role: 'ROLE_AGENT', parts: [] });

const FIELDS: Record<NodeType, readonly [string, (m: string) => unknown][]> = {
  // A stream response: a (second) wrapped event beside what is there.
  root: [
    ['task', (m) => ({ id: m, status: { state: 'TASK_STATE_WORKING' } })],
    ['message', msg],
    ['msg', msg],
    ['statusUpdate', (m) => ({ taskId: m, status: { state: 'TASK_STATE_WORKING' } })],
    ['artifactUpdate', (m) => ({ taskId: m, artifact: { artifactId: m, parts: [] } })],
  ],
  part: [
    ['text', (m) => m],
    ['data', (m) => ({ mk: m })],
    ['url', (m) => m],
    ['raw', (m) => m],
    ['file', (m) => ({ uri: m })],
    ['mediaType', (m) => m],
    ['filename', (m) => m],
    ['metadata', (m) => ({ mk: m })],
  ],
  file: ['uri', 'fileWithUri', 'bytes', 'fileWithBytes', 'mimeType', 'mediaType', 'name'].map((f) => [f, (m: string) => m] as const),
  message: [
    ['messageId', (m) => m],
    ['contextId', (m) => m],
    ['taskId', (m) => m],
    ['parts', (m) => [{ text: m }]],
    ['content', (m) => [{ text: m }]],
    ['metadata', (m) => ({ mk: m })],
    ['extensions', (m) => [m]],
    ['referenceTaskIds', (m) => [m]],
  ],
  status: [
    ['message', msg],
    ['update', msg],
    ['timestamp', (m) => m],
  ],
  artifact: [
    ['artifactId', (m) => m],
    ['name', (m) => m],
    ['description', (m) => m],
    ['metadata', (m) => ({ mk: m })],
    ['extensions', (m) => [m]],
    ['parts', (m) => [{ text: m }]],
  ],
  task: [
    ['id', (m) => m],
    ['contextId', (m) => m],
    ['metadata', (m) => ({ mk: m })],
    ['history', (m) => [msg(m)]],
    ['artifacts', (m) => [{ artifactId: m, parts: [] }]],
  ],
  statusUpdate: [
    ['taskId', (m) => m],
    ['contextId', (m) => m],
    ['metadata', (m) => ({ mk: m })],
  ],
  artifactUpdate: [
    ['taskId', (m) => m],
    ['contextId', (m) => m],
    ['metadata', (m) => ({ mk: m })],
  ],
  pushConfig: [
    ['id', (m) => m],
    ['url', (m) => m],
    ['token', (m) => m],
  ],
  pushAuth: [
    ['credentials', (m) => m],
    ['schemes', (m) => [m]],
    ['scheme', (m) => m],
  ],
  page: [['nextPageToken', (m) => m]],
};

interface TypedNode {
  readonly type: NodeType;
  readonly node: Json;
}

function obj(value: unknown): Json | undefined {
  return isContainer(value) && !Array.isArray(value) ? value : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

const WRAPPERS = ['task', 'message', 'msg', 'statusUpdate', 'artifactUpdate'];

/** The event object inside a v1 wrapper, or the bare v0.3 object. */
function unwrap(root: Json): Json {
  const present = WRAPPERS.filter((k) => root[k] !== undefined && root[k] !== null);
  const only = present.length === 1 && present[0] !== undefined ? obj(root[present[0]]) : undefined;
  return only ?? root;
}

function addParts(out: TypedNode[], parts: unknown[]): void {
  for (const p of parts) {
    const part = obj(p);
    if (!part) continue;
    out.push({ type: 'part', node: part });
    const file = obj(part['file']);
    if (file) out.push({ type: 'file', node: file });
  }
}

function addMessage(out: TypedNode[], value: unknown): void {
  const message = obj(value);
  if (!message) return;
  out.push({ type: 'message', node: message });
  const parts = list(message['parts']);
  addParts(out, parts.length > 0 ? parts : list(message['content']));
}

function addStatus(out: TypedNode[], value: unknown): void {
  const status = obj(value);
  if (!status) return;
  out.push({ type: 'status', node: status });
  addMessage(out, status['message'] ?? status['update']);
}

function addArtifact(out: TypedNode[], value: unknown): void {
  const artifact = obj(value);
  if (!artifact) return;
  out.push({ type: 'artifact', node: artifact });
  addParts(out, list(artifact['parts']));
}

function addTask(out: TypedNode[], value: unknown): void {
  const task = obj(value);
  if (!task) return;
  out.push({ type: 'task', node: task });
  addStatus(out, task['status']);
  for (const m of list(task['history'])) addMessage(out, m);
  for (const a of list(task['artifacts'])) addArtifact(out, a);
}

function addPushConfig(out: TypedNode[], value: unknown): void {
  const outer = obj(value);
  if (!outer) return;
  const flat = obj(outer['pushNotificationConfig']) ?? outer;
  out.push({ type: 'pushConfig', node: flat });
  const auth = obj(flat['authentication']);
  if (auth) out.push({ type: 'pushAuth', node: auth });
}

/**
 * The nodes of a payload the decoder reads, by type. `decoded` is the kind the decoder found
 * (`task`, `message`, `status-update`, `artifact-update`), or the payload kind for the others;
 * `streamResponse`: the payload is a stream response or a send's answer (wrapped, or bare with `kind`).
 */
export function typedNodes(payload: unknown, decoded: string, streamResponse: boolean): TypedNode[] {
  const out: TypedNode[] = [];
  const root = obj(payload);
  if (decoded === 'pushList') {
    for (const item of Array.isArray(payload) ? payload : list(root?.['configs'])) addPushConfig(out, item);
    return out;
  }
  if (!root) return out;
  if (streamResponse) out.push({ type: 'root', node: root });
  switch (decoded) {
    case 'pushConfig':
      addPushConfig(out, root);
      break;
    case 'page':
      out.push({ type: 'page', node: root });
      for (const t of list(root['tasks'])) addTask(out, t);
      break;
    case 'task':
      addTask(out, unwrap(root));
      break;
    case 'message':
      addMessage(out, unwrap(root));
      break;
    case 'status-update': {
      const event = unwrap(root);
      out.push({ type: 'statusUpdate', node: event });
      addStatus(out, event['status']);
      break;
    }
    case 'artifact-update': {
      const event = unwrap(root);
      out.push({ type: 'artifactUpdate', node: event });
      addArtifact(out, event['artifact']);
      break;
    }
  }
  return out;
}

/** Where to plant: a node (index into the typed nodes) and one of its fields. */
export interface Plant {
  readonly node: number;
  readonly field: number;
}

export const plantsArb: fc.Arbitrary<Plant[]> = fc.array(fc.record({ node: fc.nat({ max: 1_000 }), field: fc.nat({ max: 100 }) }), {
  minLength: 1,
  maxLength: 3,
});

/**
 * Plants a marker per {@link Plant} (after all of them are chosen, so a later plant cannot remove
 * an earlier one's node) and returns the markers with where they went.
 */
export function plantMarkers(payload: unknown, decoded: string, streamResponse: boolean, plants: readonly Plant[]): { marker: string; where: string }[] {
  const nodes = typedNodes(payload, decoded, streamResponse);
  if (nodes.length === 0) return [];
  const chosen = plants.map((plant, i) => {
    const target = nodes[plant.node % nodes.length] as TypedNode;
    const fields = FIELDS[target.type];
    const [field, make] = fields[plant.field % fields.length] as [string, (m: string) => unknown];
    return { target, field, make, marker: `MK${i}x${plant.node}` };
  });
  // A plant must not undo another: not the same field twice, nor over a field that holds a chosen node.
  const holders = chosen.map((c) => c.target.node);
  const fieldsUsed = new Map<Json, Set<string>>();
  const planted: { marker: string; where: string }[] = [];
  for (const { target, field, make, marker } of chosen) {
    const current = target.node[field];
    const used = fieldsUsed.get(target.node) ?? new Set<string>();
    if (used.has(field) || (isContainer(current) && holders.some((h) => contains(current, h)))) continue;
    used.add(field);
    fieldsUsed.set(target.node, used);
    target.node[field] = make(marker);
    planted.push({ marker, where: `${target.type}.${field}` });
  }
  return planted;
}

/** Whether `needle` is inside `haystack` (a few levels: the typed nodes are shallow). */
function contains(haystack: object, needle: object): boolean {
  const stack: unknown[] = [haystack];
  for (let seen = 0; stack.length > 0 && seen < 10_000; seen++) {
    const item = stack.pop();
    if (item === needle) return true;
    if (isContainer(item)) stack.push(...Object.values(item));
  }
  return false;
}
