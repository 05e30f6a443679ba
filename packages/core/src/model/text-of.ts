import type { Message, Part } from './types.js';

/**
 * What {@link textOf} reads: anything with parts (a `Message`, an `Artifact`, an artifact event), or
 * anything with artifacts and a status message (a `Task`, a handle's `view`).
 */
export type TextSource =
  | { readonly parts: readonly Part[] }
  | {
      readonly artifacts: ReadonlyArray<{ readonly parts: readonly Part[] }>;
      readonly status?: { readonly message?: Message | undefined } | undefined;
      readonly statusMessage?: Message | undefined;
    };

function partsText(parts: readonly Part[]): string {
  let text = '';
  for (const part of parts) if (part.kind === 'text') text += part.text;
  return text;
}

/**
 * The text of a task, an artifact or a message: its text parts joined as they are (a streamed artifact's
 * chunks are its parts, so the text comes back whole); file and data parts are left out.
 *
 * - A message, an artifact (or an `artifact` event, a `status` event's `message`): its text parts.
 * - A task (`Task`, or `handle.view`): the text of its artifacts, one artifact per line (`\n` between
 *   them; artifacts without text are skipped) — or, when they hold no text, its status message's (a
 *   pause's question, a failure's reason).
 * - `undefined` (an absent message): `''`.
 *
 * @example
 * ```ts
 * const task = await client.start('Summarize the report');
 * console.log(textOf(await task.done()));
 * ```
 */
export function textOf(source: TextSource | undefined): string {
  if (source === undefined) return '';
  if ('parts' in source) return partsText(source.parts);
  const texts: string[] = [];
  for (const artifact of source.artifacts) {
    const text = partsText(artifact.parts);
    if (text !== '') texts.push(text);
  }
  if (texts.length > 0) return texts.join('\n');
  const message = source.status?.message ?? source.statusMessage;
  return message ? partsText(message.parts) : '';
}
