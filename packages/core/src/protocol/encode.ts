import type { Message, Metadata, Part, PushNotificationConfig } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';
import { checkDialect, type Dialect } from './dialect.js';
import { isObject } from '../util/is-object.js';

/** What a send carries, before it is written in a dialect. */
export interface SendParams {
  message: Message;
  /** Wait for a terminal or interrupted state (`false`: answer as soon as the task exists). */
  blocking: boolean;
  acceptedOutputModes?: string[] | undefined;
  historyLength?: number | undefined;
  /** A webhook to register with the send (its `taskId` is ignored: the task does not exist yet). */
  pushNotification?: Omit<PushNotificationConfig, 'taskId'> | undefined;
  metadata?: Metadata | undefined;
}

type Json = Record<string, unknown>;

function put(target: Json, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

const PART_KINDS: ReadonlySet<unknown> = new Set(['text', 'data', 'file']);

function encodePart(part: Part, dialect: Dialect): Json {
  // A part of another kind would be written as `{}`: the agent would get an empty part.
  if (!isObject(part) || !PART_KINDS.has(part.kind)) throw new TetherError('INVALID_ARGUMENT', 'a part is of kind text, data or file');
  const out: Json = {};
  if (dialect === 'v1') {
    switch (part.kind) {
      case 'text':
        out['text'] = part.text;
        break;
      case 'data':
        out['data'] = part.data;
        break;
      case 'file':
        if (part.uri !== undefined) out['url'] = part.uri;
        else out['raw'] = part.bytes;
        break;
    }
    put(out, 'metadata', part.metadata);
    put(out, 'filename', part.filename);
    put(out, 'mediaType', part.mediaType);
    return out;
  }
  if (part.kind === 'data' && (typeof part.data !== 'object' || part.data === null || Array.isArray(part.data))) {
    // v0.3 only allows objects; refuse rather than silently reshaping the caller's data.
    throw new TetherError('INVALID_ARGUMENT', 'v0.3 agents only accept objects in data parts');
  }
  if (dialect === 'v03') {
    switch (part.kind) {
      case 'text':
        Object.assign(out, { kind: 'text', text: part.text });
        break;
      case 'data':
        Object.assign(out, { kind: 'data', data: part.data });
        break;
      case 'file': {
        const file: Json = part.uri !== undefined ? { uri: part.uri } : { bytes: part.bytes };
        put(file, 'mimeType', part.mediaType);
        put(file, 'name', part.filename);
        Object.assign(out, { kind: 'file', file });
        break;
      }
    }
    put(out, 'metadata', part.metadata);
    return out;
  }
  // v0.3 proto JSON (HTTP+JSON): no per-part metadata in that proto.
  switch (part.kind) {
    case 'text':
      out['text'] = part.text;
      break;
    case 'data':
      out['data'] = { data: part.data };
      break;
    case 'file': {
      const file: Json = part.uri !== undefined ? { fileWithUri: part.uri } : { fileWithBytes: part.bytes };
      put(file, 'mimeType', part.mediaType);
      out['file'] = file;
      break;
    }
  }
  return out;
}

/** Writes a message in the given dialect. */
export function encodeMessage(message: Message, dialect: Dialect): Json {
  checkDialect(dialect, 'encodeMessage');
  if (!isObject(message) || !Array.isArray(message.parts)) throw new TetherError('INVALID_ARGUMENT', 'encodeMessage: no parts list');
  const parts = message.parts.map((p) => encodePart(p, dialect));
  const out: Json = { messageId: message.messageId };
  if (dialect === 'v03') {
    Object.assign(out, { kind: 'message', role: message.role, parts });
  } else {
    out['role'] = message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT';
    out[dialect === 'v1' ? 'parts' : 'content'] = parts;
  }
  put(out, 'contextId', message.contextId);
  put(out, 'taskId', message.taskId);
  put(out, 'metadata', message.metadata);
  put(out, 'extensions', message.extensions);
  if (dialect !== 'v03-proto') put(out, 'referenceTaskIds', message.referenceTaskIds);
  return out;
}

function encodePushAuth(config: Omit<PushNotificationConfig, 'taskId'>, dialect: Dialect): Json | undefined {
  const auth = config.authentication;
  if (!auth) return undefined;
  const out: Json = dialect === 'v1' ? { scheme: auth.schemes[0] ?? 'Bearer' } : { schemes: auth.schemes };
  put(out, 'credentials', auth.credentials);
  return out;
}

/** The inner push config: v1 flat (with `taskId` when known), v0.3 `PushNotificationConfig`. */
function encodePushInner(config: Omit<PushNotificationConfig, 'taskId'> & { taskId?: string }, dialect: Dialect): Json {
  const out: Json = {};
  if (dialect === 'v1') put(out, 'taskId', config.taskId || undefined);
  put(out, 'id', config.id);
  out['url'] = config.url;
  put(out, 'token', config.token);
  put(out, 'authentication', encodePushAuth(config, dialect));
  return out;
}

/** Writes SendMessage params in the given dialect; the blocking flag is always explicit. */
export function encodeSendParams(params: SendParams, dialect: Dialect): Json {
  if (!isObject(params)) throw new TetherError('INVALID_ARGUMENT', 'encodeSendParams: not an object');
  const configuration: Json = {};
  put(configuration, 'acceptedOutputModes', params.acceptedOutputModes);
  put(configuration, 'historyLength', params.historyLength);
  if (dialect === 'v1') {
    configuration['returnImmediately'] = !params.blocking;
    if (params.pushNotification) {
      configuration['taskPushNotificationConfig'] = encodePushInner(params.pushNotification, dialect);
    }
  } else {
    // v0.3 leaves the default of `blocking` unspecified and SDKs disagree: always send it.
    configuration['blocking'] = params.blocking;
    if (params.pushNotification) {
      configuration[dialect === 'v03' ? 'pushNotificationConfig' : 'pushNotification'] = encodePushInner(
        params.pushNotification,
        dialect,
      );
    }
  }
  const out: Json = { message: encodeMessage(params.message, dialect), configuration };
  put(out, 'metadata', params.metadata);
  return out;
}

/** Writes a push-config creation request body/params in the given dialect. */
export function encodePushConfig(config: PushNotificationConfig, dialect: Dialect): Json {
  if (dialect === 'v1') return encodePushInner(config, dialect);
  const inner = encodePushInner(config, dialect);
  if (dialect === 'v03') return { taskId: config.taskId, pushNotificationConfig: inner };
  const parent = `tasks/${config.taskId}`;
  const configId = config.id ?? '';
  return {
    parent,
    configId,
    config: {
      name: configId ? `${parent}/pushNotificationConfigs/${configId}` : '',
      pushNotificationConfig: inner,
    },
  };
}
