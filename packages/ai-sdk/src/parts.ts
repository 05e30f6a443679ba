import type { Part } from '@a2a-tether/core';
import type { UIMessage } from 'ai';

/** The text parts of a message or artifact, joined. */
export function textOf(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if (part.kind === 'text') text += part.text;
  return text;
}

/**
 * A UI message's content as A2A parts: text parts as text, file parts as files by URL (a data URL's
 * bytes inline). Other parts (reasoning, tools, data) are the UI's own and are not sent.
 */
export function partsOf(message: UIMessage): Part[] {
  const parts: Part[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') parts.push({ kind: 'text', text: part.text });
    else if (part.type === 'file') parts.push(filePart(part.url, part.mediaType, part.filename));
  }
  return parts;
}

function filePart(url: string, mediaType: string, filename: string | undefined): Part {
  const named = filename === undefined ? {} : { filename };
  const inline = /^data:([^;,]*)(;[^,]*)?;base64,(.*)$/s.exec(url);
  if (inline) return { kind: 'file', bytes: inline[3] ?? '', mediaType: inline[1] || mediaType, ...named };
  return { kind: 'file', uri: url, mediaType, ...named };
}
