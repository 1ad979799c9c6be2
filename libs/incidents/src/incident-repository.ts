import { randomUUID } from 'node:crypto';
import { Prisma } from '@hindsight/db';
import { AppError, type IncidentDocument } from '@hindsight/domain';
import { diffIncident, incidentColumns, isEmptyDiff, type IncidentDiff } from './incident-diff';
import { incidentValues, linkKey, loadIncidentSnapshot, type EditableIncident, type IncidentSnapshot } from './incident-snapshot';
import { searchDocumentsOf, SET_SEARCH_COLUMNS, writeSearchDocuments, writeSearchWords } from './search-document';

type Tx = Prisma.TransactionClient;

/** One incident to write: the stored record (null: a new incident) and what it becomes. */
export interface IncidentChange {
  before: IncidentSnapshot | null;
  after: EditableIncident;
  /** The version the writer read; defaults to `before`'s. A different stored version is CONFLICT. */
  expectedVersion?: number;
  /** The diff, when the caller has already computed it from the same `before` and `after`. */
  diff?: IncidentDiff;
}

export interface IncidentWrite {
  incidentId: string;
  created: boolean;
  changed: boolean;
  /** The incident's version after the write. */
  version: number;
  diff: IncidentDiff;
}

const toDate = (iso: string | null | undefined) => (iso ? new Date(iso) : null);

/**
 * The one writer of incident records. Applies the diff between the stored record and the new
 * document inside the caller's transaction: a new incident is diffed against the empty record,
 * an existing one claims its version before any child row is touched (its row locked by
 * `lockIncidentRow` and its version checked), so of two concurrent writers one gets CONFLICT and
 * nothing of its write lands; its row itself is written once, at the end, with its search
 * document (`writeEditedRows`). New rows go in with one multi-row INSERT per table for the
 * whole batch (ids are chosen here, so links, references and addressed factors need no round
 * trip); changed rows are updated one by one; gone rows are deleted per table. Nothing is
 * touched when nothing changed (same version, same timestamps). The search document is
 * rewritten in the same transaction.
 */
export async function writeIncidents(tx: Tx, changes: IncidentChange[]): Promise<IncidentWrite[]> {
  const work = changes.map((c) => ({ ...c, diff: c.diff ?? diffIncident(c.before, c.after), id: c.before?.row.id ?? randomUUID() }));
  const patternIds = await knownPatterns(tx, work.filter((w) => w.before === null || w.diff.patterns).flatMap((w) => w.after.doc.patterns));
  const results: IncidentWrite[] = [];
  const touched: typeof work = [];
  const now = new Date();

  const created = work.filter((w) => w.before === null);
  if (created.length > 0) {
    await insertRows(tx, 'Incident', { id: 'uuid', ...INCIDENT_COLUMNS }, created.map((w) => ({ id: w.id, ...incidentColumns(w.after) })));
  }

  const claims: Claim[] = [];
  for (const w of work) {
    if (w.before === null) {
      results.push({ incidentId: w.id, created: true, changed: true, version: 1, diff: w.diff });
      touched.push(w);
      continue;
    }
    const expected = w.expectedVersion ?? w.before.row.version;
    if (w.before.row.version !== expected) throw AppError.staleVersion('Incident', w.before.doc.slug, expected, w.before.row.version, incidentValues(w.before));
    if (isEmptyDiff(w.diff)) {
      results.push({ incidentId: w.id, created: false, changed: false, version: w.before.row.version, diff: w.diff });
      continue;
    }
    // Both changes would be claimed from the same version, and the second would overwrite the first.
    if (claims.some((c) => c.id === w.id)) throw AppError.badField('changes', `incident "${w.before.doc.slug}" is changed twice in one batch`);
    claims.push({ ...w, before: w.before, expected });
    results.push({ incidentId: w.id, created: false, changed: true, version: expected + 1, diff: w.diff });
    touched.push(w);
  }
  // Claimed in id order, as refreshSearchDocuments locks, so two writers of the same incidents
  // queue instead of deadlocking.
  for (const w of [...claims].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) await claimVersion(tx, w);

  await writePatterns(tx, touched, patternIds);
  await writeChildren(tx, touched);
  await writeSearchDocuments(tx, touched.filter((w) => w.before === null).map((w) => ({ incidentId: w.id, doc: w.after.doc })));
  await writeEditedRows(tx, touched.filter((w) => w.before !== null), now);
  return results;
}

/** Whether a change renames the incident (its slug is a key column: the row needs the stronger lock). */
export function renamesIncident(diff: IncidentDiff): boolean {
  return diff.scalars.some((s) => s.field === 'slug');
}

/**
 * Locks an incident's row for a write, with the lock the write's UPDATE will need (`FOR UPDATE`
 * for a rename, `FOR NO KEY UPDATE` otherwise), and returns its version, or null when it is
 * gone. A writer locks the incident before any of its parts, so two writers of one incident
 * queue on its row instead of each holding a part the other needs.
 */
export async function lockIncidentRow(tx: Tx, id: string, forRename: boolean): Promise<number | null> {
  const locked = forRename
    ? await tx.$queryRaw<{ version: number }[]>`SELECT "version" FROM "Incident" WHERE "id" = ${id}::uuid FOR UPDATE`
    : await tx.$queryRaw<{ version: number }[]>`SELECT "version" FROM "Incident" WHERE "id" = ${id}::uuid FOR NO KEY UPDATE`;
  return locked[0]?.version ?? null;
}

/**
 * The claim on an existing incident: its row locked, and its version still the one the write was
 * based on, or CONFLICT with the current values. A rename takes the stronger lock that its final
 * UPDATE needs (the slug is a key column), so the lock is not upgraded at the end of the
 * transaction, where it could deadlock with a writer that holds a key-share lock on the row.
 */
async function claimVersion(tx: Tx, { id, diff, before, expected }: Claim): Promise<void> {
  if ((await lockIncidentRow(tx, id, renamesIncident(diff))) === expected) return;
  const current = await loadIncidentSnapshot(tx, { id });
  if (!current) throw AppError.notFound('Incident', before.doc.slug, 'slug');
  throw AppError.staleVersion('Incident', before.doc.slug, expected, current.row.version, incidentValues(current));
}

/**
 * The incident row's columns a document sets, as `insertRows` reads them from JSON. Every writer
 * of these bumps the version (this one; publishing a draft, libs/drafts), so under the claim's
 * lock they still hold the values of the version claimed.
 */
const INCIDENT_COLUMNS: Record<string, string> = {
  slug: 'text', status: 'IncidentStatus', title: 'text', organization: 'text', components: 'text[]', summary: 'text', narrative: 'text',
  impact: 'text', sourceTitle: 'text', sourceUrl: 'text', sourceLanguage: 'text', sourceOriginalText: 'text',
  startedAt: 'timestamptz', startedPrecision: 'TimePrecision', detectedAt: 'timestamptz', detectedPrecision: 'TimePrecision',
  mitigatedAt: 'timestamptz', mitigatedPrecision: 'TimePrecision', resolvedAt: 'timestamptz', resolvedPrecision: 'TimePrecision',
  severity: 'text', nearMiss: 'boolean', tags: 'text[]', customerImpactMinutes: 'int', customerImpactPrecision: 'TimePrecision',
};

/**
 * Writes claimed incidents' rows in one UPDATE: the document's columns, the version and the
 * search document together, so the row gets one new version per edit. (Every version
 * outside a HOT update computes the phrase pairs of its whole document, `search_pairs`; a version
 * claim written on its own, before the search document, paid that for the old document.) The
 * columns all come from the new document: under the claim's lock the stored ones are still
 * `before`'s, so the unchanged ones are written with the values they hold. The child rows are
 * read back first: an incident's actionables also change through their own writes
 * (libs/tracking), and one committed since `before` was read must not drop out of the search
 * document.
 */
async function writeEditedRows(tx: Tx, edited: Work[], now: Date): Promise<void> {
  if (edited.length === 0) return;
  const items: { incidentId: string; doc: IncidentDocument }[] = [];
  for (const w of edited) {
    const stored = (await loadIncidentSnapshot(tx, { id: w.id }))!;
    const { patterns, timeline, causalFactors, causalLinks, actionables } = stored.doc;
    items.push({ incidentId: w.id, doc: { ...w.after.doc, patterns, timeline, causalFactors, causalLinks, actionables } });
  }
  const documents = await searchDocumentsOf(tx, items);
  const names = Object.keys(INCIDENT_COLUMNS);
  const rows = edited.map((w) => ({ id: w.id, ...incidentColumns(w.after) }));
  await tx.$executeRaw`UPDATE "Incident" i SET ${Prisma.raw(names.map((n) => `"${n}" = ${fromRecord(n, INCIDENT_COLUMNS)}`).join(', '))},
      "version" = i."version" + 1, "updatedAt" = ${now}, ${SET_SEARCH_COLUMNS}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(${recordColumns({ id: 'uuid', ...INCIDENT_COLUMNS })}), ${documents.table}
    WHERE i."id" = r."id" AND d."id" = r."id"`;
  await writeSearchWords(tx, documents);
}

/**
 * Rewrites the search document of stored incidents from what their rows hold now, inside the
 * caller's transaction. For writes that change indexed content outside an incident document: an
 * actionable's own create, edit or delete, a pattern renamed. The incident rows are locked first
 * (`FOR NO KEY UPDATE`, in id order), so of two writers touching one incident the second reads
 * what the first committed and neither leaves a stale document.
 */
export async function refreshSearchDocuments(tx: Tx, incidentIds: readonly string[]): Promise<void> {
  const ids = [...new Set(incidentIds)].sort();
  if (ids.length === 0) return;
  await tx.$queryRaw`SELECT "id" FROM "Incident" WHERE "id" = ANY(${ids}::uuid[]) ORDER BY "id" FOR NO KEY UPDATE`;
  const items: { incidentId: string; doc: IncidentDocument }[] = [];
  for (const id of ids) {
    const snapshot = await loadIncidentSnapshot(tx, { id });
    if (!snapshot) continue;
    items.push({ incidentId: id, doc: snapshot.doc });
  }
  await writeSearchDocuments(tx, items);
}

export async function writeIncident(tx: Tx, change: IncidentChange): Promise<IncidentWrite> {
  return (await writeIncidents(tx, [change]))[0]!;
}

/**
 * Writes a whole document as the stored incident with this slug becomes (seeding, imports,
 * tests): diffed against the stored record, or against the empty one when there is none.
 */
export async function writeIncidentDocument(tx: Tx, doc: IncidentDocument, options: { status: 'draft' | 'published' }): Promise<IncidentWrite> {
  const before = await loadIncidentSnapshot(tx, { slug: doc.slug });
  return writeIncident(tx, { before, after: { doc, status: options.status } });
}

async function knownPatterns(tx: Tx, keys: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(keys)];
  if (wanted.length === 0) return new Map();
  const rows = await tx.pattern.findMany({ where: { key: { in: wanted } }, select: { id: true, key: true } });
  const ids = new Map(rows.map((r) => [r.key, r.id]));
  const unknown = wanted.filter((k) => !ids.has(k));
  if (unknown.length > 0) throw AppError.badField('patterns', `unknown pattern ${unknown.map((p) => `"${p}"`).join(', ')}`);
  return ids;
}

type Work = IncidentChange & { diff: IncidentDiff; id: string };
/** An existing incident's change, with the version it was based on. */
type Claim = Work & { before: IncidentSnapshot; expected: number };

async function writePatterns(tx: Tx, work: Work[], patternIds: Map<string, string>): Promise<void> {
  const changed = work.filter((w) => w.before === null || w.diff.patterns);
  const existing = changed.filter((w) => w.before !== null);
  for (const w of existing) {
    await tx.incidentPattern.deleteMany({ where: { incidentId: w.id, patternId: { notIn: w.after.doc.patterns.map((k) => patternIds.get(k)!) } } });
  }
  const rows = changed.flatMap((w) => [...new Set(w.after.doc.patterns)].map((k) => ({ incidentId: w.id, patternId: patternIds.get(k)! })));
  if (rows.length > 0) await tx.incidentPattern.createMany({ data: rows, skipDuplicates: true });
}

/** Column types JSON gives directly; any other type named is an enum, read as text and cast. */
const JSON_TYPES = new Set(['uuid', 'int', 'text', 'text[]', 'boolean', 'timestamptz', 'date']);

/** A column of the JSON record `r`, cast to its enum where it is one. */
const fromRecord = (name: string, columns: Record<string, string>) => (JSON_TYPES.has(columns[name]!) ? `r."${name}"` : `r."${name}"::"${columns[name]}"`);

/** The column list of `jsonb_to_recordset(…) AS r(…)` for these columns. */
const recordColumns = (columns: Record<string, string>) =>
  Prisma.raw(Object.entries(columns).map(([name, type]) => `"${name}" ${JSON_TYPES.has(type) ? type : 'text'}`).join(', '));

/** Inserts rows of one table from JSON, one statement whatever their number. */
async function insertRows(tx: Tx, table: string, columns: Record<string, string>, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const into = Prisma.raw(`"${table}" (${names.map((n) => `"${n}"`).join(', ')})`);
  await tx.$executeRaw`INSERT INTO ${into} SELECT ${Prisma.raw(names.map((n) => fromRecord(n, columns)).join(', '))}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(${recordColumns(columns)})`;
}

/** Positions of items whose only change is that others were added, moved or removed. */
async function writePositions(tx: Tx, table: 'TimelineEvent' | 'CausalFactor' | 'Actionable', rows: { id: string; position: number }[]): Promise<void> {
  if (rows.length === 0) return;
  const bump = table === 'Actionable' ? ', "version" = t."version" + 1, "updatedAt" = now()' : '';
  await tx.$executeRaw`UPDATE ${Prisma.raw(`"${table}"`)} t SET "position" = r."position"${Prisma.raw(bump)}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r("id" uuid, "position" int) WHERE t."id" = r."id"`;
}

const eventColumns = (e: IncidentDocument['timeline'][number]) => ({ at: toDate(e.at), precision: e.precision, asWritten: e.asWritten, kind: e.kind, text: e.text });
const factorColumns = (f: IncidentDocument['causalFactors'][number]) => ({ title: f.title ?? null, role: f.role, component: f.component, text: f.text });
const actionableColumns = (a: IncidentDocument['actionables'][number]) => ({
  title: a.title,
  description: a.description,
  owner: a.owner,
  status: a.status,
  dueDate: a.dueDate ? new Date(`${a.dueDate}T00:00:00Z`) : null,
});

/**
 * Factors first (links and addressed factors need their ids), then events, links and
 * actionables; deletions of links before additions, of factors last.
 */
async function writeChildren(tx: Tx, work: Work[]): Promise<void> {
  // Ids of every factor and actionable the documents name, stored or new.
  const factorIds = new Map<string, Map<string, string>>();
  const actionableIds = new Map<string, Map<string, string>>();
  const newFactors: Record<string, unknown>[] = [];
  const newEvents: Record<string, unknown>[] = [];
  const newLinks: Record<string, unknown>[] = [];
  const newActionables: Record<string, unknown>[] = [];
  const newReferences: Record<string, unknown>[] = [];
  const newAddressed: Record<string, unknown>[] = [];
  const moved = { TimelineEvent: [] as { id: string; position: number }[], CausalFactor: [] as { id: string; position: number }[], Actionable: [] as { id: string; position: number }[] };
  const goneEvents: string[] = [];
  const goneFactors: string[] = [];
  const goneLinks: string[] = [];
  const goneActionables: string[] = [];
  const replacedReferences: string[] = [];
  const replacedAddresses: string[] = [];

  for (const w of work) {
    const incidentId = w.id;
    const d = w.diff;
    const factors = new Map([...(w.before?.factorIds ?? [])].map(([k, v]) => [k, v.id]));
    factorIds.set(incidentId, factors);
    for (const { item, position } of d.factors.created) {
      const id = randomUUID();
      factors.set(item.key, id);
      newFactors.push({ id, incidentId, key: item.key, position, ...factorColumns(item) });
    }
    for (const { item, position } of d.factors.updated) {
      await tx.causalFactor.update({ where: { id: factors.get(item.key)! }, data: { position, ...factorColumns(item) } });
    }
    moved.CausalFactor.push(...d.factors.moved.map((m) => ({ id: factors.get(m.key)!, position: m.position })));
    goneFactors.push(...d.factors.deleted.map((f) => w.before!.factorIds.get(f.key)!.id));

    for (const { item, position } of d.timeline.created) newEvents.push({ id: randomUUID(), incidentId, key: item.key, position, ...eventColumns(item) });
    for (const { item, position } of d.timeline.updated) {
      await tx.timelineEvent.update({ where: { id: w.before!.eventIds.get(item.key)!.id }, data: { position, ...eventColumns(item) } });
    }
    moved.TimelineEvent.push(...d.timeline.moved.map((m) => ({ id: w.before!.eventIds.get(m.key)!.id, position: m.position })));
    goneEvents.push(...d.timeline.deleted.map((e) => w.before!.eventIds.get(e.key)!.id));

    goneLinks.push(...d.links.removed.map((l) => w.before!.linkIds.get(linkKey(l))!));
    newLinks.push(...d.links.added.map((l) => ({ id: randomUUID(), incidentId, fromId: factors.get(l.from)!, toId: factors.get(l.to)!, kind: l.kind })));

    const actionables = new Map([...(w.before?.actionableIds ?? [])].map(([k, v]) => [k, v.id]));
    actionableIds.set(incidentId, actionables);
    const withChildren = (a: IncidentDocument['actionables'][number], actionableId: string) => {
      newReferences.push(...a.references.map((r, position) => ({ id: randomUUID(), actionableId, position, kind: r.kind, ref: r.ref, url: r.url })));
      newAddressed.push(...[...new Set(a.addresses)].map((key) => ({ actionableId, factorId: factors.get(key)! })));
    };
    for (const { item, position } of d.actionables.created) {
      const id = randomUUID();
      actionables.set(item.key, id);
      newActionables.push({ id, incidentId, key: item.key, position, ...actionableColumns(item) });
      withChildren(item, id);
    }
    for (const { item, position, fields } of d.actionables.updated) {
      const id = actionables.get(item.key)!;
      await tx.actionable.update({ where: { id }, data: { position, ...actionableColumns(item), version: { increment: 1 } } });
      if (fields.some((f) => f.field === 'references')) {
        replacedReferences.push(id);
        newReferences.push(...item.references.map((r, position) => ({ id: randomUUID(), actionableId: id, position, kind: r.kind, ref: r.ref, url: r.url })));
      }
      if (fields.some((f) => f.field === 'addresses')) {
        replacedAddresses.push(id);
        newAddressed.push(...[...new Set(item.addresses)].map((key) => ({ actionableId: id, factorId: factors.get(key)! })));
      }
    }
    moved.Actionable.push(...d.actionables.moved.map((m) => ({ id: actionables.get(m.key)!, position: m.position })));
    goneActionables.push(...d.actionables.deleted.map((a) => actionables.get(a.key)!));
  }

  await insertRows(tx, 'CausalFactor', { id: 'uuid', incidentId: 'uuid', key: 'text', position: 'int', title: 'text', role: 'FactorRole', component: 'text', text: 'text' }, newFactors);
  await writePositions(tx, 'CausalFactor', moved.CausalFactor);
  await insertRows(
    tx,
    'TimelineEvent',
    { id: 'uuid', incidentId: 'uuid', key: 'text', position: 'int', at: 'timestamptz', precision: 'TimePrecision', asWritten: 'text', kind: 'TimelineEventKind', text: 'text' },
    newEvents,
  );
  await writePositions(tx, 'TimelineEvent', moved.TimelineEvent);
  if (goneEvents.length > 0) await tx.timelineEvent.deleteMany({ where: { id: { in: goneEvents } } });
  if (goneLinks.length > 0) await tx.causalLink.deleteMany({ where: { id: { in: goneLinks } } });
  await insertRows(tx, 'CausalLink', { id: 'uuid', incidentId: 'uuid', fromId: 'uuid', toId: 'uuid', kind: 'CausalLinkKind' }, newLinks);

  if (goneActionables.length > 0) await tx.actionable.deleteMany({ where: { id: { in: goneActionables } } });
  await insertRows(
    tx,
    'Actionable',
    {
      id: 'uuid',
      incidentId: 'uuid',
      key: 'text',
      position: 'int',
      title: 'text',
      description: 'text',
      owner: 'text',
      status: 'ActionableStatus',
      dueDate: 'date',
    },
    newActionables,
  );
  await writePositions(tx, 'Actionable', moved.Actionable);
  if (replacedReferences.length > 0) await tx.externalReference.deleteMany({ where: { actionableId: { in: replacedReferences } } });
  await insertRows(tx, 'ExternalReference', { id: 'uuid', actionableId: 'uuid', position: 'int', kind: 'ReferenceKind', ref: 'text', url: 'text' }, newReferences);
  if (replacedAddresses.length > 0) await tx.actionableFactor.deleteMany({ where: { actionableId: { in: replacedAddresses } } });
  await insertRows(tx, 'ActionableFactor', { actionableId: 'uuid', factorId: 'uuid' }, newAddressed);
  if (goneFactors.length > 0) await tx.causalFactor.deleteMany({ where: { id: { in: goneFactors } } });
}

