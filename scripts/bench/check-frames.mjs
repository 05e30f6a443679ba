// Checks that the firehose's frames have the shapes the official servers write: for each kind of
// event, the keys (in order, nested; an array by its first element) and the type of every value are
// compared with the captured frames in packages/core/test/fixtures/official/. Values may differ.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { buildVersion, fill, requestValues } from './firehose-frames.mjs';

const fixtures = new URL('../../packages/core/test/fixtures/official/', import.meta.url);

function shape(value) {
  if (Array.isArray(value)) return value.length > 0 ? [shape(value[0])] : [];
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shape(v)]));
  return typeof value;
}

function sseEvents(text) {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)));
}

function fixture(name) {
  return JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')).response.body;
}

/** Compares [what, official frame, firehose frame] pairs: { checked, mismatches: [{ what, official, firehose }] }. */
export function checkFrames() {
  const values = requestValues({ rpcId: 4, taskId: 'a', contextId: 'c', messageId: 'm', text: 'firehose' });
  const pairs = [];
  for (const [version, stream, final] of [
    ['1.0', 'v1-jsonrpc-stream.json', ['v1-jsonrpc-get.json', (body) => body]],
    ['0.3', 'v03-jsonrpc-stream.json', ['v03-jsonrpc-subscribe-finished.json', (body) => sseEvents(body)[0]]],
  ]) {
    const built = buildVersion(version, { events: 12, chunkChars: 20 });
    const ours = sseEvents(Buffer.concat([fill(built.snapshot, values), fill(built.bulk, values)]).toString('utf8'));
    const theirs = sseEvents(fixture(stream));
    // Official: snapshot, status, first chunk, status, middle chunk, last chunk, completed.
    // Ours: snapshot, status (update 0), chunks 0…8 (status at update 10), last chunk, completed.
    const last = ours.length - 1;
    pairs.push(
      [`v${version} snapshot`, theirs[0], ours[0]],
      [`v${version} working status with message`, theirs[1], ours[1]],
      [`v${version} first chunk`, theirs[2], ours[2]],
      [`v${version} appended chunk`, theirs[4], ours[3]],
      [`v${version} last chunk`, theirs[5], ours[last - 1]],
      [`v${version} completed`, theirs[6], ours[last]],
      [`v${version} final task`, final[1](fixture(final[0])), JSON.parse(fill(version === '1.0' ? built.finalTask() : built.finalSnapshot(), values).toString('utf8').replace(/^data: /, ''))],
    );
  }
  const mismatches = pairs
    .map(([what, official, firehose]) => ({ what, official: JSON.stringify(shape(official)), firehose: JSON.stringify(shape(firehose)) }))
    .filter((pair) => pair.official !== pair.firehose);
  return { checked: pairs.length, mismatches };
}
