import type { IncidentDocument } from '@hindsight/domain';
import { diffIncident, isEmptyDiff } from './incident-diff';
import type { EditableIncident } from './incident-snapshot';

const base: IncidentDocument = {
  slug: 'x',
  title: 'X',
  organization: 'O',
  components: [],
  summary: 's',
  narrative: '',
  impact: '',
  patterns: ['a'],
  source: { title: 't', url: null, language: 'en' },
  keyTimes: { started: null, detected: null, mitigated: null, resolved: null },
  timeline: [
    { key: 'e1', asWritten: null, at: null, precision: 'none', kind: 'trigger', text: 'one' },
    { key: 'e2', asWritten: null, at: null, precision: 'none', kind: 'detection', text: 'two' },
    { key: 'e3', asWritten: null, at: null, precision: 'none', kind: 'recovery', text: 'three' },
  ],
  causalFactors: [{ key: 'f1', role: 'trigger', component: 'c', text: 't' }],
  causalLinks: [],
  actionables: [],
};
const editable = (doc: IncidentDocument): EditableIncident => ({ doc, status: 'published' });

describe('diffIncident', () => {
  it('sees no change in an identical document', () => {
    expect(isEmptyDiff(diffIncident(editable(base), editable(structuredClone(base))))).toBe(true);
  });

  it('reports a removal as a delete and the shifted items as moved, not reordered', () => {
    const after = structuredClone(base);
    after.timeline = [base.timeline[0]!, base.timeline[2]!];
    const d = diffIncident(editable(base), editable(after));
    expect(d.timeline.deleted.map((e) => e.key)).toEqual(['e2']);
    expect(d.timeline.moved).toEqual([{ key: 'e3', position: 1 }]);
    expect(d.timeline.reordered).toBeNull();
  });

  it('reports a move as a reorder of the surviving keys', () => {
    const after = structuredClone(base);
    after.timeline = [base.timeline[2]!, base.timeline[0]!, base.timeline[1]!];
    expect(diffIncident(editable(base), editable(after)).timeline.reordered).toEqual({ from: ['e1', 'e2', 'e3'], to: ['e3', 'e1', 'e2'] });
  });

  it('maps a key time to both of its columns and compares patterns as sets', () => {
    const after = structuredClone(base);
    after.keyTimes.started = { at: '2020-01-01T00:00:00.000Z', precision: 'day' };
    after.patterns = ['a'];
    const d = diffIncident(editable(base), editable(after));
    expect(d.scalars).toEqual([
      { field: 'keyTimes.started', from: null, to: { at: '2020-01-01T00:00:00.000Z', precision: 'day' }, columns: { startedAt: new Date('2020-01-01T00:00:00.000Z'), startedPrecision: 'day' } },
    ]);
    expect(d.patterns).toBeNull();
  });
});
