/** JSON-RPC / A2A error codes the fake agent answers with. */
export const A2A_ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  invalidAgentResponse: -32006,
  extendedAgentCardNotConfigured: -32007,
  extensionSupportRequired: -32008,
  versionNotSupported: -32009,
  /** A2A v1.1 draft: `ifGenerationMatch` does not match the task's generation. */
  taskGenerationMismatch: -32010,
} as const;

interface CodeInfo {
  /** google.rpc.ErrorInfo reason; only A2A-specific codes have one. */
  reason?: string;
  /** HTTP status on v1 HTTP+JSON (the v1.0.1 column of the wire notes). */
  v1Http: number;
  /** google.rpc.Code name on v1 HTTP+JSON. */
  v1Status: string;
  /** HTTP status the official v0.3 JS server uses on HTTP+JSON. */
  v03Http: number;
}

const CODE_INFO: ReadonlyMap<number, CodeInfo> = new Map<number, CodeInfo>([
  [-32700, { v1Http: 400, v1Status: 'INVALID_ARGUMENT', v03Http: 400 }],
  [-32600, { v1Http: 400, v1Status: 'INVALID_ARGUMENT', v03Http: 400 }],
  [-32601, { v1Http: 404, v1Status: 'NOT_FOUND', v03Http: 404 }],
  [-32602, { v1Http: 400, v1Status: 'INVALID_ARGUMENT', v03Http: 400 }],
  [-32603, { v1Http: 500, v1Status: 'INTERNAL', v03Http: 500 }],
  [-32001, { reason: 'TASK_NOT_FOUND', v1Http: 404, v1Status: 'NOT_FOUND', v03Http: 404 }],
  [-32002, { reason: 'TASK_NOT_CANCELABLE', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 409 }],
  [
    -32003,
    { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 400 },
  ],
  [-32004, { reason: 'UNSUPPORTED_OPERATION', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 400 }],
  [-32005, { reason: 'CONTENT_TYPE_NOT_SUPPORTED', v1Http: 400, v1Status: 'INVALID_ARGUMENT', v03Http: 500 }],
  [-32006, { reason: 'INVALID_AGENT_RESPONSE', v1Http: 500, v1Status: 'INTERNAL', v03Http: 500 }],
  [
    -32007,
    { reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 500 },
  ],
  [-32008, { reason: 'EXTENSION_SUPPORT_REQUIRED', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 500 }],
  [-32009, { reason: 'VERSION_NOT_SUPPORTED', v1Http: 400, v1Status: 'FAILED_PRECONDITION', v03Http: 500 }],
  // v1.1 draft: 409 Conflict (an earlier draft said 412), gRPC ABORTED.
  [-32010, { reason: 'TASK_GENERATION_MISMATCH', v1Http: 409, v1Status: 'ABORTED', v03Http: 409 }],
]);

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const ERROR_DOMAIN = 'a2a-protocol.org';

/** An error the agent answers with; the bindings turn it into each dialect's error body. */
export class AgentError extends Error {
  override readonly name = 'AgentError';

  constructor(
    readonly code: number,
    message: string,
    /** The `ErrorInfo` metadata of the v1 error bodies (string values, as google.rpc.ErrorInfo has them). */
    readonly metadata?: Record<string, string>,
  ) {
    super(message);
  }
}

export const taskNotFound = (id: string): AgentError =>
  new AgentError(A2A_ERROR_CODES.taskNotFound, `Task not found: ${id}`);

export const invalidParams = (message: string): AgentError =>
  new AgentError(A2A_ERROR_CODES.invalidParams, message);

export const unsupportedOperation = (message: string): AgentError =>
  new AgentError(A2A_ERROR_CODES.unsupportedOperation, message);

/** Coerce anything thrown by a handler into an AgentError (unexpected throws become -32603). */
export function toAgentError(error: unknown): AgentError {
  if (error instanceof AgentError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AgentError(A2A_ERROR_CODES.internalError, message);
}

function errorInfo(error: AgentError): Record<string, unknown>[] {
  const reason = CODE_INFO.get(error.code)?.reason;
  if (reason === undefined) return [];
  const info: Record<string, unknown> = { '@type': ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN };
  if (error.metadata !== undefined) info['metadata'] = error.metadata;
  return [info];
}

/** JSON-RPC `error` member: v1 adds `data: [ErrorInfo]` for A2A codes, v0.3 has no `data`. */
export function jsonRpcErrorObject(error: AgentError, version: '1.0' | '0.3'): Record<string, unknown> {
  const details = version === '1.0' ? errorInfo(error) : [];
  return details.length > 0
    ? { code: error.code, message: error.message, data: details }
    : { code: error.code, message: error.message };
}

/** The JSON-RPC error envelope. */
export function jsonRpcErrorEnvelope(
  id: string | number | null,
  error: AgentError,
  version: '1.0' | '0.3',
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: jsonRpcErrorObject(error, version) };
}

/** v1 HTTP+JSON: HTTP status and google.rpc.Status-style body `{error:{code,status,message,details}}`. */
export function v1RestError(error: AgentError): { status: number; body: Record<string, unknown> } {
  const info = CODE_INFO.get(error.code) ?? { v1Http: 500, v1Status: 'INTERNAL', v03Http: 500 };
  return {
    status: info.v1Http,
    body: {
      error: { code: info.v1Http, status: info.v1Status, message: error.message, details: errorInfo(error) },
    },
  };
}

/** v0.3 HTTP+JSON: the official 0.3 server's `{code, message}` with its status mapping. */
export function v03RestError(error: AgentError): { status: number; body: Record<string, unknown> } {
  const status = CODE_INFO.get(error.code)?.v03Http ?? 500;
  return { status, body: { code: error.code, message: error.message } };
}
