/**
 * What a suggestion reads from an incident: the parts of an `IncidentDocument` that carry its
 * story, so a draft from the importer and a stored incident are read the same way.
 */
import type { IncidentDocument } from '@hindsight/domain';

export type IncidentText = Pick<IncidentDocument, 'slug' | 'title' | 'summary' | 'narrative' | 'impact' | 'patterns' | 'components' | 'keyTimes'> & {
  timeline: Pick<IncidentDocument['timeline'][number], 'key' | 'asWritten' | 'at' | 'precision' | 'kind' | 'text'>[];
  causalFactors: Pick<IncidentDocument['causalFactors'][number], 'key' | 'role' | 'component' | 'text'>[];
  actionables: Pick<IncidentDocument['actionables'][number], 'key' | 'title' | 'description' | 'status'>[];
};

/** Where a sentence stands in the incident: enough to name it in words and to link to it. */
export interface TextPlace {
  section: 'summary' | 'impact' | 'narrative' | 'timeline' | 'factor' | 'title' | 'actionable';
  /** The timeline event's, factor's or actionable's key; the narrative's paragraph number (1-based) otherwise. */
  key: string | null;
  /** The place in words, as a parameter's provenance states it. */
  label: string;
  /** The anchor on the incident page (`timeline-<key>`, `factor-<key>`, `narrative`). */
  anchor: string;
}

export interface Passage {
  text: string;
  place: TextPlace;
}

/** Splits text into sentences without breaking figures such as "3.5 s" or "e.g.". */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)/)) {
    const clean = para.replace(/\s+/g, ' ').trim();
    if (!clean) continue;
    let start = 0;
    const re = /[.!?。！？](?=\s+[A-Z(\["'“]|\s*$)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(clean))) {
      const before = clean.slice(Math.max(0, m.index - 4), m.index + 1);
      if (/\b(?:e\.g|i\.e|etc|vs|approx|ca)\.$/i.test(before)) continue;
      out.push(clean.slice(start, m.index + 1).trim());
      start = m.index + 1;
    }
    if (start < clean.length) out.push(clean.slice(start).trim());
  }
  return out.filter((s) => s.length > 0);
}

/** Every passage of the incident a figure may be read from, in reading order. */
export function passagesOf(incident: IncidentText): Passage[] {
  const out: Passage[] = [];
  const add = (text: string, place: TextPlace) => {
    for (const s of sentences(text)) out.push({ text: s, place });
  };
  add(incident.summary, { section: 'summary', key: null, label: 'summary', anchor: 'summary' });
  add(incident.impact, { section: 'impact', key: null, label: 'impact', anchor: 'impact' });
  for (const e of incident.timeline) {
    const when = e.asWritten ? ` at ${e.asWritten}` : '';
    add(e.text, { section: 'timeline', key: e.key, label: `timeline event${when} (${e.key})`, anchor: `timeline-${e.key}` });
  }
  for (const f of incident.causalFactors) {
    add(f.text, { section: 'factor', key: f.key, label: `causal factor ${f.key} (${f.role})`, anchor: `factor-${f.key}` });
  }
  incident.narrative
    .split(/\n\s*\n/)
    .filter((p) => p.trim() && !/^\s*#/.test(p))
    .forEach((p, i) => add(p, { section: 'narrative', key: String(i + 1), label: `narrative, paragraph ${i + 1}`, anchor: 'narrative' }));
  return out;
}

/**
 * The sentences of the incident's actionables. They describe fixes, not what happened, so only
 * parameters that set a fix (`FigureRule.fromActionables`) read figures from them.
 */
export function actionablePassages(incident: IncidentText): Passage[] {
  const out: Passage[] = [];
  for (const a of incident.actionables) {
    const text = a.description && a.description.trim() !== a.title.trim() ? `${a.title}. ${a.description}` : a.title;
    for (const s of sentences(text)) out.push({ text: s, place: { section: 'actionable', key: a.key, label: `actionable ${a.key}`, anchor: `actionable-${a.key}` } });
  }
  return out;
}
