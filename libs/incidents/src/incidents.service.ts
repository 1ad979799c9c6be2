import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, LIMITS, type ActionableStatus } from '@hindsight/domain';
import { buildTextSearch, type TextSearch } from './search-query';
import { checkPageSize, decodeCursor, encodeCursor } from './keyset';
import type { ActionableRecord, IncidentRecord, Page, PatternRecord } from './incident.types';

export const INCIDENT_ORDERS = ['STARTED_AT_DESC', 'STARTED_AT_ASC', 'TITLE_ASC', 'UPDATED_AT_DESC', 'RELEVANCE'] as const;
export type IncidentOrder = (typeof INCIDENT_ORDERS)[number];

export const ACTIONABLE_ORDERS = ['DUE_DATE_ASC', 'UPDATED_AT_DESC', 'CREATED_AT_ASC', 'PRIORITY'] as const;
export type ActionableOrder = (typeof ACTIONABLE_ORDERS)[number];

export interface IncidentFilter {
  /** Incidents showing any of these pattern keys. */
  patterns?: string[] | null;
  /** Case-insensitive part of the organization's name ("wikimedia" finds "Wikimedia Foundation"). */
  organization?: string | null;
  /** Case-insensitive part of a component's name ("apache" finds "Apache (mpm_prefork)"). */
  component?: string | null;
  /** Full-text search in `websearch_to_tsquery` syntax, stemmed, accent- and typo-tolerant (see search-query.ts). */
  text?: string | null;
  startedFrom?: Date | null;
  startedBefore?: Date | null;
}

export interface ActionableFilter {
  status?: ActionableStatus[] | null;
  owner?: string | null;
  overdue?: boolean | null;
  dueBefore?: Date | null;
  pattern?: string | null;
  incident?: string | null;
  hasExternalRef?: boolean | null;
}

export interface PageArgs<O extends string> {
  first?: number | null;
  after?: string | null;
  orderBy?: O | null;
}

interface SortSpec {
  expr: Prisma.Sql;
  cast: Prisma.Sql;
  desc: boolean;
}

const INCIDENT_SORT: Record<Exclude<IncidentOrder, 'RELEVANCE'>, SortSpec> = {
  STARTED_AT_DESC: { expr: Prisma.sql`COALESCE(i."startedAt", '-infinity'::timestamptz)`, cast: Prisma.sql`timestamptz`, desc: true },
  STARTED_AT_ASC: { expr: Prisma.sql`COALESCE(i."startedAt", '-infinity'::timestamptz)`, cast: Prisma.sql`timestamptz`, desc: false },
  TITLE_ASC: { expr: Prisma.sql`lower(i."title")`, cast: Prisma.sql`text`, desc: false },
  UPDATED_AT_DESC: { expr: Prisma.sql`i."updatedAt"`, cast: Prisma.sql`timestamptz`, desc: true },
};

const ACTIONABLE_SORT: Record<ActionableOrder, SortSpec> = {
  DUE_DATE_ASC: { expr: Prisma.sql`COALESCE(a."dueDate", 'infinity'::date)`, cast: Prisma.sql`date`, desc: false },
  UPDATED_AT_DESC: { expr: Prisma.sql`a."updatedAt"`, cast: Prisma.sql`timestamptz`, desc: true },
  CREATED_AT_ASC: { expr: Prisma.sql`a."createdAt"`, cast: Prisma.sql`timestamptz`, desc: false },
  // Most urgent first (p0 … p3, then none), then soonest due. One fixed-width text key, so the
  // keyset cursor stays a single value; "C" collation compares it byte by byte.
  PRIORITY: {
    expr: Prisma.sql`((COALESCE(a."priority"::text, 'p9') || COALESCE(to_char(a."dueDate", 'YYYY-MM-DD'), '9999-12-31')) COLLATE "C")`,
    cast: Prisma.sql`text`,
    desc: false,
  },
};

/**
 * Search terms are short: a megabyte of text would only make every comparison slow. Refused
 * with the field named, rather than searched for.
 */
function checkFilterTexts(prefix: string, values: Record<string, string | null | undefined>): void {
  const problems = Object.entries(values)
    .filter(([, v]) => typeof v === 'string' && v.length > LIMITS.shortText)
    .map(([k, v]) => ({ field: `${prefix}.${k}`, reason: `is ${v!.length} characters long; the limit is ${LIMITS.shortText}` }));
  if (problems.length > 0) throw AppError.badInput(problems);
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Read side of the knowledge base: incidents, actionables across incidents, patterns. */
@Injectable()
export class IncidentsService {
  constructor(private readonly prisma: PrismaService) {}

  /** A published incident; with `includeDrafts` (the caller may edit), a draft as well. */
  async findBySlug(slug: string, options: { includeDrafts?: boolean } = {}): Promise<IncidentRecord> {
    const incident = await this.prisma.incident.findFirst({ where: { slug, ...(options.includeDrafts ? {} : { status: 'published' as const }) } });
    if (!incident) throw AppError.notFound('Incident', slug, 'slug');
    return incident;
  }

  /** The current slug of a published incident that used to be reachable as `slug`, or null. */
  async resolveSlugAlias(slug: string): Promise<string | null> {
    const alias = await this.prisma.incidentSlugAlias.findUnique({
      where: { slug },
      select: { incident: { select: { slug: true, status: true } } },
    });
    return alias?.incident.status === 'published' ? alias.incident.slug : null;
  }

  async listIncidents(filter: IncidentFilter = {}, args: PageArgs<IncidentOrder> = {}): Promise<Page<IncidentRecord> & { search: TextSearch | null }> {
    const search = filter.text && filter.text.trim() !== '' ? await buildTextSearch(this.prisma, filter.text) : null;
    const orderBy = args.orderBy ?? (search ? 'RELEVANCE' : 'STARTED_AT_DESC');
    if (orderBy === 'RELEVANCE' && !search) throw AppError.badField('orderBy', 'RELEVANCE orders search results; give filter.text');
    const where = this.incidentWhere(filter);
    // Ranks compare only within one search, so a relevance cursor is tied to its query too.
    const sort: SortSpec =
      orderBy === 'RELEVANCE' ? { expr: Prisma.sql`ts_rank(i."searchDocument", s.q)`, cast: Prisma.sql`real`, desc: true } : INCIDENT_SORT[orderBy];
    const page = await this.keysetPage(
      search
        ? Prisma.sql`FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s WHERE ${where} AND i."searchDocument" @@ s.q`
        : Prisma.sql`FROM "Incident" i WHERE ${where}`,
      Prisma.sql`i."id"`,
      sort,
      orderBy === 'RELEVANCE' ? `RELEVANCE:${search!.fingerprint}` : orderBy,
      args,
    );
    const rows = await this.prisma.incident.findMany({ where: { id: { in: page.ids } } });
    return { ...page, nodes: orderLike(page.ids, rows), search };
  }

  async listActionables(filter: ActionableFilter = {}, args: PageArgs<ActionableOrder> = {}): Promise<Page<ActionableRecord>> {
    const where = this.actionableWhere(filter);
    const orderBy = args.orderBy ?? 'DUE_DATE_ASC';
    const page = await this.keysetPage(
      Prisma.sql`FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId" WHERE ${where}`,
      Prisma.sql`a."id"`,
      ACTIONABLE_SORT[orderBy],
      orderBy,
      args,
    );
    const rows = await this.prisma.actionable.findMany({ where: { id: { in: page.ids } } });
    return { ...page, nodes: orderLike(page.ids, rows) };
  }

  async listPatterns(): Promise<PatternWithCount[]> {
    const patterns = await this.prisma.pattern.findMany({ orderBy: { key: 'asc' }, include: PATTERN_COUNT });
    return patterns.map(withCount);
  }

  async findPattern(key: string): Promise<PatternWithCount> {
    const pattern = await this.prisma.pattern.findUnique({ where: { key }, include: PATTERN_COUNT });
    if (!pattern) throw AppError.notFound('Pattern', key, 'key');
    return withCount(pattern);
  }

  private incidentWhere(filter: IncidentFilter): Prisma.Sql {
    const patterns = Object.fromEntries((filter.patterns ?? []).map((p, i) => [`patterns[${i}]`, p]));
    checkFilterTexts('filter', { text: filter.text, organization: filter.organization, component: filter.component, ...patterns });
    const parts: Prisma.Sql[] = [Prisma.sql`i."status" = 'published'`];
    if (filter.patterns && filter.patterns.length > 0) {
      parts.push(Prisma.sql`EXISTS (SELECT 1 FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId"
        WHERE ip."incidentId" = i."id" AND p."key" IN (${Prisma.join(filter.patterns)}))`);
    }
    if (filter.organization) parts.push(Prisma.sql`i."organization" ILIKE ${likePattern(filter.organization.trim())}`);
    if (filter.component) {
      parts.push(Prisma.sql`EXISTS (SELECT 1 FROM unnest(i."components") c WHERE c ILIKE ${likePattern(filter.component.trim())})`);
    }
    if (filter.startedFrom) parts.push(Prisma.sql`i."startedAt" >= ${filter.startedFrom}`);
    if (filter.startedBefore) parts.push(Prisma.sql`i."startedAt" < ${filter.startedBefore}`);
    return Prisma.join(parts, ' AND ');
  }

  private actionableWhere(filter: ActionableFilter): Prisma.Sql {
    checkFilterTexts('filter', { owner: filter.owner, pattern: filter.pattern, incident: filter.incident });
    const parts: Prisma.Sql[] = [Prisma.sql`i."status" = 'published'`];
    if (filter.status && filter.status.length > 0) {
      parts.push(Prisma.sql`a."status"::text IN (${Prisma.join(filter.status)})`);
    }
    if (filter.owner) parts.push(Prisma.sql`lower(a."owner") = lower(${filter.owner})`);
    const overdue = Prisma.sql`(a."dueDate" < CURRENT_DATE AND a."status" IN ('open', 'in_progress'))`;
    if (filter.overdue === true) parts.push(overdue);
    if (filter.overdue === false) parts.push(Prisma.sql`NOT ${overdue}`);
    if (filter.dueBefore) parts.push(Prisma.sql`a."dueDate" < ${filter.dueBefore}::date`);
    if (filter.pattern) {
      parts.push(Prisma.sql`EXISTS (SELECT 1 FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId"
        WHERE ip."incidentId" = i."id" AND p."key" = ${filter.pattern})`);
    }
    if (filter.incident) parts.push(Prisma.sql`i."slug" = ${filter.incident}`);
    if (filter.hasExternalRef != null) {
      const exists = Prisma.sql`EXISTS (SELECT 1 FROM "ExternalReference" r WHERE r."actionableId" = a."id")`;
      parts.push(filter.hasExternalRef ? exists : Prisma.sql`NOT ${exists}`);
    }
    return Prisma.join(parts, ' AND ');
  }

  /** One count and one page query; the page carries the sort value for the cursors. */
  private async keysetPage(
    from: Prisma.Sql,
    id: Prisma.Sql,
    sort: SortSpec,
    order: string,
    args: PageArgs<string>,
  ): Promise<Omit<Page<never>, 'nodes'> & { ids: string[] }> {
    const size = checkPageSize(args.first);
    const cursor = args.after ? decodeCursor(args.after, order) : null;
    const comparator = sort.desc ? Prisma.sql`<` : Prisma.sql`>`;
    const direction = sort.desc ? Prisma.sql`DESC` : Prisma.sql`ASC`;
    const after = cursor
      ? Prisma.sql`AND (${sort.expr}, ${id}) ${comparator} (CAST(${cursor.value} AS ${sort.cast}), CAST(${cursor.id} AS uuid))`
      : Prisma.empty;
    const [countRows, rows] = await Promise.all([
      this.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n ${from}`,
      this.prisma.$queryRaw<{ id: string; sort: string }[]>`
        SELECT ${id}::text AS id, ${sort.expr}::text AS sort ${from} ${after}
        ORDER BY ${sort.expr} ${direction}, ${id} ${direction}
        LIMIT ${size + 1}`,
    ]);
    const pageRows = rows.slice(0, size);
    return {
      ids: pageRows.map((r) => r.id),
      cursors: pageRows.map((r) => encodeCursor({ order, value: r.sort, id: r.id })),
      totalCount: Number(countRows[0]?.n ?? 0),
      hasNextPage: rows.length > size,
      hasPreviousPage: cursor !== null,
    };
  }
}

const PATTERN_COUNT = { _count: { select: { incidents: { where: { incident: { status: 'published' as const } } } } } };

export type PatternWithCount = PatternRecord & { incidentCount: number };

function withCount({ _count, ...p }: PatternRecord & { _count: { incidents: number } }): PatternWithCount {
  return { ...p, incidentCount: _count.incidents };
}

function orderLike<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}
