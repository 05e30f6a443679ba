import { describe, expect, it } from 'vitest';
import type { Artifact, Part, StreamEvent, Task, TaskState } from '../model/types.js';
import { Reconciler } from './reconciler.js';
import type { ArtifactEvent, StatusEvent, TaskEvent } from './task-event.js';

const T = 't1';
const C = 'c1';
const text = (t: string): Part => ({ kind: 'text', text: t });
const at = (n: number): string => new Date(1_700_000_000_000 + n * 1000).toISOString();
const msg = (id: string, t = id) => ({ kind: 'message' as const, messageId: id, role: 'agent' as const, parts: [text(t)] });

function status(state: TaskState, n: number, messageId?: string): StreamEvent {
  return { kind: 'status-update', taskId: T, contextId: C, status: { state, timestamp: at(n), ...(messageId ? { message: msg(messageId) } : {}) } };
}
function chunk(id: string, t: string, append: boolean, lastChunk = false): StreamEvent {
  return { kind: 'artifact-update', taskId: T, contextId: C, artifact: { artifactId: id, name: id, parts: [text(t)] }, append, lastChunk };
}
function snapshot(state: TaskState, n: number, artifacts: Artifact[], messageId?: string): Task {
  return { kind: 'task', id: T, contextId: C, status: { state, timestamp: at(n), ...(messageId ? { message: msg(messageId) } : {}) }, artifacts, history: [] };
}

/** Rebuilds artifacts from app events the way an app would. */
function rebuild(events: TaskEvent[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of events) {
    if (e.type !== 'artifact') continue;
    const parts = e.parts.map((p) => (p.kind === 'text' ? p.text : JSON.stringify(p)));
    const held = out.get(e.artifactId) ?? [];
    out.set(e.artifactId, e.append ? [...held, ...parts] : e.from !== undefined ? [...held.slice(0, e.from), ...parts] : parts);
  }
  return out;
}

function statuses(events: TaskEvent[]): string[] {
  return events.filter((e): e is StatusEvent => e.type === 'status').map((e) => `${e.state}${e.message ? `:${e.message.messageId}` : ''}`);
}

describe('Reconciler: misbehaving agents', () => {
  it('a terminal state wins after a status with a clock-skewed future timestamp', () => {
    const r = new Reconciler(T, C);
    r.applyEvent(status('working', 1, 'm1'));
    expect(statuses(r.applyEvent(status('working', 10_000_000, 'future')))).toEqual(['working:future']);
    expect(statuses(r.applyEvent(status('completed', 2)))).toEqual(['completed']);
    // …and from a snapshot with an old timestamp too.
    const s2 = new Reconciler(T, C);
    s2.applyEvent(status('working', 10_000_000, 'future'));
    expect(statuses(s2.applySnapshot(snapshot('failed', 1, []), { recovered: true }))).toEqual(['failed']);
  });

  it('a terminal state wins when the agent reuses one status message id for every status', () => {
    const r = new Reconciler(T, C);
    const same = (state: TaskState, n: number, t: string): StreamEvent => ({
      kind: 'status-update',
      taskId: T,
      contextId: C,
      status: { state, timestamp: at(n), message: msg('one-id', t) },
    });
    expect(statuses(r.applyEvent(same('working', 1, 'a')))).toEqual(['working:one-id']);
    // The same id with grown content is news (an agent accumulating text in one message).
    expect(statuses(r.applyEvent(same('working', 2, 'ab')))).toEqual(['working:one-id']);
    expect(r.applyEvent(same('working', 2, 'ab'))).toEqual([]);
    expect(statuses(r.applyEvent(same('completed', 3, 'abc')))).toEqual(['completed:one-id']);
    // The same terminal status as a snapshot: already there.
    expect(r.applySnapshot(snapshot('completed', 3, []), { recovered: true })).toEqual([]);
  });

  it('after reply(), a snapshot still showing the answered pause (without a new message) is stale', () => {
    const r = new Reconciler(T, C);
    r.applyEvent(status('input-required', 1, 'q1'));
    r.replied();
    // The official v1 server's reply stream opens with the task still at input-required, without its message.
    expect(r.applySnapshot(snapshot('input-required', 1, []), { recovered: false })).toEqual([]);
    expect(r.applySnapshot(snapshot('input-required', 5, [], 'q1'), { recovered: false })).toEqual([]);
    expect(statuses(r.applyEvent(status('working', 6)))).toEqual(['working']);
    // Once the agent moved on, a new pause is a new pause.
    expect(statuses(r.applyEvent(status('input-required', 7, 'q2')))).toEqual(['input-required:q2']);
  });

  it('after reply(), a pause with a new question is a new pause', () => {
    const r = new Reconciler(T, C);
    r.applyEvent(status('input-required', 1, 'q1'));
    r.replied();
    expect(statuses(r.applyEvent(status('input-required', 2, 'q2')))).toEqual(['input-required:q2']);
  });

  it('answering() (a start naming its task): a first snapshot at a pause asked before the answer is that pause, taken in silently', () => {
    const withHistory = (task: Task, ids: string[]): Task => ({ ...task, history: ids.map((id) => ({ ...msg(id), role: id.startsWith('a') ? ('user' as const) : ('agent' as const) })) });
    // The official v1.0 server: the question, then the answer, in the history; the status still at the question.
    const r = new Reconciler(T, C);
    r.answering('a1');
    expect(r.applySnapshot(withHistory(snapshot('input-required', 1, [], 'q1'), ['u0', 'q1', 'a1']), { recovered: false })).toEqual([]);
    expect(r.state).toBe('input-required');
    expect(r.applySnapshot(snapshot('input-required', 2, [], 'q1'), { recovered: false })).toEqual([]); // seen again: stale
    expect(statuses(r.applyEvent(status('working', 3)))).toEqual(['working']);
    // No question at all (as reply() reads it): the pause answered.
    const bare = new Reconciler(T, C);
    bare.answering('a1');
    expect(bare.applySnapshot(snapshot('input-required', 1, []), { recovered: false })).toEqual([]);
    expect(statuses(bare.applyEvent(status('input-required', 2, 'q2')))).toEqual(['input-required:q2']);
  });

  it('answering(): a question asked after the answer, a status update first, or a later snapshot is news', () => {
    const after = new Reconciler(T, C);
    after.answering('a1');
    const asked = { ...snapshot('input-required', 1, [], 'q2'), history: [msg('q1'), { ...msg('a1'), role: 'user' as const }, msg('q2')] };
    expect(statuses(after.applySnapshot(asked, { recovered: false }))).toEqual(['input-required:q2']);
    const update = new Reconciler(T, C);
    update.answering('a1');
    expect(statuses(update.applyEvent(status('input-required', 1, 'q2')))).toEqual(['input-required:q2']);
    const later = new Reconciler(T, C);
    later.answering('a1');
    expect(statuses(later.applyEvent(status('working', 1)))).toEqual(['working']);
    expect(statuses(later.applySnapshot(snapshot('input-required', 2, [], 'q2'), { recovered: false }))).toEqual(['input-required:q2']);
  });

  it('refuses a snapshot of another task or another context', () => {
    const r = new Reconciler(T, C);
    expect(() => r.applySnapshot({ ...snapshot('completed', 1, []), id: 'other' }, { recovered: true })).toThrow(/PROTOCOL_VIOLATION|task "other"/);
    expect(() => r.applySnapshot({ ...snapshot('completed', 1, []), contextId: 'elsewhere' }, { recovered: true })).toThrow(/context/);
    expect(r.state).toBe('unknown');
  });

  it('dedupe windows are bounded: the oldest ids fall out', () => {
    const r = new Reconciler(T, C, { messages: 4, statuses: 4, eventIds: 4 });
    const m = (id: string): StreamEvent => msg(id);
    for (const id of ['m1', 'm2', 'm3', 'm4']) expect(r.applyEvent(m(id))).toHaveLength(1);
    expect(r.applyEvent(m('m1'))).toEqual([]); // still remembered
    expect(r.applyEvent(m('m5'))).toHaveLength(1); // m1 falls out
    expect(r.applyEvent(m('m1'))).toHaveLength(1);
    const ids = new Reconciler(T, C, { messages: 4, statuses: 4, eventIds: 2 });
    expect(ids.applyEvent(status('working', 1, 'a'), { eventId: '1' })).toHaveLength(1);
    expect(ids.applyEvent(status('working', 2, 'b'), { eventId: '1' })).toEqual([]);
    ids.applyEvent(status('working', 3, 'c'), { eventId: '2' });
    ids.applyEvent(status('working', 4, 'd'), { eventId: '3' });
    expect(ids.applyEvent(status('working', 5, 'e'), { eventId: '1' })).toHaveLength(1);
  });
});

describe('Reconciler: live events', () => {
  it('passes a clean stream through in order', () => {
    const r = new Reconciler(T, C);
    const out = [
      ...r.applyEvent(snapshot('submitted', 0, [])),
      ...r.applyEvent(status('working', 1, 'm1')),
      ...r.applyEvent(chunk('a', 'x', false)),
      ...r.applyEvent(chunk('a', 'y', true)),
      ...r.applyEvent(chunk('a', 'z', true, true)),
      ...r.applyEvent(status('completed', 2)),
    ];
    expect(statuses(out)).toEqual(['submitted', 'working:m1', 'completed']);
    expect(rebuild(out).get('a')).toEqual(['x', 'y', 'z']);
    expect(out.filter((e) => e.type === 'artifact').map((e) => [(e as ArtifactEvent).append, (e as ArtifactEvent).lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(r.assembledArtifacts()).toEqual([{ artifactId: 'a', name: 'a', parts: [text('x'), text('y'), text('z')] }]);
    // Key order as the decoder writes it: a locally assembled result stringifies like a fetched one.
    expect(JSON.stringify(r.assembledArtifacts())).toBe(JSON.stringify([{ artifactId: 'a', parts: [text('x'), text('y'), text('z')], name: 'a' }]));
  });

  it('drops repeated, replayed and regressing statuses, and anything after a terminal state', () => {
    const r = new Reconciler(T, C);
    r.applyEvent(status('working', 5, 'm5'));
    expect(r.applyEvent(status('working', 5, 'm5'))).toEqual([]); // exact repeat
    // Timestamps do not order: an older timestamp with a new message is news.
    expect(statuses(r.applyEvent(status('working', 3, 'm3')))).toEqual(['working:m3']);
    expect(r.applyEvent(status('working', 5, 'm5'))).toEqual([]); // a replay of an earlier status
    expect(r.applyEvent(status('submitted', 6))).toEqual([]); // regression
    expect(statuses(r.applyEvent(status('input-required', 7, 'q')))).toEqual(['input-required:q']);
    expect(statuses(r.applyEvent(status('working', 8)))).toEqual(['working']); // after a reply: a real change
    expect(statuses(r.applyEvent(status('completed', 9)))).toEqual(['completed']);
    expect(r.applyEvent(status('working', 10, 'late'))).toEqual([]);
    expect(r.applyEvent(status('failed', 11))).toEqual([]); // one terminal state only
    expect(r.state).toBe('completed');
  });

  it('drops a replayed status message even without timestamps', () => {
    const r = new Reconciler(T, C);
    const noTime = (state: TaskState, id: string): StreamEvent => ({ kind: 'status-update', taskId: T, contextId: C, status: { state, message: msg(id) } });
    r.applyEvent(noTime('working', 'a'));
    r.applyEvent(noTime('working', 'b'));
    expect(r.applyEvent(noTime('working', 'a'))).toEqual([]);
    expect(statuses(r.applyEvent(noTime('working', 'c')))).toEqual(['working:c']);
  });

  it('drops events whose SSE id was already seen', () => {
    const r = new Reconciler(T, C);
    expect(r.applyEvent(chunk('a', 'x', false), { eventId: 't1:3' })).toHaveLength(1);
    expect(r.applyEvent(chunk('a', 'y', true), { eventId: 't1:3' })).toEqual([]);
  });

  it('passes messages once', () => {
    const r = new Reconciler(T, C);
    expect(r.applyEvent(msg('x'))).toEqual([{ type: 'message', message: msg('x') }]);
    expect(r.applyEvent(msg('x'))).toEqual([]);
  });
});

describe('Reconciler: after a gap', () => {
  function midway(): Reconciler {
    const r = new Reconciler(T, C);
    r.applyEvent(snapshot('submitted', 0, []));
    r.applyEvent(status('working', 1, 'm1'));
    r.applyEvent(chunk('a', 'c1', false));
    r.applyEvent(chunk('a', 'c2', true));
    return r;
  }

  it('emits only the missing suffix from a snapshot, marked recovered', () => {
    const r = midway();
    const out = r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', name: 'a', parts: [text('c1'), text('c2'), text('c3'), text('c4')] }], 'm3'), { recovered: true });
    expect(out).toEqual([
      { type: 'artifact', artifactId: 'a', name: 'a', parts: [text('c3'), text('c4')], append: true, lastChunk: false, recovered: true },
      { type: 'status', state: 'working', message: msg('m3'), timestamp: at(3), recovered: true },
    ]);
  });

  it('drops live appends that repeat the end of what a snapshot recovered (stream opened before the snapshot)', () => {
    const r = midway(); // holds c1 c2
    r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3'), text('c4'), text('c5')] }]), { recovered: true });
    expect(r.applyEvent(chunk('a', 'c4', true))).toEqual([]); // held: might be a repeat
    expect(r.applyEvent(chunk('a', 'c5', true))).toEqual([]); // matched to the end: both were repeats
    expect(rebuild(r.applyEvent(chunk('a', 'c6', true))).get('a')).toEqual(['c6']);
    expect(r.assembledArtifacts()[0]?.parts.map((p) => (p.kind === 'text' ? p.text : ''))).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  });

  it('emits held parts in order when they turn out not to be repeats', () => {
    const r = midway();
    r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('x'), text('c4')] }]), { recovered: true });
    expect(r.applyEvent(chunk('a', 'x', true))).toEqual([]); // equals a recovered part: held
    const out = r.applyEvent(chunk('a', 'y', true)); // c4 expected after x: it was new content
    expect(rebuild(out).get('a')).toEqual(['x', 'y']);
    expect(r.assembledArtifacts()[0]?.parts.map((p) => (p.kind === 'text' ? p.text : ''))).toEqual(['c1', 'c2', 'x', 'c4', 'x', 'y']);
  });

  it('drops a long replay from an older point (a resume from an old Last-Event-ID)', () => {
    const r = midway();
    r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3')] }]), { recovered: true });
    r.applySnapshot(snapshot('working', 4, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3'), text('c4'), text('c5')] }]), { recovered: true });
    const out = ['c3', 'c4', 'c5', 'c6'].flatMap((c) => r.applyEvent(chunk('a', c, true)));
    expect(rebuild(out).get('a')).toEqual(['c6']);
  });

  it('forgets a replay position when a new connection begins (chaos seed 20000, v0.3 without snapshots)', () => {
    const r = new Reconciler(T, C);
    r.applyEvent(snapshot('submitted', 0, []));
    r.applySnapshot(snapshot('working', 2, [{ artifactId: 'a', parts: [text('c1'), text('c2')] }]), { recovered: true });
    r.applyEvent(chunk('a', 'c1', false)); // connection 1 replays from the start … and is cut
    r.newConnection();
    r.applySnapshot(snapshot('working', 4, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3'), text('c4')] }]), { recovered: true });
    const shown = ['c4', 'c5'].flatMap((c) => r.applyEvent(chunk('a', c, true))); // connection 2: live from c4
    expect(shown.every((e) => e.type !== 'artifact' || e.append)).toBe(true); // no replace
    expect(rebuild(shown).get('a')).toEqual(['c5']);
    expect(r.assembledArtifacts()[0]?.parts.map((p) => (p.kind === 'text' ? p.text : ''))).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
  });

  it('drops a live append that repeats what the snapshot just recovered (the subscribe race)', () => {
    const r = midway();
    r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3')] }]), { recovered: true });
    expect(r.applyEvent(chunk('a', 'c3', true))).toEqual([]);
    expect(rebuild(r.applyEvent(chunk('a', 'c4', true))).get('a')).toEqual(['c4']);
    expect(r.assembledArtifacts()[0]?.parts).toEqual([text('c1'), text('c2'), text('c3'), text('c4')]);
  });

  it('recognizes an agent replaying every event and emits only what runs past', () => {
    const r = midway();
    const replay = [
      snapshot('submitted', 0, []),
      status('working', 1, 'm1'),
      chunk('a', 'c1', false),
      chunk('a', 'c2', true),
      chunk('a', 'c3', true),
      status('completed', 4),
    ];
    const out = replay.flatMap((e) => r.applyEvent(e));
    expect(statuses(out)).toEqual(['completed']);
    expect(rebuild(out).get('a')).toEqual(['c3']);
  });

  it('replaces an artifact whose snapshot diverges from what we hold', () => {
    const r = midway();
    const out = r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', parts: [text('other')] }]), { recovered: true });
    expect(out[0]).toMatchObject({ type: 'artifact', append: false, parts: [text('other')], recovered: true });
  });

  it('ignores an older snapshot that is behind us, but takes a terminal one as final', () => {
    const r = midway();
    expect(r.applySnapshot(snapshot('working', 1, [{ artifactId: 'a', parts: [text('c1')] }]), { recovered: true })).toEqual([]);
    const out = r.applySnapshot(snapshot('completed', 9, [{ artifactId: 'a', parts: [text('c1')] }]), { recovered: true });
    expect(out.map((e) => e.type)).toEqual(['artifact', 'status']);
    expect(rebuild(out).get('a')).toEqual(['c1']);
  });

  it('tells whether the agent is ahead of us (half-open detection) without changing anything', () => {
    const r = midway();
    expect(r.isBehind(snapshot('working', 1, [{ artifactId: 'a', parts: [text('c1'), text('c2')] }], 'm1'))).toBe(false);
    expect(r.isBehind(snapshot('working', 2, [{ artifactId: 'a', parts: [text('c1'), text('c2'), text('c3')] }], 'm1'))).toBe(true);
    expect(r.isBehind(snapshot('working', 2, [{ artifactId: 'a', parts: [text('c1'), text('c2')] }], 'm2'))).toBe(true);
    expect(r.isBehind(snapshot('completed', 2, [{ artifactId: 'a', parts: [text('c1'), text('c2')] }]))).toBe(true);
    // The same length, different content: the agent replaced the artifact.
    expect(r.isBehind(snapshot('working', 1, [{ artifactId: 'a', parts: [text('c1'), text('X2')] }], 'm1'))).toBe(true);
    expect(r.isBehind(snapshot('working', 1, [{ artifactId: 'a', parts: [text('X1')] }], 'm1'))).toBe(true);
    expect(r.assembledArtifacts()[0]?.parts).toHaveLength(2);
  });
});

// A model check: a server emits a random task; the client sees random cuts followed by one of the
// reconnection behaviours real agents have. Whatever happens, the app's events rebuild exactly the
// server's final artifact and never repeat or regress a status.
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('Reconciler: randomized cuts and reconnections (seeded)', () => {
  it.each([true, false])('rebuilds the server artifact exactly with no duplicate or regressing status, 10,000 runs (keepArtifacts: %s)', (keep) => {
    for (let seed = 1; seed <= 10_000; seed++) {
      const rand = mulberry32(seed);
      // The last 200 runs are long: their artifacts outgrow what the part list keeps unpacked.
      const n = seed > 9_800 ? 260 + Math.floor(rand() * 400) : 2 + Math.floor(rand() * 12);
      // The server's event log and its state after each event.
      const log: StreamEvent[] = [snapshot('submitted', 0, [])];
      const states: Task[] = [snapshot('submitted', 0, [])];
      const parts: Part[] = [];
      for (let i = 1; i <= n; i++) {
        if (rand() < 0.4) log.push(status('working', i, `s${i}`));
        else {
          parts.push(text(`chunk-${i}`));
          log.push(chunk('result', `chunk-${i}`, parts.length > 1, i === n));
        }
        const last = log.at(-1) as StreamEvent;
        const prev = states.at(-1) as Task;
        states.push(
          last.kind === 'status-update'
            ? { ...prev, status: last.status }
            : { ...prev, artifacts: parts.length > 0 ? [{ artifactId: 'result', name: 'result', parts: [...parts] }] : [] },
        );
      }
      log.push(status('completed', n + 1));
      states.push({ ...(states.at(-1) as Task), status: { state: 'completed', timestamp: at(n + 1) } });

      const r = new Reconciler(T, C, undefined, keep);
      const app: TaskEvent[] = [];
      let delivered = 0; // how far the client has read the log
      let guard = 0;
      let connectionDead = false; // a replay cut part-way: the next step is another reconnect
      while (delivered < log.length && guard++ < 400) {
        const cut = connectionDead ? delivered : delivered + Math.floor(rand() * (log.length - delivered + 1));
        connectionDead = false;
        for (; delivered < cut; delivered++) app.push(...r.applyEvent(log[delivered] as StreamEvent));
        if (delivered >= log.length) break;
        // Reconnect. Meanwhile the server may have moved on a little (events the client never saw live).
        const missed = Math.floor(rand() * 3);
        const serverAt = Math.min(log.length - 1, delivered + missed);
        const behaviour = rand();
        r.newConnection();
        if (behaviour < 0.4) {
          // v1: snapshot of the current state, then live events from there.
          app.push(...r.applySnapshot(states[serverAt] as Task, { recovered: true }));
          delivered = serverAt + 1;
        } else if (behaviour < 0.7) {
          // An agent that replays every event from the start, then continues live — and is sometimes
          // cut again in the middle of its replay (the client then made no progress).
          const stopAt = rand() < 0.3 ? Math.floor(rand() * (serverAt + 1)) : serverAt + 1;
          for (let i = 0; i < stopAt; i++) app.push(...r.applyEvent(log[i] as StreamEvent, { recovered: true }));
          if (stopAt === serverAt + 1) delivered = serverAt + 1;
          else {
            delivered = Math.max(delivered, stopAt); // a replay that ran past us did deliver new events
            connectionDead = true;
          }
        } else {
          // v0.3 without snapshot: GetTask after subscribing; the snapshot may include the next live event (race).
          const race = rand() < 0.5 ? Math.min(log.length - 1, serverAt + 1) : serverAt;
          app.push(...r.applySnapshot(states[race] as Task, { recovered: true }));
          delivered = serverAt + 1;
        }
      }
      for (; delivered < log.length; delivered++) app.push(...r.applyEvent(log[delivered] as StreamEvent));
      // The final check against GetTask.
      app.push(...r.applySnapshot(states.at(-1) as Task, { recovered: true }));

      const expected = parts.map((p) => (p.kind === 'text' ? p.text : ''));
      // What the app shows is always a prefix of the final artifact: never a hole, a repeat or a wrong order.
      const shown: string[] = [];
      for (const e of app) {
        if (e.type !== 'artifact') continue;
        const next = e.parts.map((p) => (p.kind === 'text' ? p.text : ''));
        if (!e.append) shown.length = e.from ?? 0;
        shown.push(...next);
        if (shown.some((v, k) => v !== expected[k])) throw new Error(`seed ${seed}: the app showed ${shown.join()} (final ${expected.join()})`);
      }
      const rebuilt = rebuild(app).get('result') ?? [];
      // The engine's own view (what done() returns without a final check) is exact too.
      const held = r.assembledArtifacts().find((a) => a.artifactId === 'result')?.parts.map((p) => (p.kind === 'text' ? p.text : JSON.stringify(p))) ?? [];
      // keepArtifacts: false keeps no parts: the view lists the artifact without them.
      const heldExpected = keep ? expected : [];
      if (JSON.stringify(held) !== JSON.stringify(heldExpected)) throw new Error(`seed ${seed}: the view holds ${held.join()} ≠ ${heldExpected.join()}`);
      if (JSON.stringify(rebuilt) !== JSON.stringify(expected)) throw new Error(`seed ${seed}: rebuilt ${rebuilt.join()} ≠ ${expected.join()}`);
      const seen = statuses(app);
      if (new Set(seen).size !== seen.length) throw new Error(`seed ${seed}: duplicate status in ${seen.join()}`);
      if (seen.at(-1) !== 'completed') throw new Error(`seed ${seed}: last status ${seen.at(-1)}`);
      if (seen.indexOf('submitted') > 0) throw new Error(`seed ${seed}: submitted after another state`);
    }
  });
});

// Found by the seeded chaos suite (packages/interop/src/chaos, seed 7, testkit agent with SSE ids):
// catch-up snapshots filled a gap twice while the stream was down; the stream then resumed from its
// Last-Event-ID, which predates both, and re-sent chunks the first snapshot had recovered. Only the
// last snapshot's suffix (or no replay position) was remembered, so those chunks were appended again,
// until the final GetTask check replaced the artifact.
describe('Reconciler: a resumed stream repeating what several snapshots recovered', () => {
  const parts = (...names: string[]): Artifact[] => [{ artifactId: 'a', name: 'a', parts: names.map(text) }];

  it('drops live appends that repeat the recovered parts of every snapshot since, not just the last one', () => {
    const r = new Reconciler(T, C);
    const app: TaskEvent[] = [...r.applyEvent(snapshot('working', 0, [])), ...r.applyEvent(chunk('a', 'c1', false))];
    app.push(...r.applySnapshot(snapshot('working', 3, parts('c1', 'c2', 'c3')), { recovered: true }));
    expect(r.applyEvent(chunk('a', 'c2', true))).toEqual([]); // the resumed stream, confirming c2
    app.push(...r.applySnapshot(snapshot('working', 4, parts('c1', 'c2', 'c3', 'c4')), { recovered: true }));
    expect(r.applyEvent(chunk('a', 'c3', true))).toEqual([]);
    expect(r.applyEvent(chunk('a', 'c4', true))).toEqual([]);
    app.push(...r.applyEvent(chunk('a', 'c5', true, true)));
    expect(rebuild(app).get('a')).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(r.assembledArtifacts()[0]?.parts).toEqual(['c1', 'c2', 'c3', 'c4', 'c5'].map(text));
  });

  it('keeps following a replay through a snapshot that extends what we hold', () => {
    const r = new Reconciler(T, C);
    const app: TaskEvent[] = [...r.applySnapshot(snapshot('working', 2, parts('c1', 'c2')), { recovered: true })];
    expect(r.applyEvent(chunk('a', 'c1', false))).toEqual([]); // a replay from the start
    app.push(...r.applySnapshot(snapshot('working', 4, parts('c1', 'c2', 'c3', 'c4')), { recovered: true }));
    for (const c of ['c2', 'c3', 'c4']) expect(r.applyEvent(chunk('a', c, true))).toEqual([]);
    app.push(...r.applyEvent(chunk('a', 'c5', true, true)));
    expect(rebuild(app).get('a')).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
  });
});

describe('Reconciler: keepArtifacts false (a digest per part, no parts)', () => {
  const texts = (parts: readonly Part[]): string[] => parts.map((p) => (p.kind === 'text' ? p.text : ''));

  it('passes live chunks through with their parts, and keeps none of them', () => {
    const r = new Reconciler(T, C, undefined, false);
    const app = [chunk('a', 'c1', false), chunk('a', 'c2', true), chunk('a', 'c3', true, true)].flatMap((e) => r.applyEvent(e));
    expect(rebuild(app).get('a')).toEqual(['c1', 'c2', 'c3']);
    expect(r.assembledArtifacts()).toEqual([{ artifactId: 'a', name: 'a', parts: [] }]);
    expect(r.partCount('a')).toBe(3);
    expect(r.artifactComplete('a')).toBe(true);
  });

  it('drops an agent replaying every event, by digest, and emits only what runs past', () => {
    const r = new Reconciler(T, C, undefined, false);
    const app = [chunk('a', 'c1', false), chunk('a', 'c2', true)].flatMap((e) => r.applyEvent(e));
    r.newConnection();
    const replay = [chunk('a', 'c1', false), chunk('a', 'c2', true), chunk('a', 'c3', true)].flatMap((e) => r.applyEvent(e, { recovered: true }));
    expect(replay).toEqual([{ type: 'artifact', artifactId: 'a', name: 'a', parts: [text('c3')], append: true, lastChunk: false }]);
    expect(rebuild([...app, ...replay]).get('a')).toEqual(['c1', 'c2', 'c3']);
  });

  it('a replay that diverges mid-artifact arrives with `from`: the parts after it are replaced', () => {
    const keepR = new Reconciler(T, C);
    const digestR = new Reconciler(T, C, undefined, false);
    const live = [chunk('a', 'c1', false), chunk('a', 'c2', true), chunk('a', 'c3', true)];
    // The agent re-sends the artifact on resubscribe, but from the second chunk on it says other things.
    const replay = [chunk('a', 'c1', false), chunk('a', 'x2', true), chunk('a', 'x3', true, true)];
    const kept = [...live.flatMap((e) => keepR.applyEvent(e)), ...replay.flatMap((e) => keepR.applyEvent(e, { recovered: true }))];
    const digested = [...live.flatMap((e) => digestR.applyEvent(e)), ...replay.flatMap((e) => digestR.applyEvent(e, { recovered: true }))];
    const diverged = digested.find((e): e is ArtifactEvent => e.type === 'artifact' && e.from !== undefined);
    expect(diverged).toMatchObject({ from: 1, append: false, parts: [text('x2')], recovered: true });
    // An app rebuilding from events ends with the same artifact either way.
    expect(rebuild(digested).get('a')).toEqual(['c1', 'x2', 'x3']);
    expect(rebuild(kept).get('a')).toEqual(['c1', 'x2', 'x3']);
    expect(texts(keepR.assembledArtifacts()[0]?.parts ?? [])).toEqual(['c1', 'x2', 'x3']);
    // And the digest follows the new content: a later replay of it is dropped.
    digestR.newConnection();
    expect(replay.flatMap((e) => digestR.applyEvent(e, { recovered: true }))).toEqual([]);
  });

  it('a snapshot fills a gap with its missing suffix, and replaces a divergent artifact with its parts', () => {
    const r = new Reconciler(T, C, undefined, false);
    r.applyEvent(chunk('a', 'c1', false));
    const suffix = r.applySnapshot(snapshot('working', 3, [{ artifactId: 'a', name: 'a', parts: [text('c1'), text('c2'), text('c3')] }]), { recovered: true });
    expect(suffix[0]).toMatchObject({ type: 'artifact', append: true, parts: [text('c2'), text('c3')], recovered: true });
    const replaced = r.applySnapshot(snapshot('working', 4, [{ artifactId: 'a', name: 'a', parts: [text('other')] }]), { recovered: true });
    expect(replaced[0]).toMatchObject({ type: 'artifact', append: false, parts: [text('other')], recovered: true });
    expect(r.isBehind(snapshot('working', 4, [{ artifactId: 'a', name: 'a', parts: [text('other')] }]))).toBe(false);
    expect(r.isBehind(snapshot('working', 4, [{ artifactId: 'a', name: 'a', parts: [text('other'), text('more')] }]))).toBe(true);
  });
});
