import type { TaskSnapshot, TestArtifact, TestMessage, TestPushConfig, TestTaskStatus } from './model.js';

/** A push config as a request carries it, before the agent assigns ids. */
export interface PushConfigInput {
  id?: string | undefined;
  url: string;
  token?: string | undefined;
  authentication?: { schemes: string[]; credentials?: string | undefined } | undefined;
}

/** SendMessage / message/send params, version-neutral. */
export interface SendParams {
  message: TestMessage;
  /** v1 `!returnImmediately`; v0.3 `blocking` (missing counts as true). */
  blocking: boolean;
  historyLength?: number | undefined;
  pushConfig?: PushConfigInput | undefined;
  /** v1.1 draft (v1.0 dialect): the generation the task must be at. */
  ifGenerationMatch?: number | undefined;
}

/** What a send answers with. */
export type SendResult = { kind: 'message'; message: TestMessage } | { kind: 'task'; task: TaskSnapshot };

/** One SSE payload, version-neutral. `final` only matters to v0.3 dialects. */
export type StreamItem =
  | { kind: 'message'; message: TestMessage }
  | { kind: 'task'; task: TaskSnapshot }
  | { kind: 'status'; taskId: string; contextId: string; status: TestTaskStatus; final: boolean; generation?: number | undefined }
  | {
      kind: 'artifact';
      taskId: string;
      contextId: string;
      artifact: TestArtifact;
      append: boolean;
      lastChunk: boolean;
      /** v1.1 draft: the task's generation after this change (v1.0 dialect only). */
      generation?: number | undefined;
    };

/** Maps the neutral model to one wire dialect and back. */
export interface WireCodec {
  readonly version: '1.0' | '0.3';
  /** Decode a SendMessageRequest / MessageSendParams body. Throws InvalidParams. */
  decodeSendParams(params: unknown): SendParams;
  encodeSendResult(result: SendResult): unknown;
  encodeTask(task: TaskSnapshot): unknown;
  encodeStreamItem(item: StreamItem): unknown;
  /** Decode the inner push config object (v1 flat config; v0.3 `pushNotificationConfig`). */
  decodePushConfig(value: unknown, where: string): PushConfigInput;
  /** Encode a stored config as this dialect's create/get result. */
  encodePushConfig(config: TestPushConfig): unknown;
}
