import { TetherError, type ErrorContext } from './tether-error.js';

/** Options of {@link A2AError}. */
export interface A2AErrorOptions extends ErrorContext {
  /** `error.data` (JSON-RPC) or `details` (HTTP+JSON) exactly as the agent sent them. */
  data?: unknown;
  /** `google.rpc.ErrorInfo.reason`, e.g. `TASK_NOT_FOUND`, when the agent sent one. */
  reason?: string | undefined;
  /** Whether it arrived inside an SSE stream rather than as a unary answer. */
  inStream?: boolean | undefined;
  cause?: unknown;
  /** `false` when the agent refused the request before acting on it (see `TetherError.maybeDelivered`). */
  maybeDelivered?: boolean | undefined;
}

/**
 * An error the agent reported through the protocol (a JSON-RPC `error`, an HTTP+JSON error body,
 * or an `event: error` frame in a stream). The same class is thrown whichever way it arrived.
 * Each A2A error code has its own subclass; unknown codes stay plain `A2AError`.
 */
export class A2AError extends TetherError {
  static override readonly errorName: string = 'A2AError';
  /** The JSON-RPC / A2A error code, e.g. `-32001`. */
  static readonly a2aCode: number | undefined = undefined;

  /** The JSON-RPC / A2A error code, e.g. `-32001`. */
  readonly a2aCode: number;
  readonly data: unknown;
  readonly reason: string | undefined;
  readonly inStream: boolean;
  /** The agent's own message. */
  readonly agentMessage: string;

  constructor(a2aCode: number, agentMessage: string, options: A2AErrorOptions = {}) {
    const label = (new.target as typeof A2AError).errorName;
    super('A2A_ERROR', `${label} ${a2aCode}${options.inStream ? ' (in stream)' : ''}: ${agentMessage}`, {
      // -32010 (v1.1 draft, a generation mismatch): the agent refused the request before acting on it.
      maybeDelivered: a2aCode !== -32010,
      ...options,
      isRetryable: false,
    });
    this.a2aCode = a2aCode;
    this.agentMessage = agentMessage;
    this.data = options.data;
    this.reason = options.reason;
    this.inStream = options.inStream ?? false;
  }
}

/** -32700: the agent could not parse the request JSON. */
export class JSONParseError extends A2AError {
  static override readonly errorName: string = 'JSONParseError';
  static override readonly a2aCode = -32700;
}
/** -32600: the request is not a valid JSON-RPC request. */
export class InvalidRequestError extends A2AError {
  static override readonly errorName: string = 'InvalidRequestError';
  static override readonly a2aCode = -32600;
}
/** -32601: the agent does not know the method (e.g. `ListTasks` on an older agent). */
export class MethodNotFoundError extends A2AError {
  static override readonly errorName: string = 'MethodNotFoundError';
  static override readonly a2aCode = -32601;
}
/** -32602: the request parameters are invalid. */
export class InvalidParamsError extends A2AError {
  static override readonly errorName: string = 'InvalidParamsError';
  static override readonly a2aCode = -32602;
}
/** -32603: the agent failed internally. */
export class InternalError extends A2AError {
  static override readonly errorName: string = 'InternalError';
  static override readonly a2aCode = -32603;
}
/** -32001: no such task (never existed, expired, or not visible to this caller). */
export class TaskNotFoundError extends A2AError {
  static override readonly errorName: string = 'TaskNotFoundError';
  static override readonly a2aCode = -32001;
}
/** -32002: the task cannot be canceled (typically: it already finished). */
export class TaskNotCancelableError extends A2AError {
  static override readonly errorName: string = 'TaskNotCancelableError';
  static override readonly a2aCode = -32002;
}
/** -32003: the agent does not support push notifications. */
export class PushNotificationNotSupportedError extends A2AError {
  static override readonly errorName: string = 'PushNotificationNotSupportedError';
  static override readonly a2aCode = -32003;
}
/** -32004: the operation is not supported (e.g. subscribing to a finished task, streaming on a non-streaming agent). */
export class UnsupportedOperationError extends A2AError {
  static override readonly errorName: string = 'UnsupportedOperationError';
  static override readonly a2aCode = -32004;
}
/** -32005: the agent does not accept the content type of a part. */
export class ContentTypeNotSupportedError extends A2AError {
  static override readonly errorName: string = 'ContentTypeNotSupportedError';
  static override readonly a2aCode = -32005;
}
/** -32006: the agent produced an invalid response (reported by the agent itself). */
export class InvalidAgentResponseError extends A2AError {
  static override readonly errorName: string = 'InvalidAgentResponseError';
  static override readonly a2aCode = -32006;
}
/** -32007: the card declares an extended card but none is configured. */
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  static override readonly errorName: string = 'ExtendedAgentCardNotConfiguredError';
  static override readonly a2aCode = -32007;
}
/** -32008: the agent requires an extension the client did not activate (v1.0). */
export class ExtensionSupportRequiredError extends A2AError {
  static override readonly errorName: string = 'ExtensionSupportRequiredError';
  static override readonly a2aCode = -32008;
}
/** -32009: the agent does not support the requested protocol version (v1.0). */
export class VersionNotSupportedError extends A2AError {
  static override readonly errorName: string = 'VersionNotSupportedError';
  static override readonly a2aCode = -32009;
}

const BY_CODE = new Map<number, typeof A2AError>(
  [
    JSONParseError,
    InvalidRequestError,
    MethodNotFoundError,
    InvalidParamsError,
    InternalError,
    TaskNotFoundError,
    TaskNotCancelableError,
    PushNotificationNotSupportedError,
    UnsupportedOperationError,
    ContentTypeNotSupportedError,
    InvalidAgentResponseError,
    ExtendedAgentCardNotConfiguredError,
    ExtensionSupportRequiredError,
    VersionNotSupportedError,
  ].map((cls) => [cls.a2aCode as number, cls]),
);

/** `google.rpc.ErrorInfo.reason` → A2A code (v1.0 HTTP+JSON errors share HTTP statuses, so the reason decides). */
const BY_REASON = new Map<string, number>([
  ['TASK_NOT_FOUND', -32001],
  ['TASK_NOT_CANCELABLE', -32002],
  ['PUSH_NOTIFICATION_NOT_SUPPORTED', -32003],
  ['UNSUPPORTED_OPERATION', -32004],
  ['CONTENT_TYPE_NOT_SUPPORTED', -32005],
  ['INVALID_AGENT_RESPONSE', -32006],
  ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', -32007],
  ['AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED', -32007],
  ['EXTENSION_SUPPORT_REQUIRED', -32008],
  ['VERSION_NOT_SUPPORTED', -32009],
  // A2A v1.1 draft (TaskGenerationMismatchError): no class of its own, see generation-mismatch.ts.
  ['TASK_GENERATION_MISMATCH', -32010],
  ['INVALID_PARAMS', -32602],
  ['INVALID_REQUEST', -32600],
  ['METHOD_NOT_FOUND', -32601],
  ['INTERNAL', -32603],
  ['JSON_PARSE', -32700],
]);

/** The A2A code for an `ErrorInfo.reason`, if it is one the protocol defines. */
export function a2aCodeForReason(reason: string): number | undefined {
  return BY_REASON.get(reason);
}

/** Builds the right {@link A2AError} subclass for a code. */
export function createA2AError(a2aCode: number, agentMessage: string, options: A2AErrorOptions = {}): A2AError {
  const cls = BY_CODE.get(a2aCode) ?? A2AError;
  return new cls(a2aCode, agentMessage, options);
}
