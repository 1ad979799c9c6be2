import type { Prisma } from '@hindsight/db';
import type { IncidentDocument, TimeValue, TimePrecision } from '@hindsight/domain';
import type { IncidentRecord } from './incident.types';

const calendarDate = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : null);

type Tx = Prisma.TransactionClient;

export type IncidentStatusValue = 'draft' | 'published';

/** An incident as editable data: the shared document shape plus its publication status. */
export interface EditableIncident {
  doc: IncidentDocument;
  status: IncidentStatusValue;
}

/** The database state of an incident, with the ids the writer needs to address rows by key. */
export interface IncidentSnapshot extends EditableIncident {
  row: IncidentRecord;
  eventIds: Map<string, { id: string; position: number }>;
  factorIds: Map<string, { id: string; position: number }>;
  actionableIds: Map<string, { id: string; position: number }>;
  linkIds: Map<string, string>;
}

export function linkKey(link: { from: string; to: string; kind: string }): string {
  return `${link.from}>${link.to}:${link.kind}`;
}

function keyTime(at: Date | null, precision: TimePrecision): TimeValue | null {
  return at === null && precision === 'none' ? null : { at: at ? at.toISOString() : null, precision };
}

/**
 * Reads an incident back into an `IncidentDocument`, so edits are expressed on the same shape
 * the seeds and the importer use and checked by the same validator.
 */
export async function loadIncidentSnapshot(tx: Tx, where: { slug: string } | { id: string }): Promise<IncidentSnapshot | null> {
  const row = await tx.incident.findUnique({ where });
  if (!row) return null;
  const incidentId = row.id;
  const [patterns, events, factors, links, actionables] = await Promise.all([
    tx.incidentPattern.findMany({ where: { incidentId }, include: { pattern: { select: { key: true } } } }),
    tx.timelineEvent.findMany({ where: { incidentId }, orderBy: [{ position: 'asc' }, { key: 'asc' }] }),
    tx.causalFactor.findMany({ where: { incidentId }, orderBy: [{ position: 'asc' }, { key: 'asc' }] }),
    tx.causalLink.findMany({ where: { incidentId } }),
    tx.actionable.findMany({
      where: { incidentId },
      orderBy: [{ position: 'asc' }, { key: 'asc' }],
      include: { references: { orderBy: { position: 'asc' } }, addresses: { include: { factor: { select: { key: true, position: true } } } } },
    }),
  ]);
  const factorKey = new Map(factors.map((f) => [f.id, f.key]));
  const docLinks = links
    .map((l) => ({ id: l.id, from: factorKey.get(l.fromId)!, to: factorKey.get(l.toId)!, kind: l.kind }))
    .sort((a, b) => linkKey(a).localeCompare(linkKey(b)));
  const doc: IncidentDocument = {
    slug: row.slug,
    title: row.title,
    organization: row.organization,
    components: row.components,
    summary: row.summary,
    narrative: row.narrative,
    impact: row.impact,
    patterns: patterns.map((p) => p.pattern.key).sort(),
    source: { title: row.sourceTitle, url: row.sourceUrl, language: row.sourceLanguage, originalText: row.sourceOriginalText },
    keyTimes: {
      started: keyTime(row.startedAt, row.startedPrecision),
      detected: keyTime(row.detectedAt, row.detectedPrecision),
      mitigated: keyTime(row.mitigatedAt, row.mitigatedPrecision),
      resolved: keyTime(row.resolvedAt, row.resolvedPrecision),
    },
    severity: row.severity,
    nearMiss: row.nearMiss,
    tags: row.tags,
    customerImpact: row.customerImpactMinutes === null ? null : { minutes: row.customerImpactMinutes, precision: row.customerImpactPrecision },
    timeline: events.map((e) => ({ key: e.key, asWritten: e.asWritten, at: e.at ? e.at.toISOString() : null, precision: e.precision, kind: e.kind, text: e.text })),
    causalFactors: factors.map((f) => ({ key: f.key, ...(f.title === null ? {} : { title: f.title }), role: f.role, component: f.component, text: f.text })),
    causalLinks: docLinks.map(({ from, to, kind }) => ({ from, to, kind })),
    actionables: actionables.map((a) => ({
      key: a.key,
      title: a.title,
      description: a.description,
      owner: a.owner,
      status: a.status,
      dueDate: calendarDate(a.dueDate),
      references: a.references.map((r) => ({ kind: r.kind, ref: r.ref, url: r.url })),
      addresses: [...a.addresses].sort((x, y) => x.factor.position - y.factor.position).map((x) => x.factor.key),
    })),
  };
  return {
    row,
    doc,
    status: row.status,
    eventIds: new Map(events.map((e) => [e.key, { id: e.id, position: e.position }])),
    factorIds: new Map(factors.map((f) => [f.key, { id: f.id, position: f.position }])),
    actionableIds: new Map(actionables.map((a) => [a.key, { id: a.id, position: a.position }])),
    linkIds: new Map(docLinks.map((l) => [linkKey(l), l.id])),
  };
}

/** The incident's values as CONFLICT answers show them (actionables have versions of their own). */
export function incidentValues(s: IncidentSnapshot): Record<string, unknown> {
  const { actionables: _actionables, ...doc } = s.doc;
  return { ...doc, status: s.status, version: s.row.version, updatedAt: s.row.updatedAt.toISOString() };
}

/** What the audit trail keeps when an incident is created or deleted (the full record is large). */
export function incidentSummary(e: EditableIncident) {
  return {
    slug: e.doc.slug,
    title: e.doc.title,
    organization: e.doc.organization,
    status: e.status,
    timeline: e.doc.timeline.length,
    causalFactors: e.doc.causalFactors.length,
    causalLinks: e.doc.causalLinks.length,
    actionables: e.doc.actionables.length,
  };
}
