// gRPC failures as Tether's typed errors. The agent's A2A errors arrive as a gRPC status whose
// `grpc-status-details-bin` trailer carries a `google.rpc.Status` with a `google.rpc.ErrorInfo`
// (`reason`, e.g. TASK_NOT_FOUND): those become the same `A2AError` subclasses as over JSON-RPC and
// HTTP+JSON. A status without details is the transport's own: UNAVAILABLE is a network failure, and so on.
import { createA2AError, redact as redactText, TetherError } from '@a2a-tether/core';
import type { ErrorContext } from '@a2a-tether/core';
import { a2aCodeForReason } from '@a2a-tether/core/protocol';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/** The gRPC status codes Tether tells apart (grpc/status.proto). */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** What grpc-js reports for a failed call. */
export interface GrpcFailure {
  code?: number | undefined;
  details?: string | undefined;
  metadata?: { get(key: string): Array<string | Buffer> } | undefined;
}

/** `google.rpc.ErrorInfo`, read from the status details. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The most of the agent's status message, and of each ErrorInfo string, an error quotes (characters). */
const MAX_QUOTED = 1024;
/** The most ErrorInfo metadata entries an error keeps. */
const MAX_INFO_ENTRIES = 32;
/** Status details longer than this (bytes) are not read. */
const MAX_STATUS_DETAILS = 64 * 1024;

/** Reads the fields of one message: `visit(field, wireType, reader)` must consume the value. */
function readFields(bytes: Uint8Array, visit: (field: number, reader: BinaryReader) => boolean): void {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited || !visit(field, reader)) reader.skip(wireType);
  }
}

/** The first `ErrorInfo` in a serialized `google.rpc.Status`, if any (malformed details give none). */
export function errorInfoOf(statusDetails: Uint8Array): ErrorInfo | undefined {
  if (statusDetails.length > MAX_STATUS_DETAILS) return undefined;
  try {
    let info: ErrorInfo | undefined;
    readFields(statusDetails, (field, reader) => {
      if (field !== 3 || info) return false; // details: repeated google.protobuf.Any
      let typeUrl = '';
      let value: Uint8Array | undefined;
      readFields(reader.bytes(), (anyField, any) => {
        if (anyField === 1) typeUrl = any.string();
        else if (anyField === 2) value = any.bytes();
        else return false;
        return true;
      });
      if (typeUrl !== ERROR_INFO_TYPE || !value) return true;
      const found: ErrorInfo = { reason: '', domain: '', metadata: {} };
      readFields(value, (infoField, r) => {
        if (infoField === 1) found.reason = r.string();
        else if (infoField === 2) found.domain = r.string();
        else if (infoField === 3) {
          let key = '';
          let text = '';
          readFields(r.bytes(), (entryField, e) => {
            if (entryField === 1) key = e.string();
            else if (entryField === 2) text = e.string();
            else return false;
            return true;
          });
          if (Object.keys(found.metadata).length < MAX_INFO_ENTRIES) found.metadata[key] = text;
        } else return false;
        return true;
      });
      info = found;
      return true;
    });
    return info;
  } catch {
    return undefined;
  }
}

/** How a failed call ended, for {@link grpcError}. */
export interface GrpcErrorHow {
  /** The caller's signal ended it (→ `ABORTED`). */
  aborted?: boolean | undefined;
  /** It ended a stream. */
  inStream?: boolean | undefined;
  /** Redacts our credentials from what the agent sent (`BindingContext.redact`); default: credential-like values only. */
  redact?: ((text: string) => string) | undefined;
}

/**
 * The typed error of a failed gRPC call. What it quotes of the agent's status — its message, the ErrorInfo —
 * has our credentials redacted and is bounded; the raw status (with every trailer) is not kept as `cause`.
 */
export function grpcError(failure: GrpcFailure, where: ErrorContext, how: GrpcErrorHow = {}): TetherError {
  const code = failure.code ?? GRPC_STATUS.UNKNOWN;
  const redact = how.redact ?? ((text: string) => redactText(text));
  // Redacted whole, then cut: a credential across the cut would otherwise leave a part of itself.
  const quote = (text: string): string => {
    const clean = redact(text);
    return clean.length > MAX_QUOTED ? `${clean.slice(0, MAX_QUOTED)}… (${clean.length} characters)` : clean;
  };
  const message = quote(String(failure.details || `gRPC status ${code}`));
  if (how.aborted) return new TetherError('ABORTED', 'the call was aborted', where);
  const details = failure.metadata?.get('grpc-status-details-bin')[0];
  const info = details instanceof Uint8Array ? errorInfoOf(details) : undefined;
  const a2aCode = info ? a2aCodeForReason(info.reason) : undefined;
  if (info && a2aCode !== undefined) {
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(info.metadata)) metadata[quote(key)] = quote(value);
    const data = { '@type': ERROR_INFO_TYPE, reason: quote(info.reason), domain: quote(info.domain), metadata };
    return createA2AError(a2aCode, message, { ...where, reason: data.reason, data: [data], inStream: how.inStream });
  }
  switch (code) {
    case GRPC_STATUS.UNAVAILABLE:
    case GRPC_STATUS.INTERNAL:
    case GRPC_STATUS.CANCELLED:
      return new TetherError('NETWORK', `gRPC ${code}: ${message}`, { ...where, isRetryable: true });
    case GRPC_STATUS.DEADLINE_EXCEEDED:
      return new TetherError('TIMEOUT', `gRPC deadline exceeded: ${message}`, where);
    case GRPC_STATUS.UNAUTHENTICATED:
    case GRPC_STATUS.PERMISSION_DENIED:
      return new TetherError('UNAUTHENTICATED', `gRPC ${code}: ${message}`, where);
    case GRPC_STATUS.UNIMPLEMENTED:
      return new TetherError('UNSUPPORTED_OPERATION', `the agent's gRPC service does not implement this call: ${message}`, { ...where, maybeDelivered: false });
    case GRPC_STATUS.RESOURCE_EXHAUSTED:
      return new TetherError('HTTP_STATUS', `gRPC resource exhausted: ${message}`, { ...where, isRetryable: true });
    default:
      return createA2AError(-32603, message, { ...where, inStream: how.inStream });
  }
}
