import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request body: its text, and the parsed JSON when it parsed. */
export interface RequestBody {
  text: string;
  json: unknown;
  /** Non-empty and not valid JSON. */
  invalidJson: boolean;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Thrown by {@link readBody} when the body is (or announces, by Content-Length, to be) over its limit. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`Request body over ${maxBytes} bytes`);
  }
}

/** Read the whole request body; at most `maxBytes` (default 16 MiB), else {@link BodyTooLargeError}. */
export async function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<RequestBody> {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw new BodyTooLargeError(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { text, json: undefined, invalidJson: false };
  try {
    return { text, json: JSON.parse(text) as unknown, invalidJson: false };
  } catch {
    return { text, json: undefined, invalidJson: true };
  }
}

/** Send a JSON body (or an empty body for 204/304). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
  headers: Record<string, string | string[]> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
