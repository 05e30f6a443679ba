import type { Message, Part, PushNotificationConfig } from '../model/types.js';
import { checkMessage, checkPart, checkSendParams, pushAuth, put, sendConfiguration, type Encoder, type Json, type SendParams } from './encoder.js';

// The v1.0 writers (ProtoJSON, the same over JSON-RPC and HTTP+JSON).

function part(part: Part): Json {
  checkPart(part);
  const out: Json = {};
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

function message(message: Message): Json {
  checkMessage(message);
  const parts = message.parts.map(part);
  const out: Json = { messageId: message.messageId };
  out['role'] = message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT';
  out['parts'] = parts;
  put(out, 'contextId', message.contextId);
  put(out, 'taskId', message.taskId);
  put(out, 'metadata', message.metadata);
  put(out, 'extensions', message.extensions);
  put(out, 'referenceTaskIds', message.referenceTaskIds);
  return out;
}

/** The push config, flat, with `taskId` when known. */
function pushConfig(config: Omit<PushNotificationConfig, 'taskId'> & { taskId?: string }): Json {
  const out: Json = {};
  put(out, 'taskId', config.taskId || undefined);
  put(out, 'id', config.id);
  out['url'] = config.url;
  put(out, 'token', config.token);
  put(out, 'authentication', pushAuth(config, true));
  return out;
}

function sendParams(params: SendParams): Json {
  checkSendParams(params);
  const configuration = sendConfiguration(params);
  configuration['returnImmediately'] = !params.blocking;
  if (params.pushNotification) configuration['taskPushNotificationConfig'] = pushConfig(params.pushNotification);
  // An int64: ProtoJSON writes it as a string.
  put(configuration, 'ifGenerationMatch', params.ifGenerationMatch?.toString());
  const out: Json = { message: message(params.message), configuration };
  put(out, 'metadata', params.metadata);
  return out;
}

/** The v1.0 dialect's writers. */
export const v1Encoder: Encoder = { dialect: 'v1', message, sendParams, pushConfig };
