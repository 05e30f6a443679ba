import { invalidParams } from './agent-error.js';
import {
  compact,
  optionalBoolean,
  optionalInteger,
  optionalRecord,
  optionalString,
  optionalStringArray,
  requireArray,
  requireObject,
  requireString,
} from './json-guards.js';
import type { JsonObject } from './json-guards.js';
import type { TaskSnapshot, TestArtifact, TestMessage, TestPart, TestPushConfig, TestTaskStatus } from './model.js';
import type { PushConfigInput, SendParams, SendResult, StreamItem, WireCodec } from './wire-codec.js';

// v0.3 JSON-RPC (types.ts): `kind` discriminators, kebab-case states, 'user'/'agent' roles,
// file parts `{file:{uri|bytes, mimeType, name}}`, bare Task/Message results, `final` on status updates.

function decodePart(value: unknown, where: string): TestPart {
  const obj = requireObject(value, where);
  const metadata = optionalRecord(obj, 'metadata', where);
  switch (obj['kind']) {
    case 'text':
      if (typeof obj['text'] !== 'string') throw invalidParams(`${where}.text must be a string`);
      return compact({ kind: 'text', text: obj['text'], metadata }) as TestPart;
    case 'data':
      return compact({ kind: 'data', data: requireObject(obj['data'], `${where}.data`), metadata }) as TestPart;
    case 'file': {
      const file = requireObject(obj['file'], `${where}.file`);
      const url = optionalString(file, 'uri', `${where}.file`);
      const bytes = optionalString(file, 'bytes', `${where}.file`);
      if ((url === undefined) === (bytes === undefined)) throw invalidParams(`${where}.file needs exactly one of uri, bytes`);
      return compact({
        kind: 'file',
        url,
        bytes,
        mediaType: optionalString(file, 'mimeType', `${where}.file`),
        filename: optionalString(file, 'name', `${where}.file`),
        metadata,
      }) as TestPart;
    }
    default:
      throw invalidParams(`${where}.kind must be "text", "file" or "data" (got ${JSON.stringify(obj['kind'])})`);
  }
}

function decodeMessage(value: unknown, where: string): TestMessage {
  const obj = requireObject(value, where);
  if (obj['kind'] !== 'message') throw invalidParams(`${where}.kind must be "message"`);
  if (obj['role'] !== 'user') throw invalidParams(`${where}.role must be "user" (got ${JSON.stringify(obj['role'])})`);
  return compact({
    messageId: requireString(obj, 'messageId', where),
    role: 'user',
    parts: requireArray(obj, 'parts', where).map((p, i) => decodePart(p, `${where}.parts[${i}]`)),
    contextId: optionalString(obj, 'contextId', where),
    taskId: optionalString(obj, 'taskId', where),
    metadata: optionalRecord(obj, 'metadata', where),
    extensions: optionalStringArray(obj, 'extensions', where),
    referenceTaskIds: optionalStringArray(obj, 'referenceTaskIds', where),
  }) as unknown as TestMessage;
}

function decodePushConfig(value: unknown, where: string): PushConfigInput {
  const obj = requireObject(value, where);
  const auth = optionalRecord(obj, 'authentication', where);
  return compact({
    id: optionalString(obj, 'id', where),
    url: requireString(obj, 'url', where),
    token: optionalString(obj, 'token', where),
    authentication: auth && {
      schemes: optionalStringArray(auth, 'schemes', `${where}.authentication`) ?? [],
      ...compact({ credentials: optionalString(auth, 'credentials', `${where}.authentication`) }),
    },
  }) as unknown as PushConfigInput;
}

function decodeSendParams(params: unknown): SendParams {
  const obj = requireObject(params, 'params');
  if (obj['message'] === undefined) throw invalidParams('params.message is required');
  const message = decodeMessage(obj['message'], 'params.message');
  const config = optionalRecord(obj, 'configuration', 'params') ?? {};
  const push = config['pushNotificationConfig'];
  return compact({
    message,
    // The v0.3 default is unspecified; like the official JS server, treat a missing flag as blocking.
    blocking: optionalBoolean(config, 'blocking', 'params.configuration') !== false,
    historyLength: optionalInteger(config, 'historyLength', 'params.configuration'),
    pushConfig: push === undefined ? undefined : decodePushConfig(push, 'params.configuration.pushNotificationConfig'),
  }) as unknown as SendParams;
}

function encodePart(part: TestPart): JsonObject {
  switch (part.kind) {
    case 'text':
      return compact({ kind: 'text', text: part.text, metadata: part.metadata });
    case 'data':
      return compact({ kind: 'data', data: part.data, metadata: part.metadata });
    case 'file':
      return compact({
        kind: 'file',
        file: compact({
          uri: part.url,
          bytes: part.url === undefined ? part.bytes : undefined,
          mimeType: part.mediaType,
          name: part.filename,
        }),
        metadata: part.metadata,
      });
  }
}

export function encodeV03Message(message: TestMessage): JsonObject {
  return compact({
    kind: 'message',
    messageId: message.messageId,
    role: message.role,
    parts: message.parts.map(encodePart),
    contextId: message.contextId,
    taskId: message.taskId,
    metadata: message.metadata,
    extensions: message.extensions,
    referenceTaskIds: message.referenceTaskIds,
  });
}

function encodeStatus(status: TestTaskStatus): JsonObject {
  return compact({
    state: status.state,
    message: status.message && encodeV03Message(status.message),
    timestamp: status.timestamp,
  });
}

function encodeArtifact(artifact: TestArtifact): JsonObject {
  return compact({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map(encodePart),
    metadata: artifact.metadata,
  });
}

export function encodeV03Task(task: TaskSnapshot): JsonObject {
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: encodeStatus(task.status),
    artifacts: task.artifacts.map(encodeArtifact),
    history: task.history.map(encodeV03Message),
  };
}

function encodeStreamItem(item: StreamItem): JsonObject {
  switch (item.kind) {
    case 'message':
      return encodeV03Message(item.message);
    case 'task':
      return encodeV03Task(item.task);
    case 'status':
      return {
        kind: 'status-update',
        taskId: item.taskId,
        contextId: item.contextId,
        status: encodeStatus(item.status),
        final: item.final,
      };
    case 'artifact':
      return {
        kind: 'artifact-update',
        taskId: item.taskId,
        contextId: item.contextId,
        artifact: encodeArtifact(item.artifact),
        append: item.append,
        lastChunk: item.lastChunk,
      };
  }
}

/** The inner v0.3 PushNotificationConfig object (shared with the v0.3 HTTP+JSON dialect). */
export function encodeV03PushNotificationConfig(config: TestPushConfig): JsonObject {
  return compact({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: config.authentication && compact({ ...config.authentication }),
  });
}

/** The v0.3 JSON-RPC codec. */
export const wireV03JsonRpc: WireCodec = {
  version: '0.3',
  decodeSendParams,
  encodeSendResult: (result: SendResult) =>
    result.kind === 'message' ? encodeV03Message(result.message) : encodeV03Task(result.task),
  encodeTask: encodeV03Task,
  encodeStreamItem,
  decodePushConfig,
  encodePushConfig: (config: TestPushConfig) => ({
    taskId: config.taskId,
    pushNotificationConfig: encodeV03PushNotificationConfig(config),
  }),
};
