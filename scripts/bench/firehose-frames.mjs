// The firehose's wire frames, shaped exactly as the official servers write them (compare with
// packages/core/test/fixtures/official/v1-jsonrpc-stream.json and v03-jsonrpc-stream.json):
//   v1.0: @a2a-js/sdk 1.3.0, ProtoJSON (`{"statusUpdate":…}`, `TASK_STATE_*`, `ROLE_*`, defaults
//         omitted: the first chunk has no `append`, only the last has `lastChunk`);
//   v0.3: @a2a-js/sdk 0.3.14 (`"kind":"status-update"`, `"final":false|true`, `append`/`lastChunk`
//         always present).
// One task = a Task snapshot (submitted, the user message in history), then `events` updates — every
// STATUS_EVERY-th a `working` status with an agent message, the rest appended chunks of one artifact
// `result` — then the terminal `completed` status.
//
// The body is built ONCE per version as a template: one Buffer of every literal byte plus the offsets
// where per-request values go (the JSON-RPC id, which every client checks, and the task and context
// ids, fresh per task). Serving a request copies template slices and those values into large Buffers;
// no JSON is built per event while serving.
import { Buffer } from 'node:buffer';

export const STATUS_EVERY = 10;
const BASE_TIME = Date.parse('2026-12-01T09:00:00.000Z');

// Placeholders, replaced per request. Kinds index the `values` array given to stitch(): the JSON-RPC
// id (as JSON), the task id, the context id, the user message's id and its text (JSON-escaped).
const MARK = { RPC: '\uE000R\uE000', TASK: '\uE000T\uE000', CTX: '\uE000C\uE000', MSG: '\uE000M\uE000', TEXT: '\uE000X\uE000' };
const KIND = { [MARK.RPC]: 0, [MARK.TASK]: 1, [MARK.CTX]: 2, [MARK.MSG]: 3, [MARK.TEXT]: 4 };
const MARK_RE = /\uE000[RTCMX]\uE000/g;
const USER = { messageId: MARK.MSG, text: MARK.TEXT };

const WORDS = (
  'the agent streams its answer in small pieces while it works through the request and each piece ' +
  'carries a few words of prose, a number like 42 or 3.14, some punctuation; and now and then a ' +
  'non-ASCII character — café, naïve, 東京, ✓ — as real model output does'
).split(' ');

/** Deterministic text of about `chars` characters (UTF-16 units), chunk `i` of the artifact. */
function chunkText(i, chars) {
  let text = '';
  for (let w = i * 7; text.length < chars; w++) text += `${WORDS[w % WORDS.length]} `;
  return text;
}

/** A deterministic UUID-shaped id (messageIds of agent status messages). */
function fakeUuid(n) {
  const hex = n.toString(16).padStart(12, '0');
  return `6f1c0a52-9d3e-4b7a-8c21-${hex}`;
}

const iso = (ms) => new Date(BASE_TIME + ms).toISOString();

/**
 * What one firehose task is made of, independent of the wire version: the sequence of updates.
 * `chunkChars` is the text length of one artifact chunk.
 */
export function planTask({ events, chunkChars }) {
  const updates = [];
  let chunk = 0;
  for (let i = 0; i < events; i++) {
    const last = i === events - 1;
    if (i % STATUS_EVERY === 0 && !last) {
      updates.push({ kind: 'status', messageId: fakeUuid(i), text: `step ${i / STATUS_EVERY}: working on part ${i}`, timestamp: iso(i) });
    } else {
      updates.push({ kind: 'chunk', index: chunk, text: chunkText(chunk, chunkChars), append: chunk > 0, lastChunk: last });
      chunk++;
    }
  }
  return { updates, chunks: chunk, completedAt: iso(events), submittedAt: iso(-1) };
}

const V1 = {
  status(u) {
    return {
      statusUpdate: {
        taskId: MARK.TASK,
        contextId: MARK.CTX,
        status: {
          state: 'TASK_STATE_WORKING',
          message: { messageId: u.messageId, contextId: MARK.CTX, taskId: MARK.TASK, role: 'ROLE_AGENT', parts: [{ text: u.text, mediaType: 'text/plain' }] },
          timestamp: u.timestamp,
        },
      },
    };
  },
  chunk(u) {
    const update = { taskId: MARK.TASK, contextId: MARK.CTX, artifact: { artifactId: 'result', name: 'result', parts: [{ text: u.text, mediaType: 'text/plain' }] } };
    if (u.append) update.append = true;
    if (u.lastChunk) update.lastChunk = true;
    return { artifactUpdate: update };
  },
  completed(plan) {
    return { statusUpdate: { taskId: MARK.TASK, contextId: MARK.CTX, status: { state: 'TASK_STATE_COMPLETED', timestamp: plan.completedAt } } };
  },
  userMessage(message) {
    return { messageId: message.messageId, contextId: MARK.CTX, taskId: MARK.TASK, role: 'ROLE_USER', parts: [{ text: message.text }] };
  },
  /** The snapshot a send's stream starts with (state submitted). */
  snapshot(plan, message) {
    return { task: { id: MARK.TASK, contextId: MARK.CTX, status: { state: 'TASK_STATE_SUBMITTED', timestamp: plan.submittedAt }, history: [this.userMessage(message)] } };
  },
  /** The task as GetTask answers once it is done: every chunk as a part, agent messages in history. */
  finalTask(plan, message) {
    const parts = [];
    const history = [this.userMessage(message)];
    for (const u of plan.updates) {
      if (u.kind === 'chunk') parts.push({ text: u.text, mediaType: 'text/plain' });
      else history.push({ messageId: u.messageId, contextId: MARK.CTX, taskId: MARK.TASK, role: 'ROLE_AGENT', parts: [{ text: u.text, mediaType: 'text/plain' }] });
    }
    return {
      id: MARK.TASK,
      contextId: MARK.CTX,
      status: { state: 'TASK_STATE_COMPLETED', timestamp: plan.completedAt },
      artifacts: [{ artifactId: 'result', name: 'result', parts }],
      history,
    };
  },
};

const V03 = {
  agentMessage(u) {
    return { kind: 'message', messageId: u.messageId, role: 'agent', parts: [{ kind: 'text', text: u.text }], contextId: MARK.CTX, taskId: MARK.TASK };
  },
  status(u) {
    return { kind: 'status-update', taskId: MARK.TASK, contextId: MARK.CTX, status: { state: 'working', timestamp: u.timestamp, message: this.agentMessage(u) }, final: false };
  },
  chunk(u) {
    return {
      kind: 'artifact-update',
      taskId: MARK.TASK,
      contextId: MARK.CTX,
      artifact: { artifactId: 'result', name: 'result', parts: [{ kind: 'text', text: u.text }] },
      append: u.append,
      lastChunk: u.lastChunk,
    };
  },
  completed(plan) {
    return { kind: 'status-update', taskId: MARK.TASK, contextId: MARK.CTX, status: { state: 'completed', timestamp: plan.completedAt }, final: true };
  },
  userMessage(message) {
    return { kind: 'message', messageId: message.messageId, role: 'user', parts: [{ kind: 'text', text: message.text }], contextId: MARK.CTX, taskId: MARK.TASK };
  },
  snapshot(plan, message) {
    return { kind: 'task', id: MARK.TASK, contextId: MARK.CTX, status: { state: 'submitted', timestamp: plan.submittedAt }, history: [this.userMessage(message)], artifacts: [] };
  },
  finalTask(plan, message) {
    const parts = [];
    const history = [this.userMessage(message)];
    for (const u of plan.updates) {
      if (u.kind === 'chunk') parts.push({ kind: 'text', text: u.text });
      else history.push(this.agentMessage(u));
    }
    return {
      kind: 'task',
      id: MARK.TASK,
      contextId: MARK.CTX,
      status: { state: 'completed', timestamp: plan.completedAt },
      history,
      artifacts: [{ artifactId: 'result', name: 'result', parts }],
    };
  },
};

export const DIALECTS = { '1.0': V1, '0.3': V03 };

/** `data: {"jsonrpc":"2.0","id":<RPC>,"result":…}\n\n`, as both official servers frame it. */
export function sseFrame(result) {
  return `data: {"jsonrpc":"2.0","id":${MARK.RPC},"result":${JSON.stringify(result)}}\n\n`;
}

/** `{"jsonrpc":"2.0","id":<RPC>,"result":…}` for a unary answer. */
export function rpcResult(result) {
  return `{"jsonrpc":"2.0","id":${MARK.RPC},"result":${JSON.stringify(result)}}`;
}

/** A compiled template: literal bytes plus where each per-request value goes. */
export function compile(text) {
  const literal = [];
  const offsets = [];
  const kinds = [];
  let from = 0;
  let length = 0;
  for (const match of text.matchAll(MARK_RE)) {
    const piece = text.slice(from, match.index);
    literal.push(piece);
    length += Buffer.byteLength(piece);
    offsets.push(length);
    kinds.push(KIND[match[0]]);
    from = match.index + match[0].length;
  }
  literal.push(text.slice(from));
  const bytes = Buffer.from(literal.join(''));
  return { bytes, offsets: Int32Array.from(offsets), kinds: Uint8Array.from(kinds) };
}

/**
 * Yields the template with `values` ([rpcId, taskId, contextId] as Buffers) filled in, in Buffers of
 * `chunkBytes` (the last one shorter).
 */
export function* stitch(template, values, chunkBytes) {
  const { bytes, offsets, kinds } = template;
  let out = Buffer.allocUnsafe(chunkBytes);
  let pos = 0;
  // Copies src[start, end) into the output, yielding full Buffers as they fill.
  const pending = [];
  const copy = (src, start, end) => {
    while (start < end) {
      const n = Math.min(end - start, chunkBytes - pos);
      src.copy(out, pos, start, start + n);
      pos += n;
      start += n;
      if (pos === chunkBytes) {
        pending.push(out);
        out = Buffer.allocUnsafe(chunkBytes);
        pos = 0;
      }
    }
  };
  let from = 0;
  for (let i = 0; i < offsets.length; i++) {
    const at = offsets[i];
    copy(bytes, from, at);
    const value = values[kinds[i]];
    copy(value, 0, value.length);
    from = at;
    if (pending.length > 0) {
      yield* pending;
      pending.length = 0;
    }
  }
  copy(bytes, from, bytes.length);
  yield* pending;
  if (pos > 0) yield out.subarray(0, pos);
}

/** Fills a (small) template into one Buffer. */
export function fill(template, values) {
  return Buffer.concat([...stitch(template, values, 64 * 1024)]);
}

/**
 * The template filled once with stand-in values of the given byte widths, plus where each value now
 * sits: serving then costs one memcpy of the whole body and a few byte stores per value, so the
 * firehose writes far faster than any client reads (firehose-server.mjs copies it region by region
 * into a reused Buffer and stores the values in place). `widths` is per kind (rpc id, task id, context id).
 */
export function prepare(template, widths) {
  const dummies = widths.map((w) => Buffer.alloc(w, 0x30));
  const bytes = fill(template, [...dummies, Buffer.alloc(0), Buffer.alloc(0)]);
  const at = new Int32Array(template.offsets.length);
  let shift = 0;
  for (let i = 0; i < template.offsets.length; i++) {
    at[i] = template.offsets[i] + shift;
    shift += widths[template.kinds[i]];
  }
  return { bytes, at, kinds: template.kinds, widths };
}

/** The per-request values, in KIND order, as Buffers. */
export function requestValues({ rpcId, taskId, contextId, messageId, text }) {
  return [JSON.stringify(rpcId), taskId, contextId, messageId, JSON.stringify(text).slice(1, -1)].map((v) => Buffer.from(v));
}

/** Everything the firehose serves for one wire version, compiled once. */
export function buildVersion(version, { events, chunkChars }) {
  const d = DIALECTS[version];
  const plan = planTask({ events, chunkChars });
  const body = [];
  for (const u of plan.updates) body.push(sseFrame(u.kind === 'status' ? d.status(u) : d.chunk(u)));
  body.push(sseFrame(d.completed(plan)));
  let finalTask;
  let finalSnapshot;
  return {
    version,
    plan,
    /** The send's first event: the Task snapshot (submitted). */
    snapshot: compile(sseFrame(d.snapshot(plan, USER))),
    /** Every event after the snapshot: the updates and the terminal status. */
    bulk: compile(body.join('')),
    bulkEvents: plan.updates.length + 1,
    /** The completed task as GetTask answers it (compiled on first use: it holds every chunk). */
    finalTask() {
      finalTask ??= compile(rpcResult(d.finalTask(plan, USER)));
      return finalTask;
    },
    /** v0.3: what a resubscribe to the finished task answers (its snapshot). */
    finalSnapshot() {
      finalSnapshot ??= compile(sseFrame(d.finalTask(plan, USER)));
      return finalSnapshot;
    },
  };
}
