/**
 * Checks generated from what the incident reports about its own course: when the failure began
 * and when it ended, read from the key times (or the timeline). Each compares the draft's
 * as-happened run with the document, and is labelled by what passing means:
 * - `reproduces` when no parameter of the draft was read from those same times (passing is then
 *   evidence that the model tells the incident's story);
 * - `fitted` when a parameter was (e.g. the time to recover read from the timeline): passing then
 *   shows only that the fitted value took effect.
 * Times the document gives only to the day, or in an impossible order, give no check.
 */
import { DEFAULT_POINTS, type CheckSpec, type SourceQuote } from '@hindsight/models';
import type { IncidentText } from './incident-text';
import type { ModelTemplate, ParameterFill } from './template.types';

type KeyTime = IncidentText['keyTimes']['started'];

const PRECISE = new Set(['second', 'minute', 'approximate']);

function instant(t: KeyTime | null | undefined): number | null {
  if (!t || !t.at || !PRECISE.has(t.precision)) return null;
  const ms = Date.parse(t.at);
  return Number.isFinite(ms) ? ms : null;
}

/** The reported course of the failure, in milliseconds: trigger, start of the impact, its end. */
export interface ReportedCourse {
  trigger: number;
  /** The document's words for each time: the timeline entry it comes from. */
  quotes: { trigger: SourceQuote; started: SourceQuote | null; ended: SourceQuote | null };
  /** When the impact began, when the document says so apart from the trigger. */
  started: number | null;
  /** When it ended (resolved, else mitigated). */
  ended: number | null;
  endedAs: 'resolved' | 'mitigated' | null;
}

export function reportedCourse(incident: IncidentText): ReportedCourse | null {
  const triggerEvent = incident.timeline.find((e) => e.kind === 'trigger' && e.at && PRECISE.has(e.precision));
  const started = instant(incident.keyTimes.started);
  const trigger = triggerEvent ? Date.parse(triggerEvent.at!) : started;
  if (trigger === null) return null;
  const resolved = instant(incident.keyTimes.resolved);
  const mitigated = instant(incident.keyTimes.mitigated);
  const after = (t: number | null) => (t !== null && t > trigger ? t : null);
  const ended = after(resolved) ?? after(mitigated);
  const quoteAt = (ms: number | null, prefer: string[]): SourceQuote | null => {
    if (ms === null) return null;
    const at = incident.timeline.filter((e) => e.at && Date.parse(e.at) === ms);
    const e = at.find((x) => prefer.includes(x.kind)) ?? at[0];
    return e ? { quote: `${e.asWritten ? `${e.asWritten} ` : ''}${e.text}`.slice(0, 300), place: `timeline event ${e.key}` } : null;
  };
  const triggerQuote = quoteAt(trigger, ['trigger']);
  if (!triggerQuote) return null;
  const startedAt = started !== null && started > trigger && (ended === null || started < ended) ? started : null;
  return {
    trigger,
    quotes: { trigger: triggerQuote, started: quoteAt(startedAt, ['observation', 'detection']), ended: quoteAt(ended, ['recovery', 'mitigation']) },
    started: startedAt,
    ended,
    endedAs: after(resolved) !== null ? 'resolved' : after(mitigated) !== null ? 'mitigated' : null,
  };
}

const fmt = (s: number) => (s >= 3600 ? `${Number((s / 3600).toPrecision(3))} h` : s >= 60 ? `${Number((s / 60).toPrecision(3))} min` : `${Number(s.toPrecision(3))} s`);

/**
 * The checks for one draft. `horizon` and `points` are the built spec's, `values` its
 * parameters; the run's t = triggerAt is the document's trigger.
 */
export function documentChecks(template: ModelTemplate, incident: IncidentText, fills: readonly ParameterFill[], horizon: number, points = DEFAULT_POINTS, unit = 'value'): CheckSpec[] {
  const course = reportedCourse(incident);
  const triggerAt = fills.find((f) => f.name === 'triggerAt')?.value;
  if (!course || triggerAt === undefined) return [];
  const point = horizon / points;
  const runTime = (ms: number) => triggerAt + (ms - course.trigger) / 1000;
  const fromTimeline = fills.filter((f) => f.from === 'timeline').map((f) => f.name);
  const kind: CheckSpec['kind'] = fromTimeline.length > 0 ? 'fitted' : 'reproduces';
  // The first value read from the timeline is the one named; the description names all of them.
  const fitted = kind === 'fitted' ? { fittedParameter: fromTimeline[0]! } : {};
  const fittedNote = fromTimeline.length > 0 ? ` The draft's ${fromTimeline.join(', ')} was read from the same timeline, so passing shows that value took effect, not that the model explains it.` : '';
  const { metric, op, threshold, sustain } = template.failure;
  const failing = op === 'below' ? '<' : '>';
  const healthy = op === 'below' ? '>=' : '<=';
  const out: CheckSpec[] = [];

  if (course.started !== null && course.quotes.started) {
    const at = runTime(course.started);
    const lead = at - triggerAt;
    if (at < horizon) {
      out.push({
        name: 'failure-starts-when-reported',
        description: `The failure begins about when the document says the impact began, ${fmt(lead)} after the trigger (within a tenth of that, or two output points).`,
        scenarios: ['as-happened'],
        measure: { metric, stat: op === 'below' ? 'firstTimeBelow' : 'firstTimeAbove', threshold, ...(sustain ? { sustain } : {}) },
        expect: { op: 'approx', value: Number(at.toFixed(3)), tolerance: Number(Math.max(0.1 * lead, 2 * point).toFixed(3)), absolute: true },
        unit: 's',
        source: course.quotes.started,
        ifFails: 'The model reaches the failure at another time than the document reports: the assumed rates or shares that set how fast it develops do not match this incident.',
        // The impact's start is never a parameter a template reads, so it is evidence either way.
        kind: 'reproduces',
      });
    }
  }

  if (course.ended !== null && course.quotes.ended) {
    const start = course.started ?? course.trigger;
    const end = runTime(course.ended);
    const lasted = (course.ended - start) / 1000;
    const window = Math.max(2 * point, Math.min(0.1 * lasted, 600));
    // Halfway through the reported outage the model fails; a little after its end it is healthy.
    const mid = runTime(start) + lasted / 2;
    if (lasted > 2 * window && end + 2 * window < horizon) {
      out.push({
        name: 'failing-during-reported-outage',
        description: `Halfway through the outage the document reports (${fmt(lasted)} from ${course.started !== null ? 'the start of the impact' : 'the trigger'} to its ${course.endedAs === 'resolved' ? 'resolution' : 'mitigation'}), the model meets its failure condition.${fittedNote}`,
        scenarios: ['as-happened'],
        measure: { metric, stat: 'mean', from: Number((mid - window / 2).toFixed(3)), to: Number((mid + window / 2).toFixed(3)) },
        expect: { op: failing, value: threshold },
        unit,
        source: course.quotes.ended,
        ifFails: 'The model is healthy while the document says the service was failing: its outage is shorter than the reported one, or starts later.',
        kind,
        ...fitted,
      });
      out.push({
        name: 'healthy-after-reported-recovery',
        description: `Soon after the document's ${course.endedAs === 'resolved' ? 'resolution' : 'mitigation'} the model is healthy again.${fittedNote}`,
        scenarios: ['as-happened'],
        measure: { metric, stat: 'mean', from: Number((end + window).toFixed(3)), to: Number((end + 2 * window).toFixed(3)) },
        expect: { op: healthy, value: threshold },
        unit,
        source: course.quotes.ended,
        ifFails: 'The model still fails after the document says the incident ended: its recovery comes later than the reported one.',
        kind,
        ...fitted,
      });
    }
  }
  return out;
}
