import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, LIMITS } from '@hindsight/domain';
import { appendAuditEvents } from './audit-log';
import type { Actor } from './tracking.types';
import { checkId, inWriteTransaction } from './write-transaction';

type Tx = Prisma.TransactionClient;

export const CITED_KINDS = ['incident', 'causal_factor', 'actionable', 'pattern'] as const;
export type CitedKind = (typeof CITED_KINDS)[number];

/** A record a runbook can cite, by its row id. */
export interface CitedTarget {
  kind: CitedKind;
  id: string;
}

export interface RunbookRecord {
  id: string;
  url: string;
  title: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface RunbookCitationRecord {
  id: string;
  kind: CitedKind;
  citedBy: string;
  citedAt: Date;
  runbook: RunbookRecord;
  incidentId: string | null;
  factorId: string | null;
  actionableId: string | null;
  patternId: string | null;
}

/** What a change to a cited record did, and which runbooks to check because of it. */
export interface CitationNotice {
  target: CitedTarget;
  /** `closed`, `renamed` (slug or key), `retitled`. */
  change: 'closed' | 'renamed' | 'retitled';
  message: string;
  runbooks: RunbookRecord[];
}

const MAX_URL = 2_000;
const TARGET_COLUMN = { incident: 'incidentId', causal_factor: 'factorId', actionable: 'actionableId', pattern: 'patternId' } as const;
const KIND_WORD = { incident: 'incident', causal_factor: 'causal factor', actionable: 'follow-up', pattern: 'pattern' } as const;
const CHANGE_WORD = { closed: 'was closed', renamed: 'was renamed', retitled: 'has a new title' } as const;

/** A citation is always read with its runbook. */
const WITH_RUNBOOK = { runbook: true } as const satisfies Prisma.RunbookCitationInclude;

export function checkRunbook(url: unknown, title: unknown, prefix = 'input.'): { url: string; title: string } {
  const problems: { field: string; reason: string }[] = [];
  const u = typeof url === 'string' ? url.trim() : '';
  const t = typeof title === 'string' ? title.trim().replace(/\s+/g, ' ') : '';
  let parsed: URL | null = null;
  try {
    parsed = new URL(u);
  } catch {
    parsed = null;
  }
  if (u === '') problems.push({ field: `${prefix}url`, reason: 'is empty; expected the runbook\'s http(s) address' });
  else if (u.length > MAX_URL) problems.push({ field: `${prefix}url`, reason: `is ${u.length} characters long; the limit is ${MAX_URL}` });
  else if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) problems.push({ field: `${prefix}url`, reason: `"${u.slice(0, 80)}" is not an http(s) address` });
  if (t === '') problems.push({ field: `${prefix}title`, reason: 'is empty; expected the runbook\'s title' });
  else if (t.length > LIMITS.title) problems.push({ field: `${prefix}title`, reason: `is ${t.length} characters long; the limit is ${LIMITS.title}` });
  if (problems.length > 0) throw AppError.badInput(problems);
  return { url: parsed!.toString(), title: t };
}

/**
 * Runbooks (pages in another tool, known by URL and title) and the records they cite. A runbook
 * registers a citation of an incident, a causal factor, a follow-up or a pattern; every record's
 * page and API field lists the runbooks citing it, and a change that may make a runbook wrong
 * (closing a follow-up, renaming or retitling what it cites) gives the editor a notice naming
 * them. Writes are transactional and audited (entity `runbook`, keyed by the runbook's URL, on the
 * cited record's incident and follow-up so their history shows it).
 */
@Injectable()
export class RunbooksService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Registers that the runbook at `url` cites `target`, creating the runbook on first use and
   * updating its title when it changed. Citing twice is not an error: the existing citation is
   * returned with `created: false`.
   */
  async cite(input: { url: string; title: string; target: CitedTarget }, actor: Actor): Promise<{ citation: RunbookCitationRecord; created: boolean }> {
    const { url, title } = checkRunbook(input.url, input.title);
    checkId(KIND_WORD[input.target.kind], input.target.id);
    return inWriteTransaction(this.prisma, async (tx) => {
      const where = await this.targetScope(tx, input.target, 'input.target');
      const now = new Date();
      // Serialises writers of one runbook URL: the first creates it, the others find it.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`runbook:${url}`}, 0))`;
      let runbook = await tx.runbook.findUnique({ where: { url } });
      if (!runbook) {
        runbook = await tx.runbook.create({ data: { url, title, createdBy: actor.name, createdAt: now, updatedAt: now } });
        await appendAuditEvents(tx, actor, now, null, [{ entity: 'runbook', entityKey: url, action: 'create', to: { url, title } }]);
      } else if (runbook.title !== title) {
        await appendAuditEvents(tx, actor, now, null, [{ entity: 'runbook', entityKey: url, action: 'update', field: 'title', from: runbook.title, to: title }]);
        runbook = await tx.runbook.update({ where: { id: runbook.id }, data: { title, updatedAt: now } });
      }
      const column = TARGET_COLUMN[input.target.kind];
      const existing = await tx.runbookCitation.findFirst({ where: { runbookId: runbook.id, [column]: input.target.id }, include: WITH_RUNBOOK });
      if (existing) return { citation: existing, created: false };
      const citation = await tx.runbookCitation.create({
        data: { runbookId: runbook.id, kind: input.target.kind, [column]: input.target.id, citedBy: actor.name, citedAt: now },
        include: WITH_RUNBOOK,
      });
      await appendAuditEvents(tx, actor, now, null, [
        { entity: 'runbook', entityKey: url, action: 'update', field: 'cites', from: null, to: where.label, incidentId: where.incidentId, actionableId: where.actionableId },
      ]);
      return { citation, created: true };
    });
  }

  /** Removes one citation (the runbook stays, with its other citations). */
  async uncite(citationId: string, actor: Actor, field = 'input.citationId'): Promise<RunbookCitationRecord> {
    checkId('RunbookCitation', citationId);
    return inWriteTransaction(this.prisma, async (tx) => {
      const citation = await tx.runbookCitation.findUnique({ where: { id: citationId }, include: WITH_RUNBOOK });
      if (!citation) throw AppError.notFound('RunbookCitation', citationId, field);
      const target = targetOf(citation);
      const where = await this.targetScope(tx, target, field);
      const deleted = await tx.runbookCitation.deleteMany({ where: { id: citationId } });
      // A concurrent removal got there first: nothing is left to remove.
      if (deleted.count !== 1) throw AppError.notFound('RunbookCitation', citationId, field);
      await appendAuditEvents(tx, actor, new Date(), null, [
        { entity: 'runbook', entityKey: citation.runbook.url, action: 'update', field: 'cites', from: where.label, to: null, incidentId: where.incidentId, actionableId: where.actionableId },
      ]);
      return citation;
    });
  }

  async findCitation(id: string): Promise<RunbookCitationRecord | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    return this.prisma.runbookCitation.findUnique({ where: { id }, include: WITH_RUNBOOK });
  }

  /** The citations of one record, by runbook title. */
  async citationsOf(target: CitedTarget): Promise<RunbookCitationRecord[]> {
    return (await this.citationsOfMany(target.kind, [target.id])).get(target.id) ?? [];
  }

  /** Citations of many records of one kind in one statement, keyed by the record's id (for loaders and pages). */
  async citationsOfMany(kind: CitedKind, ids: readonly string[]): Promise<Map<string, RunbookCitationRecord[]>> {
    const out = new Map<string, RunbookCitationRecord[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const column = TARGET_COLUMN[kind];
    // One statement with the join (an include would be a second one).
    const rows = await this.prisma.$queryRaw<(Omit<RunbookCitationRecord, 'runbook'> & { runbookJson: RunbookRecord & { createdAt: string; updatedAt: string } })[]>`
      SELECT c."id"::text AS id, c."kind"::text AS kind, c."citedBy", c."citedAt",
             c."incidentId"::text AS "incidentId", c."factorId"::text AS "factorId", c."actionableId"::text AS "actionableId", c."patternId"::text AS "patternId",
             json_build_object('id', r."id", 'url', r."url", 'title', r."title", 'createdBy', r."createdBy", 'createdAt', r."createdAt", 'updatedAt', r."updatedAt") AS "runbookJson"
      FROM "RunbookCitation" c JOIN "Runbook" r ON r."id" = c."runbookId"
      WHERE c.${Prisma.raw(`"${column}"`)} = ANY(${[...ids]}::uuid[])
      ORDER BY r."title", r."url"`;
    for (const { runbookJson: r, ...c } of rows) {
      const record: RunbookCitationRecord = { ...c, runbook: { ...r, createdAt: new Date(r.createdAt), updatedAt: new Date(r.updatedAt) } };
      out.get(record[column]!)?.push(record);
    }
    return out;
  }

  /** The runbooks of a record's citations, in a notice for a change that may make them wrong; null when none cites it. */
  async notice(target: CitedTarget, change: CitationNotice['change'], name: string): Promise<CitationNotice | null> {
    const citations = await this.citationsOf(target);
    if (citations.length === 0) return null;
    const runbooks = citations.map((c) => c.runbook);
    const titles = runbooks.map((r) => `“${r.title}”`).join(', ');
    const message = `The ${KIND_WORD[target.kind]} “${name}” ${CHANGE_WORD[change]}; ${runbooks.length === 1 ? 'one runbook cites' : `${runbooks.length} runbooks cite`} it and may need an update: ${titles}.`;
    return { target, change, message, runbooks };
  }

  /**
   * The record a page names (an incident by slug, a factor or follow-up by incident slug and key,
   * a pattern by key), with its title and the page that shows it; null when there is none.
   */
  async findTarget(kind: CitedKind, slug: string, key: string): Promise<{ target: CitedTarget; name: string; path: string } | null> {
    const incident = { OR: [{ slug }, { slugAliases: { some: { slug } } }] };
    const page = (s: string) => `/incidents/${encodeURIComponent(s)}`;
    switch (kind) {
      case 'incident': {
        const row = await this.prisma.incident.findFirst({ where: incident, select: { id: true, slug: true, title: true } });
        return row ? { target: { kind, id: row.id }, name: row.title, path: page(row.slug) } : null;
      }
      case 'causal_factor': {
        const row = await this.prisma.causalFactor.findFirst({ where: { key, incident }, select: { id: true, key: true, title: true, text: true, incident: { select: { slug: true } } } });
        // A factor is named by its written title where it has one, as the pages name it.
        return row ? { target: { kind, id: row.id }, name: row.title ?? row.text, path: `${page(row.incident.slug)}#factor-${row.key}` } : null;
      }
      case 'actionable': {
        const row = await this.prisma.actionable.findFirst({ where: { key, incident }, select: { id: true, key: true, title: true, incident: { select: { slug: true } } } });
        return row ? { target: { kind, id: row.id }, name: row.title, path: `${page(row.incident.slug)}#actionable-${row.key}` } : null;
      }
      case 'pattern': {
        const row = await this.prisma.pattern.findUnique({ where: { key }, select: { id: true, key: true, name: true } });
        return row ? { target: { kind, id: row.id }, name: row.name, path: `/patterns/${encodeURIComponent(row.key)}` } : null;
      }
    }
  }

  /** The incident slug and key that name a citation's record on the pages (what `findTarget` takes). */
  async citePageOf(c: RunbookCitationRecord): Promise<{ kind: CitedKind; slug: string; key: string } | null> {
    const t = targetOf(c);
    if (t.kind === 'pattern') {
      const p = await this.prisma.pattern.findUnique({ where: { id: t.id }, select: { key: true } });
      return p ? { kind: t.kind, slug: '', key: p.key } : null;
    }
    if (t.kind === 'incident') {
      const i = await this.prisma.incident.findUnique({ where: { id: t.id }, select: { slug: true } });
      return i ? { kind: t.kind, slug: i.slug, key: '' } : null;
    }
    const row =
      t.kind === 'causal_factor'
        ? await this.prisma.causalFactor.findUnique({ where: { id: t.id }, select: { key: true, incident: { select: { slug: true } } } })
        : await this.prisma.actionable.findUnique({ where: { id: t.id }, select: { key: true, incident: { select: { slug: true } } } });
    return row ? { kind: t.kind, slug: row.incident.slug, key: row.key } : null;
  }

  /** Checks the target exists (drafts included: editors cite what they edit) and names it for the audit trail. */
  private async targetScope(tx: Tx, target: CitedTarget, field: string): Promise<{ label: string; incidentId: string | null; actionableId: string | null }> {
    switch (target.kind) {
      case 'incident': {
        const row = await tx.incident.findUnique({ where: { id: target.id }, select: { slug: true } });
        if (!row) throw AppError.notFound('Incident', target.id, field);
        return { label: `incident:${row.slug}`, incidentId: target.id, actionableId: null };
      }
      case 'causal_factor': {
        const row = await tx.causalFactor.findUnique({ where: { id: target.id }, select: { key: true, incidentId: true, incident: { select: { slug: true } } } });
        if (!row) throw AppError.notFound('CausalFactor', target.id, field);
        return { label: `causal_factor:${row.incident.slug}/${row.key}`, incidentId: row.incidentId, actionableId: null };
      }
      case 'actionable': {
        const row = await tx.actionable.findUnique({ where: { id: target.id }, select: { key: true, incidentId: true, incident: { select: { slug: true } } } });
        if (!row) throw AppError.notFound('Actionable', target.id, field);
        return { label: `actionable:${row.incident.slug}/${row.key}`, incidentId: row.incidentId, actionableId: target.id };
      }
      case 'pattern': {
        const row = await tx.pattern.findUnique({ where: { id: target.id }, select: { key: true } });
        if (!row) throw AppError.notFound('Pattern', target.id, field);
        return { label: `pattern:${row.key}`, incidentId: null, actionableId: null };
      }
    }
  }
}

export function targetOf(c: Pick<RunbookCitationRecord, 'kind' | 'incidentId' | 'factorId' | 'actionableId' | 'patternId'>): CitedTarget {
  return { kind: c.kind, id: (c.incidentId ?? c.factorId ?? c.actionableId ?? c.patternId)! };
}
