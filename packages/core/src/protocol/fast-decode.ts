import type { Artifact, Message, Part, Role, StreamEvent, Task, TaskStatus, TextPart } from '../model/types.js';
import type { Dialect } from './dialect.js';

// The hot path of a stream: status and artifact updates with text parts, in the shapes the
// official servers write (v1.0 ProtoJSON wrappers, v0.3 `kind` objects). They are decoded here
// in one pass, without first checking the shape (`wire-shapes.ts`). Anything else — another shape, a
// field of an unexpected type, a field this path does not build (metadata, extensions, file or data
// parts …) — returns `undefined`, and the caller checks it against the shapes, which accept or reject
// it. So this path only ever decides what the shapes would have decided, and builds the same object,
// key order included (`test/fast-decode.test.ts` and `wire-oracle.test.ts` hold them together).
// A task or event with a `generation` (the v1.1 draft's) takes the shape checks too: only draft agents
// send one, and building it here as well would cost every page's bundle.

type Json = Record<string, unknown>;
/** "Not built here": fall back to the shape checks. */
const SLOW = undefined;

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** null and undefined are "absent" to the shapes (`opt(…)`). */
function absent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

const FAST_STATES = new Map<unknown, TaskState>([
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
  ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
  ['TASK_STATE_COMPLETED', 'completed'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_CANCELED', 'canceled'],
  ['TASK_STATE_REJECTED', 'rejected'],
  ['submitted', 'submitted'],
  ['working', 'working'],
  ['input-required', 'input-required'],
  ['auth-required', 'auth-required'],
  ['completed', 'completed'],
  ['failed', 'failed'],
  ['canceled', 'canceled'],
  ['rejected', 'rejected'],
]);
type TaskState = TaskStatus['state'];

const ROLES = new Map<unknown, Role>([
  ['ROLE_AGENT', 'agent'],
  ['ROLE_USER', 'user'],
  ['agent', 'agent'],
  ['user', 'user'],
]);

/** An optional string field: `''`/absent → undefined; `false` → not a string (fall back). */
function optString(value: unknown): string | undefined | false {
  if (absent(value) || value === '') return undefined;
  return typeof value === 'string' ? value : false;
}

function textPart(wire: unknown): TextPart | undefined {
  if (!isJson(wire)) return SLOW;
  const text = wire['text'];
  const kind = wire['kind'];
  if (typeof text !== 'string' || !(kind === undefined || kind === 'text')) return SLOW;
  if (wire['raw'] !== undefined || wire['url'] !== undefined || wire['data'] !== undefined || wire['file'] !== undefined) return SLOW;
  if (!absent(wire['metadata'])) return SLOW;
  const mediaType = optString(wire['mediaType']);
  const filename = optString(wire['filename']);
  if (mediaType === false || filename === false) return SLOW;
  const part: TextPart = { kind: 'text', text };
  if (mediaType !== undefined) part.mediaType = mediaType;
  if (filename !== undefined) part.filename = filename;
  return part;
}

function textParts(list: unknown): Part[] | undefined {
  if (!Array.isArray(list)) return SLOW;
  const parts: Part[] = [];
  for (const wire of list) {
    const part = textPart(wire);
    if (part === undefined) return SLOW;
    parts.push(part);
  }
  return parts;
}

function message(wire: unknown): Message | undefined {
  if (!isJson(wire)) return SLOW;
  const messageId = wire['messageId'];
  const role = ROLES.get(wire['role']);
  const kind = wire['kind'];
  if (typeof messageId !== 'string' || role === undefined || !(absent(kind) || typeof kind === 'string')) return SLOW;
  if (!absent(wire['content']) || !absent(wire['metadata']) || !absent(wire['extensions']) || !absent(wire['referenceTaskIds'])) {
    return SLOW;
  }
  const parts = textParts(wire['parts']);
  const contextId = optString(wire['contextId']);
  const taskId = optString(wire['taskId']);
  if (parts === undefined || contextId === false || taskId === false) return SLOW;
  const out: Message = { kind: 'message', messageId, role, parts };
  if (contextId !== undefined) out.contextId = contextId;
  if (taskId !== undefined) out.taskId = taskId;
  return out;
}

function status(wire: unknown): TaskStatus | undefined {
  if (!isJson(wire)) return SLOW;
  const state = FAST_STATES.get(wire['state']);
  if (state === undefined || !absent(wire['update'])) return SLOW;
  const timestamp = optString(wire['timestamp']);
  if (timestamp === false) return SLOW;
  const out: TaskStatus = { state };
  const raw = wire['message'];
  if (!absent(raw)) {
    const decoded = message(raw);
    if (decoded === undefined) return SLOW;
    out.message = decoded;
  }
  if (timestamp !== undefined) out.timestamp = timestamp;
  return out;
}

/** `taskId` (required string) and `contextId` (optional string, absent → `''`). */
function ids(wire: Json): { taskId: string; contextId: string } | undefined {
  const taskId = wire['taskId'];
  const contextId = wire['contextId'];
  if (typeof taskId !== 'string') return SLOW;
  if (absent(contextId)) return { taskId, contextId: '' };
  return typeof contextId === 'string' ? { taskId, contextId } : SLOW;
}

function optBoolean(value: unknown): boolean | undefined | null {
  if (absent(value)) return undefined;
  return typeof value === 'boolean' ? value : null;
}

/** Fields this path leaves to the shape checks: metadata, and a generation (v1.1 draft). */
function unbuilt(wire: Json): boolean {
  return !absent(wire['metadata']) || !absent(wire['generation']);
}

function statusUpdate(wire: unknown): StreamEvent | undefined {
  if (!isJson(wire) || unbuilt(wire)) return SLOW;
  const id = ids(wire);
  const decoded = status(wire['status']);
  const final = optBoolean(wire['final']);
  const kind = wire['kind'];
  if (id === undefined || decoded === undefined || final === null || !(absent(kind) || typeof kind === 'string')) return SLOW;
  const event: StreamEvent = { kind: 'status-update', taskId: id.taskId, contextId: id.contextId, status: decoded };
  if (final !== undefined) event.final = final;
  return event;
}

function artifact(wire: unknown): Artifact | undefined {
  if (!isJson(wire)) return SLOW;
  const artifactId = wire['artifactId'];
  if (typeof artifactId !== 'string' || !absent(wire['metadata']) || !absent(wire['extensions'])) return SLOW;
  const parts = textParts(wire['parts']);
  const name = optString(wire['name']);
  const description = optString(wire['description']);
  if (parts === undefined || name === false || description === false) return SLOW;
  const decoded: Artifact = { artifactId, parts };
  if (name !== undefined) decoded.name = name;
  if (description !== undefined) decoded.description = description;
  return decoded;
}

function artifactUpdate(wire: unknown): StreamEvent | undefined {
  if (!isJson(wire) || unbuilt(wire)) return SLOW;
  const id = ids(wire);
  const append = optBoolean(wire['append']);
  const lastChunk = optBoolean(wire['lastChunk']);
  const kind = wire['kind'];
  if (id === undefined || append === null || lastChunk === null || !(absent(kind) || typeof kind === 'string')) return SLOW;
  const decoded = artifact(wire['artifact']);
  if (decoded === undefined) return SLOW;
  return {
    kind: 'artifact-update',
    taskId: id.taskId,
    contextId: id.contextId,
    artifact: decoded,
    append: append ?? false,
    lastChunk: lastChunk ?? false,
  };
}

/** A list of `item`s (absent → empty), or `undefined` if it is not one or any item is not built here. */
function listOf<T>(value: unknown, item: (wire: unknown) => T | undefined): T[] | undefined {
  if (absent(value)) return [];
  if (!Array.isArray(value)) return SLOW;
  const out: T[] = [];
  for (const wire of value) {
    const decoded = item(wire);
    if (decoded === undefined) return SLOW;
    out.push(decoded);
  }
  return out;
}

/**
 * A Task: the snapshot a v1 subscription opens with, a GetTask answer, a poll. With a long chunked
 * artifact it is the largest thing a client decodes (tens of thousands of parts), so it has a fast
 * path too.
 */
export function fastTask(wire: unknown, dialect: Dialect): Task | undefined {
  if (dialect === 'v03-proto' || !isJson(wire) || unbuilt(wire)) return SLOW;
  const id = wire['id'];
  const contextId = wire['contextId'];
  const kind = wire['kind'];
  if (typeof id !== 'string' || !(absent(contextId) || typeof contextId === 'string') || !(absent(kind) || typeof kind === 'string')) return SLOW;
  const decodedStatus = status(wire['status']);
  if (decodedStatus === undefined) return SLOW;
  const artifacts = listOf(wire['artifacts'], artifact);
  const history = listOf(wire['history'], message);
  if (artifacts === undefined || history === undefined) return SLOW;
  return { kind: 'task', id, contextId: absent(contextId) ? '' : contextId, status: decodedStatus, artifacts, history };
}

/**
 * Decodes the common stream events in one pass, or returns `undefined` when the event is not one
 * of the shapes built here (then the shape checks decide). v0.3 proto JSON (HTTP+JSON) always
 * takes the checks.
 */
export function fastStreamEvent(value: unknown, dialect: Dialect): StreamEvent | undefined {
  if (dialect === 'v03-proto' || !isJson(value)) return SLOW;
  const kind = value['kind'];
  const task = value['task'];
  const status = value['statusUpdate'];
  const artifactWire = value['artifactUpdate'];
  const message = value['message'] ?? value['msg'];
  // A wrapper beside `kind` would be a second event: the shape checks say what is wrong.
  if (kind !== undefined && !(absent(task) && absent(status) && absent(artifactWire) && absent(message))) return SLOW;
  if (kind === 'status-update') return statusUpdate(value);
  if (kind === 'artifact-update') return artifactUpdate(value);
  if (kind === 'task') return fastTask(value, dialect);
  if (kind !== undefined) return SLOW;
  // A v1 StreamResponse: exactly one of the wrappers, and none of a bare event's fields beside it.
  if (!absent(message) || Object.hasOwn(value, 'status') || Object.hasOwn(value, 'artifact') || Object.hasOwn(value, 'role')) return SLOW;
  // An inner `kind` that names another event: the shape checks say what is wrong.
  if (!absent(task)) return absent(status) && absent(artifactWire) && kindIs(task, 'task') ? fastTask(task, dialect) : SLOW;
  if (!absent(status)) return absent(artifactWire) && kindIs(status, 'status-update') ? statusUpdate(status) : SLOW;
  if (!absent(artifactWire)) return kindIs(artifactWire, 'artifact-update') ? artifactUpdate(artifactWire) : SLOW;
  return SLOW;
}

/** Whether a wrapped event has no `kind`, or the one its wrapper stands for. */
function kindIs(inner: unknown, kind: string): boolean {
  return !isJson(inner) || absent(inner['kind']) || inner['kind'] === kind;
}
