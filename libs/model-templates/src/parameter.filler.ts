/**
 * Fills a template's parameters: from figures in the incident's text (by kind, unit and the
 * words beside the figure), from the timeline (how long the failure lasted), or as assumptions
 * with the template's default or a value worked out from the others, each with why.
 */
import { figuresIn, figuresOf, type Figure } from './figures';
import { actionablePassages, type IncidentText } from './incident-text';
import type { ModelTemplate, ParameterFill, TemplateParameter, Values } from './template.types';

/** How far (characters) a cue word may stand from the figure it qualifies. */
const CUE_REACH = 70;

interface TimelineDuration {
  seconds: number;
  /** Read from dates known only to the day. */
  toTheDay?: boolean;
  from: { quote: string; place: string; anchor: string };
  to: { quote: string; place: string; anchor: string };
}

/** A day's uncertainty is at most a third of a span this long, so dates known to the day may give it. */
export const DAY_PRECISION_MIN_SECONDS = 3 * 86400;

/**
 * From the first trigger (or first timed event) to the first recovery or mitigation after it.
 * Events known to the minute are used; when they give no span, events known only to the day
 * give one if it is at least three days long (`toTheDay` then says so).
 */
export function failureDuration(incident: IncidentText): TimelineDuration | null {
  const precise = spanOf(incident.timeline.filter((e) => e.at && e.precision !== 'none' && e.precision !== 'day'));
  if (precise) return precise;
  const days = spanOf(incident.timeline.filter((e) => e.at && e.precision !== 'none'));
  return days && days.seconds >= DAY_PRECISION_MIN_SECONDS ? { ...days, toTheDay: true } : null;
}

function spanOf(timed: IncidentText['timeline']): TimelineDuration | null {
  if (timed.length < 2) return null;
  const start = timed.find((e) => e.kind === 'trigger') ?? timed[0]!;
  const t0 = Date.parse(start.at!);
  const end =
    timed.find((e) => e.kind === 'recovery' && Date.parse(e.at!) > t0) ??
    timed.find((e) => e.kind === 'mitigation' && Date.parse(e.at!) > t0) ??
    [...timed].reverse().find((e) => Date.parse(e.at!) > t0);
  if (!end) return null;
  const seconds = (Date.parse(end.at!) - t0) / 1000;
  if (!(seconds > 0)) return null;
  const ref = (e: typeof start) => ({
    quote: `${e.asWritten ? `${e.asWritten} ` : ''}${e.text}`.slice(0, 300),
    place: `timeline event ${e.key}`,
    anchor: `timeline-${e.key}`,
  });
  return { seconds, from: ref(start), to: ref(end) };
}

function cueDistance(p: TemplateParameter, f: Figure): number | null {
  const rule = p.figure!;
  if (rule.kind !== f.kind) return null;
  if (f.passage.place.section === 'actionable' ? !rule.fromActionables : rule.fromActionables === 'only') return null;
  if (rule.nouns && !rule.nouns.test(f.noun)) return null;
  const text = f.passage.text.toLowerCase();
  let best: number | null = null;
  const re = new RegExp(rule.cues.source, rule.cues.flags.includes('g') ? rule.cues.flags : `${rule.cues.flags}g`);
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const end = f.index + f.raw.length;
    const d = m.index >= end ? m.index - end : m.index + m[0].length <= f.index ? f.index - (m.index + m[0].length) : 0;
    if (d <= CUE_REACH && (best === null || d < best)) best = d;
    if (m[0].length === 0) re.lastIndex++;
  }
  return best;
}

function fmt(x: number): string {
  return Number(x.toPrecision(4)).toLocaleString('en-US');
}

function inRange(p: TemplateParameter, x: number): boolean {
  return Number.isFinite(x) && x >= p.min && x <= p.max && (!p.integer || Number.isInteger(x));
}

export interface FillOptions {
  /** Values a person set; they win over the text and are recorded as theirs. */
  overrides?: Values;
}

export function fillParameters(template: ModelTemplate, incident: IncidentText | null, options: FillOptions = {}): ParameterFill[] {
  const figures = incident ? [...figuresOf(incident), ...actionablePassages(incident).flatMap(figuresIn)] : [];
  const used = new Set<Figure>();
  const duration = incident ? failureDuration(incident) : null;
  // Figures go to parameters closest cue first, so a figure is not taken by an earlier
  // parameter that merely shares a sentence with a better-fitting one.
  const assigned = new Map<string, Figure>();
  const candidates = template.parameters
    .filter((p) => p.figure && options.overrides?.[p.name] === undefined)
    .flatMap((p) => figures.map((f, order) => ({ p, f, order, d: cueDistance(p, f) })))
    .filter((c): c is { p: TemplateParameter; f: Figure; order: number; d: number } => c.d !== null)
    .sort((a, b) => a.d - b.d || a.order - b.order);
  const refusedBy = new Map<string, string[]>();
  for (const { p, f } of candidates) {
    if (assigned.has(p.name) || used.has(f)) continue;
    const value = p.figure!.convert ? p.figure!.convert(f.value, f.passage.text) : f.value;
    const rounded = p.integer ? Math.round(value) : value;
    if (!inRange(p, rounded)) {
      const list = refusedBy.get(p.name) ?? [];
      list.push(`"${f.raw}" (${f.passage.place.label}) reads as ${fmt(value)} ${p.unit}, outside ${fmt(p.min)}–${fmt(p.max)}`);
      refusedBy.set(p.name, list);
      continue;
    }
    assigned.set(p.name, f);
    used.add(f);
  }
  const v: Values = {};
  const out: ParameterFill[] = [];
  for (const p of template.parameters) {
    const base = { name: p.name, unit: p.unit, min: p.min, max: p.max, description: p.description, refused: refusedBy.get(p.name) ?? [] };
    let fill: ParameterFill | null = null;
    const override = options.overrides?.[p.name];
    if (override !== undefined) {
      fill = { ...base, value: override, from: 'person', figure: null, provenance: { kind: 'assumption', why: 'Set by the person who reviewed the draft.' } };
    }
    const f = assigned.get(p.name);
    if (!fill && p.figure && f) {
      {
        const value = p.figure.convert ? p.figure.convert(f.value, f.passage.text) : f.value;
        const rounded = p.integer ? Math.round(value) : value;
        const figure = { raw: f.raw, quote: f.passage.text.slice(0, 400), place: f.passage.place.label, anchor: f.passage.place.anchor };
        fill = {
          ...base,
          value: rounded,
          from: 'text',
          figure,
          provenance:
            rounded === f.value
              ? { kind: 'source', quote: figure.quote, place: figure.place }
              : { kind: 'derived', formula: `"${f.raw}" = ${fmt(rounded)} ${p.unit}`, from: [{ quote: figure.quote, place: figure.place }] },
        };
      }
    }
    if (!fill && p.timeline === 'failure-duration' && duration) {
      const seconds = Math.round(duration.seconds);
      if (inRange(p, seconds)) {
        fill = {
          ...base,
          value: seconds,
          from: 'timeline',
          figure: { raw: `${fmt(seconds)} s`, quote: duration.to.quote, place: duration.to.place, anchor: duration.to.anchor },
          provenance: {
            kind: 'derived',
            formula: `time of the recovery event − time of the trigger event = ${fmt(seconds)} s${duration.toTheDay ? ' (dates known to the day: within a day either way)' : ''}`,
            from: [
              { quote: duration.from.quote, place: duration.from.place },
              { quote: duration.to.quote, place: duration.to.place },
            ],
          },
        };
      } else {
        base.refused.push(`the timeline's ${fmt(seconds)} s from trigger to recovery is outside ${fmt(p.min)}–${fmt(p.max)} ${p.unit}`);
      }
    }
    if (!fill && p.assume) {
      const a = p.assume(v);
      const value = Math.min(p.max, Math.max(p.min, p.integer ? Math.round(a.value) : Number(a.value.toPrecision(6))));
      fill = { ...base, value, from: 'assumption', figure: null, provenance: { kind: 'assumption', why: `Not in the source. ${a.why}` } };
    }
    if (!fill) {
      fill = { ...base, value: p.default, from: 'default', figure: null, provenance: { kind: 'assumption', why: `Not in the source: the template's default. ${p.defaultWhy}` } };
    }
    v[p.name] = fill.value;
    out.push(fill);
  }
  return out;
}
