import type {
  Artifact,
  Message,
  Metadata,
  Part,
  PushNotificationConfig,
  Role,
  SendResult,
  StreamEvent,
  Task,
  TaskPage,
  TaskState,
  TaskStatus,
} from '../model/types.js';
import { DecodeError, quote } from './decode-error.js';
import { checkDialect, type Dialect } from './dialect.js';
import {
  wireArtifactUpdate,
  wireMessage,
  wirePushConfigFlat,
  wirePushConfigNested,
  wireStatusUpdate,
  wireTask,
  wireTaskPage,
  type WireArtifact,
  type WireArtifactUpdate,
  type WireMessage,
  type WirePart,
  type WirePushConfigFlat,
  type WirePushConfigNested,
  type WireStatus,
  type WireStatusUpdate,
  type WireTask,
  type WireTaskPage,
} from './wire-shapes.js';
import { plain, problem, type Check } from './check.js';
import { isObject } from '../util/is-object.js';
import { fastStreamEvent, fastTask } from './fast-decode.js';
import { withGeneration } from './generation.js';
import { checkDepth } from './depth.js';

const STATES: Record<string, TaskState> = {
  submitted: 'submitted',
  working: 'working',
  'input-required': 'input-required',
  'auth-required': 'auth-required',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  cancelled: 'canceled',
  rejected: 'rejected',
  unknown: 'unknown',
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_CANCELLED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_UNSPECIFIED: 'unknown',
};
// Proto enum numbers (identical in the v0.3 and v1.0 protos).
const STATE_NUMBERS: TaskState[] = [
  'unknown',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];

/**
 * A state this client does not know becomes `unknown` rather than failing the whole answer; a state
 * named after a prototype member (`constructor`, `__proto__`, `toString` …) is no new state but a
 * probe, and is a DecodeError (docs/security.md promises it).
 */
export function decodeState(value: string | number, path = 'state'): TaskState {
  if (typeof value === 'number') return (Number.isInteger(value) ? STATE_NUMBERS[value] : undefined) ?? 'unknown';
  if (Object.hasOwn(STATES, value)) return STATES[value] as TaskState;
  if (value in Object.prototype) throw new DecodeError(`state ${quote(value)} names a prototype member`, path);
  return 'unknown';
}

function decodeRole(value: string | number, path: string): Role {
  if (value === 'user' || value === 'ROLE_USER' || value === 1) return 'user';
  if (value === 'agent' || value === 'ROLE_AGENT' || value === 2) return 'agent';
  throw new DecodeError(`unknown role ${quote(value)}`, path);
}

/** ProtoJSON writers may emit `""` for unset strings; the model uses `undefined`. */
function opt(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}

/**
 * The one value of a model field the wire may write under several names (`uri` / `fileWithUri` …):
 * unset names (`''`, `null`) are skipped, the same value twice is one value, and two different
 * values are ambiguous — an error, never a silent pick.
 */
function oneOf(path: string, named: Record<string, string | null | undefined>): string | undefined {
  let found: [string, string] | undefined;
  for (const [name, raw] of Object.entries(named)) {
    const value = opt(raw);
    if (value === undefined) continue;
    if (found !== undefined && found[1] !== value) throw new DecodeError(`${found[0]} and ${name} differ`, path);
    found ??= [name, value];
  }
  return found?.[1];
}

function optMeta(value: Metadata | null | undefined): Metadata | undefined {
  return value ? plain(value) : undefined;
}

function optList(value: string[] | null | undefined): string[] | undefined {
  return value && value.length > 0 ? value : undefined;
}

function withCommon<T extends Part>(part: T, wire: WirePart, mediaType: string | undefined, filename: string | undefined): T {
  const meta = optMeta(wire.metadata);
  if (meta !== undefined) part.metadata = meta;
  if (mediaType !== undefined) part.mediaType = mediaType;
  if (filename !== undefined) part.filename = filename;
  return part;
}

type Member = 'text' | 'data' | 'file' | 'url' | 'raw';
const MEMBERS: readonly Member[] = ['text', 'data', 'file', 'url', 'raw'];

/**
 * Whether a content member of a part carries a value. A part is a oneof: two set is ambiguous.
 * `''` and `null` are unset (how lenient ProtoJSON writers send defaults), except that `data` may
 * be any JSON value but `null`.
 */
function isSet(wire: WirePart, member: Member): boolean {
  switch (member) {
    case 'data':
      return wire.data !== undefined && wire.data !== null;
    case 'file':
      return Boolean(wire.file);
    default:
      return Boolean(wire[member]);
  }
}

/** Which member a part is made of: its `kind` (v0.3), else the one member set, else an empty one. */
function memberOf(wire: WirePart, kind: string | undefined, path: string): Member {
  const declared = kind === 'text' || kind === 'data' || kind === 'file' ? kind : undefined;
  if (kind !== undefined && declared === undefined) throw new DecodeError(`unknown part kind ${quote(kind)}`, path);
  let found: Member | undefined;
  for (const member of MEMBERS) {
    if (!isSet(wire, member)) continue;
    if (declared !== undefined && member !== declared) throw new DecodeError(`a ${declared} part with ${member} too is ambiguous`, path);
    if (found !== undefined) throw new DecodeError(`a part with ${found} and ${member} is ambiguous`, path);
    found = member;
  }
  if (declared !== undefined) return declared;
  if (found !== undefined) return found;
  // Only unset members: an empty text or null data still is one.
  if (typeof wire.text === 'string') return 'text';
  if (wire.data !== undefined) return 'data';
  if (typeof wire.url === 'string') return 'url';
  if (typeof wire.raw === 'string') return 'raw';
  throw new DecodeError('unknown part', path);
}

/** v0.3 proto wraps data once more (`{data: {data: …}}`); anything beside the inner `data` makes it ambiguous. */
function unwrapProtoData(data: unknown, path: string): unknown {
  if (!isObject(data) || !Object.hasOwn(data, 'data')) return data;
  if (Object.keys(data).length > 1) {
    throw new DecodeError('a v0.3 proto data part wraps its data as {data: …} with nothing beside it', `${path}.data`);
  }
  return data['data'];
}

function decodePart(wire: WirePart, dialect: Dialect, path: string): Part {
  const mediaType = opt(wire.mediaType);
  const filename = opt(wire.filename);
  switch (memberOf(wire, opt(wire.kind), path)) {
    case 'text':
      if (typeof wire.text !== 'string') throw new DecodeError('text part without text', path);
      return withCommon({ kind: 'text', text: wire.text }, wire, mediaType, filename);
    case 'data': {
      const data = dialect === 'v03-proto' ? unwrapProtoData(wire.data, path) : wire.data;
      return withCommon({ kind: 'data', data }, wire, mediaType, filename);
    }
    case 'file': {
      const file = wire.file;
      if (!file) throw new DecodeError('file part without file', path);
      const where = `${path}.file`;
      const uri = oneOf(where, { uri: file.uri, fileWithUri: file.fileWithUri });
      const bytes = oneOf(where, { bytes: file.bytes, fileWithBytes: file.fileWithBytes });
      const media = oneOf(where, { mimeType: file.mimeType, mediaType: file.mediaType, 'the part\'s mediaType': wire.mediaType });
      const name = oneOf(where, { name: file.name, 'the part\'s filename': wire.filename });
      if (uri !== undefined && bytes !== undefined) throw new DecodeError('a file with both a uri and bytes is ambiguous', where);
      if (uri !== undefined) return withCommon({ kind: 'file', uri }, wire, media, name);
      if (bytes !== undefined) return withCommon({ kind: 'file', bytes }, wire, media, name);
      throw new DecodeError('file part has neither uri nor bytes', path);
    }
    case 'url':
      return withCommon({ kind: 'file', uri: wire.url ?? '' }, wire, mediaType, filename);
    case 'raw':
      return withCommon({ kind: 'file', bytes: wire.raw ?? '' }, wire, mediaType, filename);
  }
}

function decodeParts(list: WirePart[], dialect: Dialect, path: string): Part[] {
  return list.map((p, i) => decodePart(p, dialect, `${path}[${i}]`));
}

/** v1 `parts` or v0.3 proto `content`; an empty list is unset (ProtoJSON), two full ones are ambiguous. */
function partsOf(wire: WireMessage, path: string): WirePart[] {
  const parts = wire.parts ?? [];
  const content = wire.content ?? [];
  if (parts.length > 0 && content.length > 0) throw new DecodeError('both parts and content', path);
  return parts.length > 0 ? parts : content;
}

/** A checked wire Message in the model (exported for the oracle test, like the other `…FromWire`). */
export function messageFromWire(wire: WireMessage, dialect: Dialect, path: string): Message {
  const message: Message = {
    kind: 'message',
    messageId: wire.messageId,
    role: decodeRole(wire.role, `${path}.role`),
    parts: decodeParts(partsOf(wire, path), dialect, `${path}.parts`),
  };
  const contextId = opt(wire.contextId);
  const taskId = opt(wire.taskId);
  const metadata = optMeta(wire.metadata);
  const extensions = optList(wire.extensions);
  const referenceTaskIds = optList(wire.referenceTaskIds);
  if (contextId !== undefined) message.contextId = contextId;
  if (taskId !== undefined) message.taskId = taskId;
  if (metadata !== undefined) message.metadata = metadata;
  if (extensions !== undefined) message.extensions = extensions;
  if (referenceTaskIds !== undefined) message.referenceTaskIds = referenceTaskIds;
  return message;
}

function statusFromWire(wire: WireStatus, dialect: Dialect, path: string): TaskStatus {
  const status: TaskStatus = { state: decodeState(wire.state, `${path}.state`) };
  // v0.3 proto names the field `update` (json_name "message"); accept either, not both.
  if (wire.message && wire.update) throw new DecodeError('both message and update', path);
  const message = wire.message ?? wire.update;
  if (message) status.message = messageFromWire(message, dialect, `${path}.message`);
  const timestamp = opt(wire.timestamp);
  if (timestamp !== undefined) status.timestamp = timestamp;
  return status;
}

function artifactFromWire(wire: WireArtifact, dialect: Dialect, path: string): Artifact {
  const artifact: Artifact = {
    artifactId: wire.artifactId,
    parts: decodeParts(wire.parts, dialect, `${path}.parts`),
  };
  const name = opt(wire.name);
  const description = opt(wire.description);
  const metadata = optMeta(wire.metadata);
  const extensions = optList(wire.extensions);
  if (name !== undefined) artifact.name = name;
  if (description !== undefined) artifact.description = description;
  if (metadata !== undefined) artifact.metadata = metadata;
  if (extensions !== undefined) artifact.extensions = extensions;
  return artifact;
}

export function taskFromWire(wire: WireTask, dialect: Dialect, path: string): Task {
  const task: Task = {
    kind: 'task',
    id: wire.id,
    contextId: wire.contextId ?? '',
    status: statusFromWire(wire.status, dialect, `${path}.status`),
    artifacts: (wire.artifacts ?? []).map((a, i) => artifactFromWire(a, dialect, `${path}.artifacts[${i}]`)),
    history: (wire.history ?? []).map((m, i) => messageFromWire(m, dialect, `${path}.history[${i}]`)),
  };
  const metadata = optMeta(wire.metadata);
  if (metadata !== undefined) task.metadata = metadata;
  return withGeneration(task, wire, dialect);
}

/** `value` if it has the shape, else a `DecodeError` naming where the first problem is. */
function check<T>(shape: Check<T>, value: unknown, path: string): T {
  const issue = shape(value);
  if (issue === undefined) return value as T;
  const where = [path, ...issue.path.map(String)].filter(Boolean).join('.');
  throw new DecodeError(problem(issue), where);
}

/** Decodes a Task from any dialect. */
export function decodeTask(value: unknown, dialect: Dialect, path = 'task'): Task {
  checkDialect(dialect, 'decodeTask');
  checkDepth(value, path);
  return fastTask(value, dialect) ?? taskOf(value, dialect, path);
}

/** {@link decodeTask} without the fast path: shape check, then conversion (tests hold the two against each other). */
export function decodeTaskWithSchemas(value: unknown, dialect: Dialect, path = 'task'): Task {
  checkDepth(value, path);
  return taskOf(value, dialect, path);
}

function taskOf(value: unknown, dialect: Dialect, path: string): Task {
  return taskFromWire(check(wireTask, value, path), dialect, path);
}

/** Decodes a Message from any dialect. */
export function decodeMessage(value: unknown, dialect: Dialect, path = 'message'): Message {
  checkDialect(dialect, 'decodeMessage');
  checkDepth(value, path);
  return messageFromWire(check(wireMessage, value, path), dialect, path);
}

const WRAPPER_KEYS = ['task', 'message', 'msg', 'statusUpdate', 'artifactUpdate'] as const;
type EventKind = StreamEvent['kind'];
/** The `kind` an event inside each wrapper may carry (v1 events carry none; some servers add it). */
const WRAPPED_KIND: Record<(typeof WRAPPER_KEYS)[number], EventKind> = {
  task: 'task',
  message: 'message',
  msg: 'message',
  statusUpdate: 'status-update',
  artifactUpdate: 'artifact-update',
};

/** What a bare object without `kind` is, by the fields it has. */
const INFERRED = [
  { name: 'a message', kind: 'message', fields: ['messageId', 'role'] },
  { name: 'a task', kind: 'task', fields: ['id', 'status'] },
  { name: 'an artifact update', kind: 'artifact-update', fields: ['taskId', 'artifact'] },
  { name: 'a status update', kind: 'status-update', fields: ['taskId', 'status'] },
] as const;

/** Where a decode error of each kind points when the event is not inside a wrapper. */
const PATH_OF: Record<EventKind, string> = { task: 'task', message: 'message', 'status-update': 'statusUpdate', 'artifact-update': 'artifactUpdate' };

/** Decodes `value` as an event of `kind` through the shape checks; `path` names it in errors. */
function decodeOfKind(kind: EventKind, value: unknown, dialect: Dialect, path = PATH_OF[kind]): StreamEvent {
  switch (kind) {
    case 'task':
      return taskOf(value, dialect, path);
    case 'message':
      return messageFromWire(check(wireMessage, value, path), dialect, path);
    case 'status-update':
      return decodeStatusUpdate(value, dialect, path);
    case 'artifact-update':
      return decodeArtifactUpdate(value, dialect, path);
  }
}

/**
 * Decodes one stream response: v1 `StreamResponse` (`{task|message|statusUpdate|artifactUpdate}`),
 * v0.3 proto `{task|msg|statusUpdate|artifactUpdate}`, or a bare v0.3 object with `kind`.
 * Tells them apart by the keys present, never by key order.
 */
export function decodeStreamEvent(value: unknown, dialect: Dialect): StreamEvent {
  checkDialect(dialect, 'decodeStreamEvent');
  checkDepth(value, 'event');
  return fastStreamEvent(value, dialect) ?? eventOf(value, dialect);
}

/** {@link decodeStreamEvent} without the fast path: shape checks, then conversion (tests hold the two against each other). */
export function decodeStreamEventWithSchemas(value: unknown, dialect: Dialect): StreamEvent {
  checkDepth(value, 'event');
  return eventOf(value, dialect);
}

function eventOf(value: unknown, dialect: Dialect): StreamEvent {
  if (!isObject(value)) throw new DecodeError('expected an object');
  const kind = value['kind'];
  const present = WRAPPER_KEYS.filter((k) => value[k] !== undefined && value[k] !== null);
  if (typeof kind === 'string') {
    // A bare v0.3 object has none of the wrappers' names: one beside it would be a second event.
    if (present.length > 0) throw new DecodeError(`both kind and ${present.join(', ')}`);
    if (!Object.hasOwn(PATH_OF, kind)) throw new DecodeError(`unknown kind ${quote(kind)}`);
    return decodeOfKind(kind as EventKind, value, dialect);
  }
  // Bare objects without `kind` (lenient servers) are read from the required fields, when only one fits.
  const readings = INFERRED.filter(({ fields }) => fields.every((field) => Object.hasOwn(value, field)));
  if (present.length > 1) throw new DecodeError(`more than one of ${present.join(', ')}`);
  if (present.length === 1) {
    const key = present[0] as (typeof WRAPPER_KEYS)[number];
    // The fields of a bare event beside a wrapper would be a second event.
    if (readings[0] !== undefined) throw new DecodeError(`both ${key} and the fields of ${readings[0].name}`);
    const inner = value[key];
    const innerKind = isObject(inner) ? inner['kind'] : undefined;
    // (A `kind` that is not a string is the shape checks' to refuse.)
    if (typeof innerKind === 'string' && innerKind !== WRAPPED_KIND[key]) {
      throw new DecodeError(`kind ${quote(innerKind)} inside ${key}`);
    }
    return decodeOfKind(WRAPPED_KIND[key], inner, dialect, key);
  }
  if (readings.length > 1) throw new DecodeError(`reads as both ${readings.map((r) => r.name).join(' and ')}`);
  if (readings[0] !== undefined) return decodeOfKind(readings[0].kind, value, dialect);
  const keys = Object.keys(value).slice(0, 8).map((key) => (key.length > 40 ? `${key.slice(0, 40)}…` : key));
  throw new DecodeError(`not a stream response (keys: ${keys.join(', ') || 'none'})`);
}

function decodeStatusUpdate(value: unknown, dialect: Dialect, path: string): StreamEvent {
  return statusUpdateFromWire(check(wireStatusUpdate, value, path), dialect, path);
}

export function statusUpdateFromWire(wire: WireStatusUpdate, dialect: Dialect, path: string): StreamEvent {
  const event: StreamEvent = {
    kind: 'status-update',
    taskId: wire.taskId,
    contextId: wire.contextId ?? '',
    status: statusFromWire(wire.status, dialect, `${path}.status`),
  };
  if (typeof wire.final === 'boolean') event.final = wire.final;
  const metadata = optMeta(wire.metadata);
  if (metadata !== undefined) event.metadata = metadata;
  return withGeneration(event, wire, dialect);
}

function decodeArtifactUpdate(value: unknown, dialect: Dialect, path: string): StreamEvent {
  return artifactUpdateFromWire(check(wireArtifactUpdate, value, path), dialect, path);
}

export function artifactUpdateFromWire(wire: WireArtifactUpdate, dialect: Dialect, path: string): StreamEvent {
  const event: StreamEvent = {
    kind: 'artifact-update',
    taskId: wire.taskId,
    contextId: wire.contextId ?? '',
    artifact: artifactFromWire(wire.artifact, dialect, `${path}.artifact`),
    append: wire.append ?? false,
    lastChunk: wire.lastChunk ?? false,
  };
  const metadata = optMeta(wire.metadata);
  if (metadata !== undefined) event.metadata = metadata;
  return withGeneration(event, wire, dialect);
}

/** Decodes the answer of a (non-streaming) send: a Task or a Message, wrapped (v1) or bare (v0.3). */
export function decodeSendResult(value: unknown, dialect: Dialect): SendResult {
  const event = decodeStreamEvent(value, dialect);
  if (event.kind === 'task' || event.kind === 'message') return event;
  throw new DecodeError(`a send must answer a task or a message, got ${event.kind}`);
}

export function pushConfigFromFlat(wire: WirePushConfigFlat, taskId: string | undefined): PushNotificationConfig {
  const config: PushNotificationConfig = { taskId: taskId ?? '', url: wire.url };
  const id = opt(wire.id);
  const token = opt(wire.token);
  if (id !== undefined) config.id = id;
  if (token !== undefined) config.token = token;
  const auth = wire.authentication;
  if (auth) {
    // v1 names one `scheme`, v0.3 a list of `schemes`: both are fine when they agree.
    const scheme = opt(auth.scheme);
    const listed = auth.schemes ?? [];
    if (scheme !== undefined && listed.length > 0 && !listed.includes(scheme)) {
      throw new DecodeError('scheme is not one of schemes', 'pushConfig.authentication');
    }
    config.authentication = { schemes: listed.length > 0 ? listed : scheme !== undefined ? [scheme] : [] };
    const credentials = opt(auth.credentials);
    if (credentials !== undefined) config.authentication.credentials = credentials;
  }
  return config;
}

/** `tasks/{taskId}/pushNotificationConfigs/{id}` (v0.3 proto resource names). */
function parseResourceName(name: string): { taskId?: string; id?: string } {
  const match = /^tasks\/([^/]+)(?:\/pushNotificationConfigs\/([^/]+))?$/.exec(name);
  // Another name would be dropped, and with it the task and the id it names.
  if (!match) throw new DecodeError(`${quote(name)} is not tasks/{taskId}/pushNotificationConfigs/{id}`, 'pushConfig.name');
  const out: { taskId?: string; id?: string } = {};
  try {
    if (match[1]) out.taskId = decodeURIComponent(match[1]);
    if (match[2]) out.id = decodeURIComponent(match[2]);
  } catch {
    throw new DecodeError('name is not a valid resource name (bad percent-encoding)', 'pushConfig.name');
  }
  return out;
}

/** Decodes a push config from any dialect (v1 flat, v0.3 nested, v0.3 proto with a resource name). */
export function decodePushConfig(value: unknown, fallbackTaskId?: string): PushNotificationConfig {
  if (isObject(value) && isObject(value['pushNotificationConfig'])) {
    return pushConfigFromNested(check(wirePushConfigNested, value, 'pushConfig'), fallbackTaskId);
  }
  const wire = check(wirePushConfigFlat, value, 'pushConfig');
  return pushConfigFromFlat(wire, opt(wire.taskId) ?? fallbackTaskId);
}

export function pushConfigFromNested(wire: WirePushConfigNested, fallbackTaskId?: string): PushNotificationConfig {
  const fromName = wire.name ? parseResourceName(wire.name) : {};
  const inner = wire.pushNotificationConfig;
  const taskId = oneOf('pushConfig', { taskId: wire.taskId, 'the task in name': fromName.taskId, 'pushNotificationConfig.taskId': inner.taskId });
  const config = pushConfigFromFlat(inner, taskId ?? fallbackTaskId);
  const id = oneOf('pushConfig', { 'pushNotificationConfig.id': inner.id, 'the id in name': fromName.id });
  if (id !== undefined) config.id = id;
  return config;
}

/** Decodes a push-config listing: v0.3 JSON-RPC bare array, or `{configs: [...]}` (v1 / v0.3 proto). */
export function decodePushConfigList(value: unknown, taskId: string): PushNotificationConfig[] {
  const list = Array.isArray(value) ? value : isObject(value) ? (value['configs'] ?? []) : undefined;
  if (!Array.isArray(list)) throw new DecodeError('expected a list of push configs');
  return list.map((item) => decodePushConfig(item, taskId));
}

/** Decodes a v1.0 ListTasks answer, defaulting what ProtoJSON omits. */
export function decodeTaskPage(value: unknown): TaskPage {
  checkDepth(value, 'listTasks');
  return taskPageFromWire(check(wireTaskPage, value, 'listTasks'));
}

export function taskPageFromWire(wire: WireTaskPage): TaskPage {
  return {
    tasks: wire.tasks.map((t, i) => taskFromWire(t, 'v1', `tasks[${i}]`)),
    nextPageToken: wire.nextPageToken ?? '',
    pageSize: wire.pageSize ?? wire.tasks.length,
    totalSize: wire.totalSize ?? 0,
  };
}
