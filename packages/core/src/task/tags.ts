import { TetherError } from '../errors/tether-error.js';

/** At most this many tags on a task (`tags` of `start()`). */
const MAX_TAGS = 16;
/** At most this many characters in a tag's value (`tags` of `start()`). */
const MAX_TAG_LENGTH = 1024;

/** Tags are the app's labels in the record: strings, few and short (they are in every tab's task list). */
export function checkTags(tags: Readonly<Record<string, string>> | undefined): void {
  if (tags === undefined) return;
  const entries = typeof tags === 'object' && tags !== null && !Array.isArray(tags) ? Object.entries(tags) : [];
  const bad = ([key, value]: [string, unknown]): boolean => !key || key.length > 64 || typeof value !== 'string' || value.length > MAX_TAG_LENGTH;
  if (entries.length === 0 ? typeof tags !== 'object' || Array.isArray(tags) : entries.length > MAX_TAGS || entries.some(bad)) {
    throw new TetherError('INVALID_ARGUMENT', `tags: at most ${MAX_TAGS}, each a key of 1 to 64 characters and a string of at most ${MAX_TAG_LENGTH}`, { maybeDelivered: false });
  }
}
