import { TetherError } from '../errors/tether-error.js';
import { isObject } from '../util/is-object.js';
import type { Message, PushNotificationConfig } from '../model/types.js';
import { checkDialect, type Dialect } from './dialect.js';
import { checkSendParams, type Encoder, type Json, type SendParams } from './encoder.js';
import { v03Encoder, v03ProtoEncoder } from './encode-v03.js';
import { v1Encoder } from './encode-v1.js';

// Every dialect's writers behind one function each, for the `./protocol` entry. The client does not
// come here: it imports the one version's writers its card names (transport/load-transport.ts).

const ENCODERS: Record<Dialect, Encoder> = { v1: v1Encoder, v03: v03Encoder, 'v03-proto': v03ProtoEncoder };

/** Writes a message in the given dialect. */
export function encodeMessage(message: Message, dialect: Dialect): Json {
  checkDialect(dialect, 'encodeMessage');
  return ENCODERS[dialect].message(message);
}

/** Writes SendMessage params in the given dialect; the blocking flag is always explicit. */
export function encodeSendParams(params: SendParams, dialect: Dialect): Json {
  checkSendParams(params);
  checkDialect(dialect, 'encodeMessage');
  return ENCODERS[dialect].sendParams(params);
}

/** Writes a push-config creation request body/params in the given dialect. */
export function encodePushConfig(config: PushNotificationConfig, dialect: Dialect): Json {
  if (!isObject(config) || typeof config.url !== 'string') throw new TetherError('INVALID_ARGUMENT', 'encodePushConfig: not a push config (an object with a url)');
  checkDialect(dialect, 'encodePushConfig');
  return ENCODERS[dialect].pushConfig(config);
}
