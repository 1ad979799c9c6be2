import { Prisma } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { searchTextOf } from '../incident-writer';
import { writeSearchDocuments } from '../search-document';
import type { SyntheticIncident } from './synthetic-corpus';

type Tx = Prisma.TransactionClient;

const toDate = (iso: string | null | undefined) => iso ?? null;

/**
 * Bulk form of `writeIncidentDocument` for new incidents only (the synthetic corpus): one
 * multi-row INSERT per table per batch instead of about twenty statements per incident. It
 * stores the same columns the normal writer stores for a new published incident, and the search
 * document through the normal writer's own `writeSearchDocuments`; test/synth.spec.ts compares
 * both paths row by row. Runs inside the caller's transaction, so a batch lands whole or not at all.
 */
export async function bulkInsertIncidents(tx: Tx, batch: SyntheticIncident[]): Promise<void> {
  if (batch.length === 0) return;
  const patternKeys = [...new Set(batch.flatMap((b) => b.doc.patterns))];
  const patternRows = await tx.pattern.findMany({ where: { key: { in: patternKeys } }, select: { id: true, key: true } });
  const patternId = new Map(patternRows.map((p) => [p.key, p.id]));
  const unknown = patternKeys.filter((k) => !patternId.has(k));
  if (unknown.length > 0) throw AppError.badField('patterns', `unknown pattern ${unknown.map((p) => `"${p}"`).join(', ')}`);

  const incidents = batch.map(({ doc, ids }) => {
    const k = doc.keyTimes;
    return {
      id: ids.incident,
      slug: doc.slug,
      title: doc.title,
      organization: doc.organization,
      components: doc.components,
      summary: doc.summary,
      narrative: doc.narrative,
      impact: doc.impact,
      sourceTitle: doc.source.title,
      sourceUrl: doc.source.url,
      sourceLanguage: doc.source.language,
      startedAt: toDate(k.started?.at),
      startedPrecision: k.started?.precision ?? 'none',
      detectedAt: toDate(k.detected?.at),
      detectedPrecision: k.detected?.precision ?? 'none',
      mitigatedAt: toDate(k.mitigated?.at),
      mitigatedPrecision: k.mitigated?.precision ?? 'none',
      resolvedAt: toDate(k.resolved?.at),
      resolvedPrecision: k.resolved?.precision ?? 'none',
      searchText: searchTextOf(doc),
    };
  });
  await tx.$executeRaw`INSERT INTO "Incident" ("id", "slug", "status", "title", "organization", "components", "summary", "narrative", "impact",
      "sourceTitle", "sourceUrl", "sourceLanguage", "startedAt", "startedPrecision", "detectedAt", "detectedPrecision",
      "mitigatedAt", "mitigatedPrecision", "resolvedAt", "resolvedPrecision", "searchText")
    SELECT r."id", r."slug", 'published', r."title", r."organization", r."components", r."summary", r."narrative", r."impact",
      r."sourceTitle", r."sourceUrl", r."sourceLanguage", r."startedAt", r."startedPrecision"::"TimePrecision", r."detectedAt", r."detectedPrecision"::"TimePrecision",
      r."mitigatedAt", r."mitigatedPrecision"::"TimePrecision", r."resolvedAt", r."resolvedPrecision"::"TimePrecision", r."searchText"
    FROM jsonb_to_recordset(${JSON.stringify(incidents)}::jsonb) AS r("id" uuid, "slug" text, "title" text, "organization" text, "components" text[],
      "summary" text, "narrative" text, "impact" text, "sourceTitle" text, "sourceUrl" text, "sourceLanguage" text,
      "startedAt" timestamptz, "startedPrecision" text, "detectedAt" timestamptz, "detectedPrecision" text,
      "mitigatedAt" timestamptz, "mitigatedPrecision" text, "resolvedAt" timestamptz, "resolvedPrecision" text, "searchText" text)`;

  const events = batch.flatMap(({ doc, ids }) =>
    doc.timeline.map((e, position) => ({ id: ids.timeline[position], incidentId: ids.incident, key: e.key, position, at: e.at, precision: e.precision, asWritten: e.asWritten, kind: e.kind, text: e.text })),
  );
  await tx.$executeRaw`INSERT INTO "TimelineEvent" ("id", "incidentId", "key", "position", "at", "precision", "asWritten", "kind", "text")
    SELECT r."id", r."incidentId", r."key", r."position", r."at", r."precision"::"TimePrecision", r."asWritten", r."kind"::"TimelineEventKind", r."text"
    FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS r("id" uuid, "incidentId" uuid, "key" text, "position" int, "at" timestamptz, "precision" text, "asWritten" text, "kind" text, "text" text)`;

  const factorIds = new Map<string, string>();
  const factors = batch.flatMap(({ doc, ids }) =>
    doc.causalFactors.map((f, position) => {
      factorIds.set(`${ids.incident}/${f.key}`, ids.factors[position]!);
      return { id: ids.factors[position], incidentId: ids.incident, key: f.key, position, role: f.role, component: f.component, text: f.text };
    }),
  );
  await tx.$executeRaw`INSERT INTO "CausalFactor" ("id", "incidentId", "key", "position", "role", "component", "text")
    SELECT r."id", r."incidentId", r."key", r."position", r."role"::"FactorRole", r."component", r."text"
    FROM jsonb_to_recordset(${JSON.stringify(factors)}::jsonb) AS r("id" uuid, "incidentId" uuid, "key" text, "position" int, "role" text, "component" text, "text" text)`;

  const factor = (incidentId: string, key: string) => factorIds.get(`${incidentId}/${key}`)!;
  const links = batch.flatMap(({ doc, ids }) =>
    doc.causalLinks.map((l, i) => ({ id: ids.links[i], incidentId: ids.incident, fromId: factor(ids.incident, l.from), toId: factor(ids.incident, l.to), kind: l.kind })),
  );
  if (links.length > 0) {
    await tx.$executeRaw`INSERT INTO "CausalLink" ("id", "incidentId", "fromId", "toId", "kind")
      SELECT r."id", r."incidentId", r."fromId", r."toId", r."kind"::"CausalLinkKind"
      FROM jsonb_to_recordset(${JSON.stringify(links)}::jsonb) AS r("id" uuid, "incidentId" uuid, "fromId" uuid, "toId" uuid, "kind" text)`;
  }

  const actionables = batch.flatMap(({ doc, ids }) =>
    doc.actionables.map((a, position) => ({
      id: ids.actionables[position],
      incidentId: ids.incident,
      key: a.key,
      position,
      title: a.title,
      description: a.description,
      owner: a.owner,
      status: a.status,
      dueDate: a.dueDate,
    })),
  );
  await tx.$executeRaw`INSERT INTO "Actionable" ("id", "incidentId", "key", "position", "title", "description", "owner", "status", "dueDate")
    SELECT r."id", r."incidentId", r."key", r."position", r."title", r."description", r."owner", r."status"::"ActionableStatus", r."dueDate"
    FROM jsonb_to_recordset(${JSON.stringify(actionables)}::jsonb) AS r("id" uuid, "incidentId" uuid, "key" text, "position" int, "title" text, "description" text, "owner" text, "status" text, "dueDate" date)`;

  const references = batch.flatMap(({ doc, ids }) =>
    doc.actionables.flatMap((a, i) =>
      a.references.map((r, position) => ({ id: ids.references[i]![position], actionableId: ids.actionables[i], position, kind: r.kind, ref: r.ref, url: r.url })),
    ),
  );
  if (references.length > 0) {
    await tx.$executeRaw`INSERT INTO "ExternalReference" ("id", "actionableId", "position", "kind", "ref", "url")
      SELECT r."id", r."actionableId", r."position", r."kind"::"ReferenceKind", r."ref", r."url"
      FROM jsonb_to_recordset(${JSON.stringify(references)}::jsonb) AS r("id" uuid, "actionableId" uuid, "position" int, "kind" text, "ref" text, "url" text)`;
  }

  const addressed = batch.flatMap(({ doc, ids }) =>
    doc.actionables.flatMap((a, i) => [...new Set(a.addresses)].map((key) => ({ actionableId: ids.actionables[i], factorId: factor(ids.incident, key) }))),
  );
  if (addressed.length > 0) {
    await tx.$executeRaw`INSERT INTO "ActionableFactor" ("actionableId", "factorId")
      SELECT r."actionableId", r."factorId" FROM jsonb_to_recordset(${JSON.stringify(addressed)}::jsonb) AS r("actionableId" uuid, "factorId" uuid)`;
  }

  const incidentPatterns = batch.flatMap(({ doc, ids }) => doc.patterns.map((key) => ({ incidentId: ids.incident, patternId: patternId.get(key)! })));
  if (incidentPatterns.length > 0) {
    await tx.$executeRaw`INSERT INTO "IncidentPattern" ("incidentId", "patternId")
      SELECT r."incidentId", r."patternId" FROM jsonb_to_recordset(${JSON.stringify(incidentPatterns)}::jsonb) AS r("incidentId" uuid, "patternId" uuid)`;
  }

  // The search document and word list through the normal writer's own function.
  await writeSearchDocuments(tx, batch.map(({ doc, ids }) => ({ incidentId: ids.incident, doc })));
}
