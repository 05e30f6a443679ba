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
import type { PushConfigInput, SendParams, SendResult, StreamItem, WireCodec } from './wire-codec.js';

// v1.0 ProtoJSON (package lf.a2a.v1): TASK_STATE_* / ROLE_* enums, oneof parts without `kind`,
// StreamResponse and SendMessageResponse wrappers, and defaults (false, "", []) left out.

const STATE_TO_V1: Record<TestTaskState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

// Proto enum numbers, which ProtoJSON parsers must also accept.
const STATE_NUMBERS: readonly TestTaskState[] = [
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

/** Parse a v1 TaskState given by name (`TASK_STATE_WORKING`) or number. */
export function decodeV1State(value: unknown, where: string): TestTaskState {
  if (typeof value === 'number' && STATE_NUMBERS[value] !== undefined) return STATE_NUMBERS[value];
  if (typeof value === 'string') {
    if (/^\d+$/.test(value) && STATE_NUMBERS[Number(value)] !== undefined) return STATE_NUMBERS[Number(value)]!;
    for (const [state, name] of Object.entries(STATE_TO_V1)) {
      if (name === value) return state as TestTaskState;
    }
  }
  throw invalidParams(`${where} is not a v1 TaskState: ${JSON.stringify(value)}`);
}

function rejectKind(obj: JsonObject, where: string): void {
  if ('kind' in obj) throw invalidParams(`${where} has a "kind" field: v1 ProtoJSON has none (that is v0.3 JSON-RPC)`);
}

function decodePart(value: unknown, where: string): TestPart {
  const obj = requireObject(value, where);
  rejectKind(obj, where);
  const present = ['text', 'raw', 'url', 'data'].filter((key) => obj[key] !== undefined);
  if (present.length !== 1) {
    throw invalidParams(`${where} must hold exactly one of text, raw, url, data (found ${present.join(', ') || 'none'})`);
  }
  const metadata = optionalRecord(obj, 'metadata', where);
  if (obj['text'] !== undefined) {
    if (typeof obj['text'] !== 'string') throw invalidParams(`${where}.text must be a string`);
    return compact({ kind: 'text', text: obj['text'], metadata }) as TestPart;
  }
  if (obj['data'] !== undefined) return compact({ kind: 'data', data: obj['data'], metadata }) as TestPart;
  return compact({
    kind: 'file',
    url: optionalString(obj, 'url', where),
    bytes: optionalString(obj, 'raw', where),
    mediaType: optionalString(obj, 'mediaType', where),
    filename: optionalString(obj, 'filename', where),
    metadata,
  }) as TestPart;
}

function decodeMessage(value: unknown, where: string): TestMessage {
  const obj = requireObject(value, where);
  rejectKind(obj, where);
  const role = obj['role'];
  if (role !== 'ROLE_USER' && role !== 1) {
    throw invalidParams(`${where}.role must be "ROLE_USER" (got ${JSON.stringify(role)})`);
  }
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
      schemes: [requireString(auth, 'scheme', `${where}.authentication`)],
      ...compact({ credentials: optionalString(auth, 'credentials', `${where}.authentication`) }),
    },
  }) as unknown as PushConfigInput;
}

function decodeSendParams(params: unknown): SendParams {
  const obj = requireObject(params, 'params');
  if (obj['message'] === undefined) throw invalidParams('params.message is required');
  const message = decodeMessage(obj['message'], 'params.message');
  const config = optionalRecord(obj, 'configuration', 'params') ?? {};
  if ('pushNotificationConfig' in config || 'blocking' in config) {
    throw invalidParams(
      'params.configuration uses v0.3/1.0-rc fields (pushNotificationConfig/blocking); v1 has taskPushNotificationConfig/returnImmediately',
    );
  }
  const push = config['taskPushNotificationConfig'];
  return compact({
    message,
    blocking: optionalBoolean(config, 'returnImmediately', 'params.configuration') !== true,
    historyLength: optionalInteger(config, 'historyLength', 'params.configuration'),
    pushConfig: push === undefined ? undefined : decodePushConfig(push, 'params.configuration.taskPushNotificationConfig'),
    // v1.1 draft: an int64, a string in ProtoJSON (numbers are accepted too).
    ifGenerationMatch: optionalInteger(config, 'ifGenerationMatch', 'params.configuration'),
  }) as unknown as SendParams;
}

function encodePart(part: TestPart): JsonObject {
  switch (part.kind) {
    case 'text':
      return compact({ text: part.text, metadata: part.metadata });
    case 'data':
      return compact({ data: part.data, metadata: part.metadata });
    case 'file':
      return compact({
        url: part.url,
        raw: part.url === undefined ? part.bytes : undefined,
        mediaType: part.mediaType,
        filename: part.filename,
        metadata: part.metadata,
      });
  }
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list !== undefined && list.length > 0 ? list : undefined;
}

export function encodeV1Message(message: TestMessage): JsonObject {
  return compact({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: message.parts.map(encodePart),
    metadata: message.metadata,
    extensions: nonEmpty(message.extensions),
    referenceTaskIds: nonEmpty(message.referenceTaskIds),
  });
}

function encodeStatus(status: TestTaskStatus): JsonObject {
  return compact({
    state: STATE_TO_V1[status.state],
    message: status.message && encodeV1Message(status.message),
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

/** v1.1 draft: an int64 in ProtoJSON is a string; 0 is written (`"0"`) rather than left out, so a client sees it. */
function generation(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

export function encodeV1Task(task: TaskSnapshot): JsonObject {
  return compact({
    id: task.id,
    contextId: task.contextId,
    status: encodeStatus(task.status),
    artifacts: nonEmpty(task.artifacts.map(encodeArtifact)),
    history: nonEmpty(task.history.map(encodeV1Message)),
    generation: generation(task.generation),
  });
}

/** v1 StreamResponse: exactly one of task | message | statusUpdate | artifactUpdate. */
export function encodeV1StreamItem(item: StreamItem): JsonObject {
  switch (item.kind) {
    case 'message':
      return { message: encodeV1Message(item.message) };
    case 'task':
      return { task: encodeV1Task(item.task) };
    case 'status':
      return {
        statusUpdate: compact({ taskId: item.taskId, contextId: item.contextId, status: encodeStatus(item.status), generation: generation(item.generation) }),
      };
    case 'artifact':
      return {
        artifactUpdate: compact({
          taskId: item.taskId,
          contextId: item.contextId,
          artifact: encodeArtifact(item.artifact),
          append: item.append || undefined,
          lastChunk: item.lastChunk || undefined,
          generation: generation(item.generation),
        }),
      };
  }
}

function encodePushConfig(config: TestPushConfig): JsonObject {
  return compact({
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    token: config.token,
    authentication: config.authentication && {
      scheme: config.authentication.schemes[0] ?? '',
      ...compact({ credentials: config.authentication.credentials }),
    },
  });
}

/** The v1.0 ProtoJSON codec (JSON-RPC and HTTP+JSON share it). */
export const wireV1: WireCodec = {
  version: '1.0',
  decodeSendParams,
  encodeSendResult: (result: SendResult) =>
    result.kind === 'message' ? { message: encodeV1Message(result.message) } : { task: encodeV1Task(result.task) },
  encodeTask: encodeV1Task,
  encodeStreamItem: encodeV1StreamItem,
  decodePushConfig,
  encodePushConfig,
};
