import type { Message, Part, PushNotificationConfig } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';
import { checkMessage, checkPart, checkSendParams, pushAuth, put, sendConfiguration, type Encoder, type Json, type SendParams } from './encoder.js';

// The v0.3 writers: JSON-RPC (`kind` objects, `v03`) and HTTP+JSON (the v0.3 proto JSON, `v03-proto`).

function part(part: Part, proto: boolean): Json {
  checkPart(part);
  if (part.kind === 'data' && (typeof part.data !== 'object' || part.data === null || Array.isArray(part.data))) {
    // v0.3 only allows objects; refuse rather than silently reshaping the caller's data.
    throw new TetherError('INVALID_ARGUMENT', 'v0.3 agents only accept objects in data parts');
  }
  const out: Json = {};
  if (!proto) {
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
  // No per-part metadata in the v0.3 proto.
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

function message(message: Message, proto: boolean): Json {
  checkMessage(message);
  const parts = message.parts.map((p) => part(p, proto));
  const out: Json = { messageId: message.messageId };
  if (!proto) {
    Object.assign(out, { kind: 'message', role: message.role, parts });
  } else {
    out['role'] = message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT';
    out['content'] = parts;
  }
  put(out, 'contextId', message.contextId);
  put(out, 'taskId', message.taskId);
  put(out, 'metadata', message.metadata);
  put(out, 'extensions', message.extensions);
  if (!proto) put(out, 'referenceTaskIds', message.referenceTaskIds);
  return out;
}

/** v0.3's `PushNotificationConfig` (the task is named beside it, not inside). */
function pushInner(config: Omit<PushNotificationConfig, 'taskId'>): Json {
  const out: Json = {};
  put(out, 'id', config.id);
  out['url'] = config.url;
  put(out, 'token', config.token);
  put(out, 'authentication', pushAuth(config, false));
  return out;
}

function sendParams(params: SendParams, proto: boolean): Json {
  checkSendParams(params);
  const configuration = sendConfiguration(params);
  // v0.3 leaves the default of `blocking` unspecified and SDKs disagree: always send it.
  configuration['blocking'] = params.blocking;
  if (params.pushNotification) configuration[proto ? 'pushNotification' : 'pushNotificationConfig'] = pushInner(params.pushNotification);
  const out: Json = { message: message(params.message, proto), configuration };
  put(out, 'metadata', params.metadata);
  return out;
}

function pushConfig(config: PushNotificationConfig, proto: boolean): Json {
  const inner = pushInner(config);
  if (!proto) return { taskId: config.taskId, pushNotificationConfig: inner };
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

/** The v0.3 JSON-RPC dialect's writers. */
export const v03Encoder: Encoder = {
  dialect: 'v03',
  message: (m) => message(m, false),
  sendParams: (p) => sendParams(p, false),
  pushConfig: (c) => pushConfig(c, false),
};

/** The v0.3 HTTP+JSON dialect's writers. */
export const v03ProtoEncoder: Encoder = {
  dialect: 'v03-proto',
  message: (m) => message(m, true),
  sendParams: (p) => sendParams(p, true),
  pushConfig: (c) => pushConfig(c, true),
};
