import { TetherError, type ErrorContext } from '../errors/tether-error.js';

/**
 * Reads a body as text, failing with INVALID_RESPONSE once it passes `maxBytes` (so a
 * misbehaving agent cannot make us buffer without bound). Network failures mid-body become NETWORK.
 */
export async function readText(response: Response, maxBytes: number, context: ErrorContext): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new TetherError('INVALID_RESPONSE', `response body exceeds ${maxBytes} bytes`, context);
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    if (error instanceof TetherError) throw error;
    throw new TetherError('NETWORK', `connection lost while reading the response: ${describeCause(error)}`, {
      ...context,
      cause: error,
    });
  }
  return text + decoder.decode();
}

/** A short, single-line excerpt of a body for error messages (HTML tags stripped). */
export function snippet(text: string, max = 200): string {
  const flat = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The most specific description of a low-level failure (undici puts the errno in `cause`). */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current === 'object') {
      const record = current as { code?: unknown; message?: unknown; cause?: unknown };
      const text = [record.code, record.message].filter((v) => typeof v === 'string' && v).join(' ');
      if (text && !parts.includes(text)) parts.push(text);
      current = record.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(': ') || 'unknown error';
}

/** The errno-like code of a low-level failure, if any (`ECONNREFUSED`, `UND_ERR_SOCKET` …). */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
