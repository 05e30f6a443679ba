import type { Message, Metadata, Part, PushNotificationConfig } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';
import type { Dialect } from './dialect.js';
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
  /** A2A v1.1 draft: the generation the task must still be at (v1.0 writers only). */
  ifGenerationMatch?: number | undefined;
}

export type Json = Record<string, unknown>;

/**
 * The writer of one dialect. Each version's writers are a module of their own (`encode-v1.ts`,
 * `encode-v03.ts`) that the client imports when a card names that version, so a bundle splits them.
 */
export interface Encoder {
  readonly dialect: Dialect;
  message(message: Message): Json;
  sendParams(params: SendParams): Json;
  pushConfig(config: PushNotificationConfig): Json;
}

export function put(target: Json, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

const PART_KINDS: ReadonlySet<unknown> = new Set(['text', 'data', 'file']);

/** A part of another kind would be written as `{}`: the agent would get an empty part. */
export function checkPart(part: Part): void {
  if (!isObject(part) || !PART_KINDS.has(part.kind)) throw new TetherError('INVALID_ARGUMENT', 'a part is of kind text, data or file');
}

export function checkMessage(message: Message): void {
  if (!isObject(message) || !Array.isArray(message.parts)) throw new TetherError('INVALID_ARGUMENT', 'encodeMessage: no parts list');
}

export function checkSendParams(params: SendParams): void {
  if (!isObject(params)) throw new TetherError('INVALID_ARGUMENT', 'encodeSendParams: not an object');
}

/** `acceptedOutputModes` and `historyLength`, the part of a send's configuration every dialect shares. */
export function sendConfiguration(params: SendParams): Json {
  const configuration: Json = {};
  put(configuration, 'acceptedOutputModes', params.acceptedOutputModes);
  put(configuration, 'historyLength', params.historyLength);
  return configuration;
}

/** The push authentication of v0.3 (a list of schemes); v1.0 names one scheme. */
export function pushAuth(config: Omit<PushNotificationConfig, 'taskId'>, v1: boolean): Json | undefined {
  const auth = config.authentication;
  if (!auth) return undefined;
  const out: Json = v1 ? { scheme: auth.schemes[0] ?? 'Bearer' } : { schemes: auth.schemes };
  put(out, 'credentials', auth.credentials);
  return out;
}
