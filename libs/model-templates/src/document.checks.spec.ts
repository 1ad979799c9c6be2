import { runModel } from '@hindsight/models';
import { reportedCourse } from './document.checks';
import type { IncidentText } from './incident-text';
import { draftModel } from './suggest';
import { findTemplate } from './templates';

function incident(timeline: IncidentText['timeline'], keyTimes: Partial<IncidentText['keyTimes']>): IncidentText {
  return {
    slug: 'cache-volume-full-2026',
    title: 'Cache volume full',
    summary: 'The build cache volume ran out of space and builds failed.',
    impact: 'Builds failed.',
    narrative: '',
    patterns: [],
    components: [],
    keyTimes: { started: null, detected: null, mitigated: null, resolved: null, ...keyTimes },
    timeline,
    causalFactors: [],
    actionables: [{ key: 'alert-at-80', title: 'Add an alert when the volume is 80% full', description: '', status: 'open' }],
  };
}

const at = (hhmm: string) => `2026-03-04T${hhmm}:00.000Z`;
const event = (key: string, hhmm: string, kind: IncidentText['timeline'][number]['kind'], text: string) => ({ key, asWritten: hhmm, at: at(hhmm), precision: 'minute' as const, kind, text });

describe('checks against what the document reports of its course', () => {
  const timeline = [
    event('deploy', '09:00', 'trigger', 'A deploy turns on verbose traces.'),
    event('full', '10:00', 'observation', 'The volume is full; builds fail.'),
    event('cleaned', '11:00', 'recovery', 'Old traces deleted; builds succeed again.'),
  ];

  it('reads the trigger, the start of the impact and its end, each with the entry it comes from', () => {
    const course = reportedCourse(incident(timeline, { started: { at: at('10:00'), precision: 'minute' }, resolved: { at: at('11:00'), precision: 'minute' } }))!;
    expect((course.started! - course.trigger) / 1000).toBe(3600);
    expect((course.ended! - course.trigger) / 1000).toBe(7200);
    expect(course.quotes.started!.place).toBe('timeline event full');
    expect(course.quotes.ended!.place).toBe('timeline event cleaned');
  });

  it('gives no check for times known only to the day or in an impossible order', () => {
    expect(reportedCourse(incident([{ ...timeline[0]!, precision: 'day' }], { started: { at: at('00:00'), precision: 'day' } }))).toBeNull();
    const backwards = reportedCourse(incident(timeline, { started: { at: at('10:00'), precision: 'minute' }, resolved: { at: at('08:00'), precision: 'minute' } }))!;
    expect(backwards.ended).toBeNull();
  });

  it('labels checks on times a parameter was read from as fitted, the start of the impact as reproduces, and they can fail', () => {
    const doc = incident(timeline, { started: { at: at('10:00'), precision: 'minute' }, resolved: { at: at('11:00'), precision: 'minute' } });
    const draft = draftModel(findTemplate('resource-exhaustion')!, doc);
    expect(draft.parameters.find((p) => p.name === 'recoverSeconds')).toMatchObject({ value: 7200, from: 'timeline' });
    const kinds = Object.fromEntries(draft.spec.checks!.map((c) => [c.name, c.kind]));
    expect(kinds).toMatchObject({ 'failure-starts-when-reported': 'reproduces', 'failing-during-reported-outage': 'fitted', 'healthy-after-reported-recovery': 'fitted' });
    // The impact began an hour after the trigger; the draft assumes half of the two hours to recover went to filling up.
    const run = runModel({ spec: draft.spec, scenarioKey: 'as-happened' });
    const start = run.checks.find((c) => c.name === 'failure-starts-when-reported')!;
    expect(start.pass).toBe(true);
    // A person who says the volume filled up in ten minutes contradicts the document: the check fails.
    const wrong = draftModel(findTemplate('resource-exhaustion')!, doc, { overrides: { exhaustSeconds: 600 } });
    const fails = runModel({ spec: wrong.spec, scenarioKey: 'as-happened' }).checks.find((c) => c.name === 'failure-starts-when-reported')!;
    expect(fails.pass).toBe(false);
  });
});
