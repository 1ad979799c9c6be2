import type { ActionableDocument, CausalFactorDocument, CausalLinkDocument, TimeValue, TimelineEventDocument } from '@hindsight/domain';
import { linkKey, type EditableIncident } from './incident-snapshot';

/** JSON as a diff (and the audit trail built from it) keeps a value. */
export type DiffValue = string | number | boolean | null | DiffValue[] | { [key: string]: DiffValue };
type AuditValue = DiffValue;

/** Dates as ISO text, everything else as JSON already is. */
export function diffValue(value: unknown): DiffValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(diffValue);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, diffValue(v)]));
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(diffValue(a)) === JSON.stringify(diffValue(b));
}

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
  /** Empty for every edit made through tracking: follow-ups change only through their own versioned writes. */
  actionables: ChildChanges<ActionableDocument>;
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
  { field: 'severity', read: (e) => e.doc.severity ?? null, columns: (e) => ({ severity: e.doc.severity ?? null }) },
  { field: 'nearMiss', read: (e) => e.doc.nearMiss ?? false, columns: (e) => ({ nearMiss: e.doc.nearMiss ?? false }) },
  { field: 'tags', read: (e) => e.doc.tags ?? [], columns: (e) => ({ tags: e.doc.tags ?? [] }) },
  {
    field: 'customerImpact',
    read: (e) => e.doc.customerImpact ?? null,
    columns: (e) => ({ customerImpactMinutes: e.doc.customerImpact?.minutes ?? null, customerImpactPrecision: e.doc.customerImpact?.precision ?? 'none' }),
  },
  ...(['started', 'detected', 'mitigated', 'resolved'] as const).map((name) => ({
    field: `keyTimes.${name}`,
    read: (e: EditableIncident) => e.doc.keyTimes[name],
    columns: (e: EditableIncident) => keyTimeColumns(name, e.doc.keyTimes[name]),
  })),
];

/** Fields compared as sets rather than lists (an actionable's addressed factors). */
const AS_SET = new Set(['addresses']);
const comparable = (field: string, value: unknown) => (AS_SET.has(field) && Array.isArray(value) ? [...value].sort() : value);

/** Every column of the incident row that a document sets (the search columns aside). */
export function incidentColumns(e: EditableIncident): Record<string, unknown> {
  return Object.assign({ slug: e.doc.slug }, ...SCALARS.map((s) => s.columns(e)));
}

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
      .filter((f) => !sameValue(comparable(f, was.item[f]), comparable(f, item[f])))
      .map((f) => ({ field: f, from: diffValue(was.item[f]), to: diffValue(item[f]) }));
    if (changed.length > 0) changes.updated.push({ item, position, fields: changed });
    else if (was.position !== position) changes.moved.push({ key: item.key, position });
  });
  const survivorsBefore = before.filter((b) => kept.has(b.key)).map((b) => b.key);
  const survivorsAfter = after.filter((a) => old.has(a.key)).map((a) => a.key);
  if (!sameValue(survivorsBefore, survivorsAfter)) changes.reordered = { from: survivorsBefore, to: survivorsAfter };
  return changes;
}

const instant = (at: string | null) => (at === null ? null : new Date(at).toISOString());

/**
 * Instants written the way the database gives them back (`…:14Z` → `…:14.000Z`), so a time
 * that did not change compares equal.
 */
export function withStoredInstants(e: EditableIncident): EditableIncident {
  const k = e.doc.keyTimes;
  const time = (t: TimeValue | null) => (t ? { ...t, at: instant(t.at) } : null);
  return {
    status: e.status,
    doc: {
      ...e.doc,
      keyTimes: { started: time(k.started), detected: time(k.detected), mitigated: time(k.mitigated), resolved: time(k.resolved) },
      timeline: e.doc.timeline.map((t) => ({ ...t, at: instant(t.at) })),
    },
  };
}

/** The record a new incident is diffed against: nothing stored yet. */
export const EMPTY_INCIDENT: EditableIncident = {
  status: 'draft',
  doc: {
    slug: '',
    title: '',
    organization: null,
    components: [],
    summary: '',
    narrative: '',
    impact: '',
    patterns: [],
    source: { title: '', url: null, language: '', originalText: null },
    keyTimes: { started: null, detected: null, mitigated: null, resolved: null },
    severity: null,
    nearMiss: false,
    tags: [],
    customerImpact: null,
    timeline: [],
    causalFactors: [],
    causalLinks: [],
    actionables: [],
  },
};

/**
 * What changed between two versions of an incident (`before` null: a new one, diffed against
 * `EMPTY_INCIDENT`). The one writer applies it; tracking turns it into audit events.
 */
export function diffIncident(before: EditableIncident | null, after: EditableIncident): IncidentDiff {
  before = withStoredInstants(before ?? EMPTY_INCIDENT);
  after = withStoredInstants(after);
  const scalars = SCALARS.filter((s) => !sameValue(s.read(before), s.read(after))).map((s) => ({
    field: s.field,
    from: diffValue(s.read(before)),
    to: diffValue(s.read(after)),
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
    factors: diffChildren(before.doc.causalFactors, after.doc.causalFactors, ['title', 'role', 'component', 'text']),
    links: {
      added: [...newLinks].filter(([k]) => !oldLinks.has(k)).map(([, l]) => l),
      removed: [...oldLinks].filter(([k]) => !newLinks.has(k)).map(([, l]) => l),
    },
    actionables: diffChildren(before.doc.actionables, after.doc.actionables, ['title', 'description', 'owner', 'status', 'dueDate', 'references', 'addresses']),
  };
}

export function isEmptyDiff(d: IncidentDiff): boolean {
  const none = (c: ChildChanges<{ key: string }>) =>
    c.created.length + c.updated.length + c.moved.length + c.deleted.length === 0 && c.reordered === null;
  return d.scalars.length === 0 && d.patterns === null && none(d.timeline) && none(d.factors) && none(d.actionables) && d.links.added.length + d.links.removed.length === 0;
}
