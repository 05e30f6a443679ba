import { describe, expect, it } from 'vitest';
import type { Metadata } from '../model/types.js';
import { echoedRevisions, recordUpdate, refusal, stamp } from './revision-gate.js';
import type { WorkflowRecord } from './workflow-record.js';

const R = 'a2a-tether/revision';

describe('the revision gate', () => {
  it.each<[string, Array<Metadata | undefined>, boolean, string | undefined]>([
    ['no echo, not required: adopted', [undefined, {}], false, undefined],
    ['no echo, required: refused', [undefined], true, 'the answer does not carry revision 2 (a2a-tether/revision in its metadata), which this hop requires (requireRevisionEcho)'],
    ['its revision as a number', [{ [R]: 2 }], true, undefined],
    ['its revision as digits', [undefined, { [R]: '2' }], true, undefined],
    ['another revision, not required: refused', [{ [R]: 1 }], false, 'the agent answered for revision 1, not 2'],
    ['another revision beside its own: refused', [{ [R]: 2 }, { [R]: 3 }], true, 'the agent answered for revision 3, not 2'],
    ['a value that is not a revision is ignored', [{ [R]: 'two' }], false, undefined],
  ])('%s', (_name, metadata, required, refused) => {
    expect(refusal(2, metadata, required)).toBe(refused);
  });

  it('stamps the workflow, node and revision over the caller’s metadata', () => {
    expect(stamp({ mine: 1, [R]: 9 }, 'w', 'n', 2)).toEqual({ mine: 1, 'a2a-tether/workflow': 'w', 'a2a-tether/node': 'n', [R]: 2 });
    expect(echoedRevisions([stamp(undefined, 'w', 'n', 4)])).toEqual([4]);
  });

  it('a correction opens the next revision for the nodes not completed and their dependents; a question changes nothing', () => {
    const node = (id: string, state: 'completed' | 'running' | 'pending', dependsOn: string[] = []) => ({ id, agent: 'x', dependsOn, state, attempts: [] });
    const record = {
      revision: 1,
      revisions: [{ n: 1, text: 'g', updateSeq: 0, at: 't0' }],
      updates: [],
      state: 'running',
      nodes: { a: node('a', 'completed'), b: node('b', 'running'), c: node('c', 'pending', ['b']) },
    } as unknown as WorkflowRecord;
    const hops = [
      { id: 'a', agent: 'x', input: () => '' },
      { id: 'b', agent: 'x', input: () => '' },
      { id: 'c', agent: 'x', dependsOn: ['b'], input: () => '' },
    ];
    expect(recordUpdate(record, hops, { kind: 'question', text: 'why?' }, 't1')).toEqual({ seq: 1, kind: 'question', text: 'why?', by: 'user', at: 't1', revision: 1 });
    expect(recordUpdate(record, hops, { kind: 'correction', text: 'g2', by: 'ann' }, 't2')).toEqual({ seq: 2, kind: 'correction', text: 'g2', by: 'ann', at: 't2', revision: 2, affects: ['b', 'c'] });
    expect(record.revisions.at(-1)).toEqual({ n: 2, text: 'g2', updateSeq: 2, at: 't2', supersedes: 1 });
    recordUpdate(record, hops, { kind: 'pause', text: '' }, 't3');
    expect(record.state).toBe('paused');
    expect(recordUpdate(record, hops, { kind: 'new-goal', text: 'g3' }, 't4').affects).toEqual(['a', 'b', 'c']);
  });
});
