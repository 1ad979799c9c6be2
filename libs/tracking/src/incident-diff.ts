import type { CausalFactorDocument, CausalLinkDocument, TimeValue, TimelineEventDocument } from '@hindsight/domain';
import { auditValue, sameValue } from './audit-log';
import { linkKey, type EditableIncident } from './incident-snapshot';
import type { AuditValue } from './tracking.types';

/** A changed field of the incident row, with the columns that store it. */
export interface ScalarChange {
  field: string;
  from: AuditValue;
  to: AuditValue;
  columns: Record<string, unknown>;
}

export interface FieldChange {
  field: string;
  from: AuditValue;
  to: AuditValue;
}

export interface ChildChanges<T extends { key: string }> {
  created: { item: T; position: number }[];
  updated: { item: T; position: number; fields: FieldChange[] }[];
  /** Items whose only change is their position (another item was inserted, moved or removed). */
  moved: { key: string; position: number }[];
  deleted: T[];
  /** Key order of the items that exist before and after, when it changed. */
  reordered: { from: string[]; to: string[] } | null;
}

export interface IncidentDiff {
  scalars: ScalarChange[];
  patterns: { from: string[]; to: string[] } | null;
  timeline: ChildChanges<TimelineEventDocument>;
  factors: ChildChanges<CausalFactorDocument>;
  links: { added: CausalLinkDocument[]; removed: CausalLinkDocument[] };
}

const toDate = (iso: string | null | undefined) => (iso ? new Date(iso) : null);

function keyTimeColumns(name: 'started' | 'detected' | 'mitigated' | 'resolved', t: TimeValue | null) {
  return { [`${name}At`]: toDate(t?.at), [`${name}Precision`]: t?.precision ?? 'none' };
}

/** Audit field name → how to read it from a document and which columns hold it. */
const SCALARS: { field: string; read: (e: EditableIncident) => unknown; columns: (e: EditableIncident) => Record<string, unknown> }[] = [
  { field: 'slug', read: (e) => e.doc.slug, columns: (e) => ({ slug: e.doc.slug }) },
  { field: 'status', read: (e) => e.status, columns: (e) => ({ status: e.status }) },
  { field: 'title', read: (e) => e.doc.title, columns: (e) => ({ title: e.doc.title }) },
  { field: 'organization', read: (e) => e.doc.organization, columns: (e) => ({ organization: e.doc.organization }) },
  { field: 'components', read: (e) => e.doc.components, columns: (e) => ({ components: e.doc.components }) },
  { field: 'summary', read: (e) => e.doc.summary, columns: (e) => ({ summary: e.doc.summary }) },
  { field: 'narrative', read: (e) => e.doc.narrative, columns: (e) => ({ narrative: e.doc.narrative }) },
  { field: 'impact', read: (e) => e.doc.impact, columns: (e) => ({ impact: e.doc.impact }) },
  { field: 'source.title', read: (e) => e.doc.source.title, columns: (e) => ({ sourceTitle: e.doc.source.title }) },
  { field: 'source.url', read: (e) => e.doc.source.url, columns: (e) => ({ sourceUrl: e.doc.source.url }) },
  { field: 'source.language', read: (e) => e.doc.source.language, columns: (e) => ({ sourceLanguage: e.doc.source.language }) },
  { field: 'source.originalText', read: (e) => e.doc.source.originalText ?? null, columns: (e) => ({ sourceOriginalText: e.doc.source.originalText ?? null }) },
  ...(['started', 'detected', 'mitigated', 'resolved'] as const).map((name) => ({
    field: `keyTimes.${name}`,
    read: (e: EditableIncident) => e.doc.keyTimes[name],
    columns: (e: EditableIncident) => keyTimeColumns(name, e.doc.keyTimes[name]),
  })),
];

function diffChildren<T extends { key: string }>(before: T[], after: T[], fields: (keyof T & string)[]): ChildChanges<T> {
  const old = new Map(before.map((item, position) => [item.key, { item, position }]));
  const kept = new Set(after.map((a) => a.key));
  const changes: ChildChanges<T> = { created: [], updated: [], moved: [], deleted: before.filter((b) => !kept.has(b.key)), reordered: null };
  after.forEach((item, position) => {
    const was = old.get(item.key);
    if (!was) {
      changes.created.push({ item, position });
      return;
    }
    const changed = fields
      .filter((f) => !sameValue(was.item[f], item[f]))
      .map((f) => ({ field: f, from: auditValue(was.item[f]), to: auditValue(item[f]) }));
    if (changed.length > 0) changes.updated.push({ item, position, fields: changed });
    else if (was.position !== position) changes.moved.push({ key: item.key, position });
  });
  const survivorsBefore = before.filter((b) => kept.has(b.key)).map((b) => b.key);
  const survivorsAfter = after.filter((a) => old.has(a.key)).map((a) => a.key);
  if (!sameValue(survivorsBefore, survivorsAfter)) changes.reordered = { from: survivorsBefore, to: survivorsAfter };
  return changes;
}

/**
 * What changed between two versions of an incident, actionables excepted: those change only
 * through their own versioned writes, so an incident edit can never overwrite tracking work.
 */
export function diffIncident(before: EditableIncident, after: EditableIncident): IncidentDiff {
  const scalars = SCALARS.filter((s) => !sameValue(s.read(before), s.read(after))).map((s) => ({
    field: s.field,
    from: auditValue(s.read(before)),
    to: auditValue(s.read(after)),
    columns: s.columns(after),
  }));
  const patternsBefore = [...before.doc.patterns].sort();
  const patternsAfter = [...new Set(after.doc.patterns)].sort();
  const oldLinks = new Map(before.doc.causalLinks.map((l) => [linkKey(l), l]));
  const newLinks = new Map(after.doc.causalLinks.map((l) => [linkKey(l), l]));
  return {
    scalars,
    patterns: sameValue(patternsBefore, patternsAfter) ? null : { from: patternsBefore, to: patternsAfter },
    timeline: diffChildren(before.doc.timeline, after.doc.timeline, ['at', 'precision', 'asWritten', 'kind', 'text']),
    factors: diffChildren(before.doc.causalFactors, after.doc.causalFactors, ['role', 'component', 'text']),
    links: {
      added: [...newLinks].filter(([k]) => !oldLinks.has(k)).map(([, l]) => l),
      removed: [...oldLinks].filter(([k]) => !newLinks.has(k)).map(([, l]) => l),
    },
  };
}

export function isEmptyDiff(d: IncidentDiff): boolean {
  const none = (c: ChildChanges<{ key: string }>) =>
    c.created.length + c.updated.length + c.moved.length + c.deleted.length === 0 && c.reordered === null;
  return d.scalars.length === 0 && d.patterns === null && none(d.timeline) && none(d.factors) && d.links.added.length + d.links.removed.length === 0;
}
