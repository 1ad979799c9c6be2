import type { Prisma } from '@hindsight/db';
import { AppError, foldText, type IncidentDocument } from '@hindsight/domain';
import { writeSearchDocument } from './search-document';

type Tx = Prisma.TransactionClient;

export interface WriteOptions {
  status: 'draft' | 'published';
}

export interface WriteResult {
  incidentId: string;
  created: boolean;
  changed: boolean;
}

/** Everything a reader may search for, folded once at write time. */
export function searchTextOf(doc: IncidentDocument): string {
  return foldText(
    [
      doc.title,
      doc.organization,
      doc.components.join(' '),
      doc.summary,
      doc.impact,
      doc.narrative,
      ...doc.timeline.map((e) => e.text),
      ...doc.causalFactors.map((f) => `${f.component} ${f.text}`),
      ...doc.actionables.map((a) => `${a.title} ${a.description}`),
    ].join('\n'),
  );
}

const toDate = (iso: string | null | undefined) => (iso ? new Date(iso) : null);

/**
 * Writes a whole incident document inside the caller's transaction: upserts by stable keys,
 * removes children the document no longer has, and leaves rows untouched (same version, same
 * timestamps) when nothing changed, so re-seeding is a no-op.
 */
export async function writeIncidentDocument(tx: Tx, doc: IncidentDocument, options: WriteOptions): Promise<WriteResult> {
  const patternRows = await tx.pattern.findMany({ where: { key: { in: doc.patterns } }, select: { id: true, key: true } });
  const unknownPatterns = doc.patterns.filter((p) => !patternRows.some((r) => r.key === p));
  if (unknownPatterns.length > 0) {
    throw AppError.badField('patterns', `unknown pattern ${unknownPatterns.map((p) => `"${p}"`).join(', ')}`);
  }
  const k = doc.keyTimes;
  const fields = {
    status: options.status,
    title: doc.title,
    organization: doc.organization,
    components: doc.components,
    summary: doc.summary,
    narrative: doc.narrative,
    impact: doc.impact,
    sourceTitle: doc.source.title,
    sourceUrl: doc.source.url,
    sourceLanguage: doc.source.language,
    sourceOriginalText: doc.source.originalText ?? null,
    startedAt: toDate(k.started?.at),
    startedPrecision: k.started?.precision ?? 'none',
    detectedAt: toDate(k.detected?.at),
    detectedPrecision: k.detected?.precision ?? 'none',
    mitigatedAt: toDate(k.mitigated?.at),
    mitigatedPrecision: k.mitigated?.precision ?? 'none',
    resolvedAt: toDate(k.resolved?.at),
    resolvedPrecision: k.resolved?.precision ?? 'none',
    searchText: searchTextOf(doc),
  } as const;

  const existing = await tx.incident.findUnique({ where: { slug: doc.slug } });
  let incidentId: string;
  let changed = false;
  if (!existing) {
    incidentId = (await tx.incident.create({ data: { slug: doc.slug, ...fields }, select: { id: true } })).id;
    changed = true;
  } else {
    incidentId = existing.id;
    if (!sameFields(existing, fields)) {
      await tx.incident.update({ where: { id: incidentId }, data: { ...fields, version: { increment: 1 } } });
      changed = true;
    }
  }

  changed = (await syncChildren(tx, incidentId, doc)) || changed;

  const patternIds = patternRows.map((r) => r.id);
  const removedPatterns = await tx.incidentPattern.deleteMany({ where: { incidentId, patternId: { notIn: patternIds } } });
  const addedPatterns = await tx.incidentPattern.createMany({
    data: patternIds.map((patternId) => ({ incidentId, patternId })),
    skipDuplicates: true,
  });
  changed = changed || removedPatterns.count > 0 || addedPatterns.count > 0;
  if (changed && existing && sameFields(existing, fields)) {
    // Children changed but the incident row did not: the incident as a whole is a new version.
    await tx.incident.update({ where: { id: incidentId }, data: { version: { increment: 1 } } });
  }
  // Always rewritten (it carries no version or timestamp): a database migrated from an older
  // release gets its weighted document on the next seed or import even when nothing changed.
  await writeSearchDocument(tx, incidentId, doc);
  return { incidentId, created: !existing, changed };
}

function sameFields(row: Record<string, unknown>, fields: Record<string, unknown>): boolean {
  return Object.entries(fields).every(([name, value]) => {
    const current = row[name];
    if (value instanceof Date || current instanceof Date) {
      return (value as Date | null)?.getTime() === (current as Date | null)?.getTime();
    }
    return JSON.stringify(current) === JSON.stringify(value);
  });
}

async function syncChildren(tx: Tx, incidentId: string, doc: IncidentDocument): Promise<boolean> {
  let changed = false;
  // New rows go in with one multi-row INSERT per table; only changed rows are updated one by one.

  const events = await tx.timelineEvent.findMany({ where: { incidentId } });
  const eventByKey = new Map(events.map((e) => [e.key, e]));
  const newEvents = [];
  for (const [position, e] of doc.timeline.entries()) {
    const data = { position, at: toDate(e.at), precision: e.precision, asWritten: e.asWritten, kind: e.kind, text: e.text };
    const current = eventByKey.get(e.key);
    if (!current) newEvents.push({ incidentId, key: e.key, ...data });
    else if (!sameFields(current, data)) {
      await tx.timelineEvent.update({ where: { id: current.id }, data });
      changed = true;
    }
  }
  if (newEvents.length > 0) {
    await tx.timelineEvent.createMany({ data: newEvents });
    changed = true;
  }
  const goneEvents = await tx.timelineEvent.deleteMany({ where: { incidentId, key: { notIn: doc.timeline.map((e) => e.key) } } });

  const factors = await tx.causalFactor.findMany({ where: { incidentId } });
  const factorByKey = new Map(factors.map((f) => [f.key, f]));
  const factorIds = new Map<string, string>();
  const newFactors = [];
  for (const [position, f] of doc.causalFactors.entries()) {
    const data = { position, title: f.title ?? null, role: f.role, component: f.component, text: f.text };
    const current = factorByKey.get(f.key);
    if (!current) newFactors.push({ incidentId, key: f.key, ...data });
    else {
      factorIds.set(f.key, current.id);
      if (!sameFields(current, data)) {
        await tx.causalFactor.update({ where: { id: current.id }, data });
        changed = true;
      }
    }
  }
  if (newFactors.length > 0) {
    for (const row of await tx.causalFactor.createManyAndReturn({ data: newFactors, select: { id: true, key: true } })) factorIds.set(row.key, row.id);
    changed = true;
  }
  const goneFactors = await tx.causalFactor.deleteMany({ where: { incidentId, key: { notIn: doc.causalFactors.map((f) => f.key) } } });

  const wantedLinks = doc.causalLinks.map((l) => ({ incidentId, fromId: factorIds.get(l.from)!, toId: factorIds.get(l.to)!, kind: l.kind }));
  const links = await tx.causalLink.findMany({ where: { incidentId } });
  const linkId = (l: { fromId: string; toId: string; kind: string }) => `${l.fromId}>${l.toId}:${l.kind}`;
  const wantedLinkIds = new Set(wantedLinks.map(linkId));
  const staleLinks = links.filter((l) => !wantedLinkIds.has(linkId(l))).map((l) => l.id);
  if (staleLinks.length > 0) {
    await tx.causalLink.deleteMany({ where: { id: { in: staleLinks } } });
    changed = true;
  }
  const existingLinkIds = new Set(links.map(linkId));
  const newLinks = wantedLinks.filter((l) => !existingLinkIds.has(linkId(l)));
  if (newLinks.length > 0) {
    await tx.causalLink.createMany({ data: newLinks, skipDuplicates: true });
    changed = true;
  }

  const actionables = await tx.actionable.findMany({ where: { incidentId }, include: { references: true, addresses: true } });
  const actionableByKey = new Map(actionables.map((a) => [a.key, a]));
  const actionableData = (a: IncidentDocument['actionables'][number], position: number) => ({
    position,
    title: a.title,
    description: a.description,
    owner: a.owner,
    status: a.status,
    dueDate: a.dueDate ? new Date(`${a.dueDate}T00:00:00Z`) : null,
  });
  const created = new Map<string, string>();
  const toCreate = doc.actionables.flatMap((a, position) => (actionableByKey.has(a.key) ? [] : [{ incidentId, key: a.key, ...actionableData(a, position) }]));
  if (toCreate.length > 0) {
    for (const row of await tx.actionable.createManyAndReturn({ data: toCreate, select: { id: true, key: true } })) created.set(row.key, row.id);
    changed = true;
  }
  const newRefs = [];
  const newAddressed = [];
  for (const [position, a] of doc.actionables.entries()) {
    const current = actionableByKey.get(a.key);
    const actionableId = current?.id ?? created.get(a.key)!;
    const data = actionableData(a, position);
    if (current && !sameFields(current, data)) {
      await tx.actionable.update({ where: { id: current.id }, data: { ...data, version: { increment: 1 } } });
      changed = true;
    }
    const refs = a.references.map((r, i) => ({ actionableId, position: i, kind: r.kind, ref: r.ref, url: r.url }));
    const currentRefs = current?.references ?? [];
    const sameRefs =
      currentRefs.length === refs.length &&
      refs.every((r) => currentRefs.some((c) => c.ref === r.ref && c.kind === r.kind && c.url === r.url && c.position === r.position));
    if (!sameRefs) {
      if (current) await tx.externalReference.deleteMany({ where: { actionableId } });
      newRefs.push(...refs);
      changed = true;
    }
    const addressed = a.addresses.map((key) => factorIds.get(key)!);
    const currentAddressed = new Set((current?.addresses ?? []).map((x) => x.factorId));
    if (addressed.length !== currentAddressed.size || addressed.some((id) => !currentAddressed.has(id))) {
      if (current) await tx.actionableFactor.deleteMany({ where: { actionableId } });
      newAddressed.push(...addressed.map((factorId) => ({ actionableId, factorId })));
      changed = true;
    }
  }
  if (newRefs.length > 0) await tx.externalReference.createMany({ data: newRefs });
  if (newAddressed.length > 0) await tx.actionableFactor.createMany({ data: newAddressed, skipDuplicates: true });
  const goneActionables = await tx.actionable.deleteMany({ where: { incidentId, key: { notIn: doc.actionables.map((a) => a.key) } } });

  return changed || goneEvents.count + goneFactors.count + goneActionables.count > 0;
}
