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
import type { TaskSnapshot, TestArtifact, TestMessage, TestPart, TestPushConfig, TestTaskState, TestTaskStatus } from './model.js';
import type { SendParams, SendResult, StreamItem, WireCodec } from './wire-codec.js';
import { encodeV03PushNotificationConfig, wireV03JsonRpc } from './wire-v03-jsonrpc.js';

// v0.3 HTTP+JSON speaks the v0.3 *proto* JSON (package a2a.v1), not the JSON-RPC shapes:
// ROLE_* / TASK_STATE_* (with CANCELLED), Message parts under `content`, file parts
// `{fileWithUri|fileWithBytes, mimeType}`, data parts `{data:{data:{…}}}`, TaskStatus.message
// (proto field `update`), StreamResponse `{task|message|statusUpdate|artifactUpdate}` (the `msg` field's
// json_name is "message"), and proto3 defaults (false, "", []) left out.

const STATE_TO_V03_PROTO: Record<TestTaskState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

function decodePart(value: unknown, where: string): TestPart {
  const obj = requireObject(value, where);
  if ('kind' in obj) throw invalidParams(`${where} has a "kind" field: v0.3 HTTP+JSON uses proto JSON parts`);
  if (typeof obj['text'] === 'string') return { kind: 'text', text: obj['text'] };
  if (obj['file'] !== undefined) {
    const file = requireObject(obj['file'], `${where}.file`);
    const url = optionalString(file, 'fileWithUri', `${where}.file`);
    const bytes = optionalString(file, 'fileWithBytes', `${where}.file`);
    if ((url === undefined) === (bytes === undefined)) {
      throw invalidParams(`${where}.file needs exactly one of fileWithUri, fileWithBytes`);
    }
    return compact({ kind: 'file', url, bytes, mediaType: optionalString(file, 'mimeType', `${where}.file`) }) as TestPart;
  }
  if (obj['data'] !== undefined) {
    const data = requireObject(obj['data'], `${where}.data`);
    return { kind: 'data', data: requireObject(data['data'], `${where}.data.data`) };
  }
  throw invalidParams(`${where} must hold one of text, file, data`);
}

function decodeMessage(value: unknown, where: string): TestMessage {
  const obj = requireObject(value, where);
  if (obj['content'] === undefined && obj['parts'] !== undefined) {
    throw invalidParams(`${where} has "parts": v0.3 HTTP+JSON messages carry their parts under "content"`);
  }
  if (obj['role'] !== 'ROLE_USER' && obj['role'] !== 1) {
    throw invalidParams(`${where}.role must be "ROLE_USER" (got ${JSON.stringify(obj['role'])})`);
  }
  return compact({
    messageId: requireString(obj, 'messageId', where),
    role: 'user',
    parts: requireArray(obj, 'content', where).map((p, i) => decodePart(p, `${where}.content[${i}]`)),
    contextId: optionalString(obj, 'contextId', where),
    taskId: optionalString(obj, 'taskId', where),
    metadata: optionalRecord(obj, 'metadata', where),
    extensions: optionalStringArray(obj, 'extensions', where),
  }) as unknown as TestMessage;
}

function decodeSendParams(params: unknown): SendParams {
  const obj = requireObject(params, 'body');
  // The proto field is `request` with json_name "message"; accept both spellings.
  const raw = obj['message'] ?? obj['request'];
  if (raw === undefined) throw invalidParams('body.message is required');
  const message = decodeMessage(raw, 'body.message');
  const config = optionalRecord(obj, 'configuration', 'body') ?? {};
  if ('pushNotificationConfig' in config) {
    throw invalidParams('body.configuration.pushNotificationConfig is the JSON-RPC name; v0.3 HTTP+JSON uses pushNotification');
  }
  const push = config['pushNotification'];
  return compact({
    message,
    blocking: optionalBoolean(config, 'blocking', 'body.configuration') !== false,
    historyLength: optionalInteger(config, 'historyLength', 'body.configuration'),
    pushConfig:
      push === undefined ? undefined : wireV03JsonRpc.decodePushConfig(push, 'body.configuration.pushNotification'),
  }) as unknown as SendParams;
}

function encodePart(part: TestPart): JsonObject {
  switch (part.kind) {
    case 'text':
      return { text: part.text };
    case 'data':
      return { data: { data: part.data } };
    case 'file':
      return {
        file: compact({
          fileWithUri: part.url,
          fileWithBytes: part.url === undefined ? part.bytes : undefined,
          mimeType: part.mediaType,
        }),
      };
  }
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list !== undefined && list.length > 0 ? list : undefined;
}

function encodeMessage(message: TestMessage): JsonObject {
  return compact({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    content: nonEmpty(message.parts.map(encodePart)),
    metadata: message.metadata,
    extensions: nonEmpty(message.extensions),
  });
}

function encodeStatus(status: TestTaskStatus): JsonObject {
  return compact({
    state: STATE_TO_V03_PROTO[status.state],
    message: status.message && encodeMessage(status.message),
    timestamp: status.timestamp,
  });
}

function encodeArtifact(artifact: TestArtifact): JsonObject {
  return compact({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: nonEmpty(artifact.parts.map(encodePart)),
    metadata: artifact.metadata,
  });
}

function encodeTask(task: TaskSnapshot): JsonObject {
  return compact({
    id: task.id,
    contextId: task.contextId,
    status: encodeStatus(task.status),
    artifacts: nonEmpty(task.artifacts.map(encodeArtifact)),
    history: nonEmpty(task.history.map(encodeMessage)),
  });
}

function encodeStreamItem(item: StreamItem): JsonObject {
  switch (item.kind) {
    case 'message':
      return { message: encodeMessage(item.message) };
    case 'task':
      return { task: encodeTask(item.task) };
    case 'status':
      return {
        statusUpdate: compact({
          taskId: item.taskId,
          contextId: item.contextId,
          status: encodeStatus(item.status),
          final: item.final || undefined,
        }),
      };
    case 'artifact':
      return {
        artifactUpdate: compact({
          taskId: item.taskId,
          contextId: item.contextId,
          artifact: encodeArtifact(item.artifact),
          append: item.append || undefined,
          lastChunk: item.lastChunk || undefined,
        }),
      };
  }
}

/** v0.3-proto TaskPushNotificationConfig: `{name: "tasks/{id}/pushNotificationConfigs/{cfg}", pushNotificationConfig}`. */
function encodePushConfig(config: TestPushConfig): JsonObject {
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.id}`,
    pushNotificationConfig: encodeV03PushNotificationConfig(config),
  };
}

/** The v0.3 HTTP+JSON (proto JSON) codec. */
export const wireV03Rest: WireCodec = {
  version: '0.3',
  decodeSendParams,
  encodeSendResult: (result: SendResult) =>
    result.kind === 'message' ? { message: encodeMessage(result.message) } : { task: encodeTask(result.task) },
  encodeTask,
  encodeStreamItem,
  decodePushConfig: wireV03JsonRpc.decodePushConfig,
  encodePushConfig,
};
