import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, LIMITS, normalizeTags, type ActionableStatus } from '@hindsight/domain';
import { buildTextSearch, searchMatch, type TextSearch } from './search-query';
import { encodeCursor, pageWindow } from './keyset';
import type { ActionableRecord, IncidentRecord, Page, PatternRecord } from './incident.types';
import { IncidentLoaders } from './incident-loaders';
import { actionableTreeColumns, incidentTreeColumns, treeOf, treeRow, type ActionableInclude, type IncidentInclude } from './incident-tree-query';

/** How to build the nodes of a page: the request's loaders and what the query selected under them. */
export interface TreeOptions<I> {
  loaders?: IncidentLoaders;
  include?: I;
}

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
  /** Incidents at any of these severity levels. */
  severity?: string[] | null;
  nearMiss?: boolean | null;
  /** Incidents carrying every one of these tags (normalised like stored tags). */
  tags?: string[] | null;
  /** Incidents with at least one follow-up in any of these statuses. */
  actionableStatus?: ActionableStatus[] | null;
}

export interface ActionableFilter {
  status?: ActionableStatus[] | null;
  owner?: string | null;
  /** Account id: items it owns, or one of its teams owns. */
  assignedTo?: string | null;
  overdue?: boolean | null;
  dueBefore?: Date | null;
  pattern?: string | null;
  incident?: string | null;
  hasExternalRef?: boolean | null;
}

export interface PageArgs<O extends string> {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
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

/** Matches a relevance-ordered search ranks; see `relevancePool`. */
export const RELEVANCE_POOL = 300;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Read side of the knowledge base: incidents, actionables across incidents, patterns. */
@Injectable()
export class IncidentsService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * A published incident by its slug or by a slug it used to have (a rename keeps the old one as
   * an alias, so links in runbooks keep working), in one statement with every nested collection
   * `include` names (see incident-tree-query.ts); with `includeDrafts` (the caller may edit), a
   * draft as well. The record carries the current slug: callers that show a URL compare it with
   * the one they were given.
   */
  async findBySlug(slug: string, options: TreeOptions<IncidentInclude> & { includeDrafts?: boolean } = {}): Promise<IncidentRecord> {
    const loaders = options.loaders ?? new IncidentLoaders(this.prisma);
    const [incident] = await loaders.loadIncidentTrees({ slug }, { narrative: true, ...options.include }, { includeDrafts: options.includeDrafts });
    if (!incident) throw AppError.notFound('Incident', slug, 'slug');
    return incident;
  }

  async listIncidents(
    filter: IncidentFilter = {},
    args: PageArgs<IncidentOrder> = {},
    options: TreeOptions<IncidentInclude> = {},
  ): Promise<Page<IncidentRecord> & { search: TextSearch | null }> {
    // The filter is checked (lengths included) before the search it holds is looked up.
    const where = this.incidentWhere(filter);
    const search = filter.text && filter.text.trim() !== '' ? await buildTextSearch(this.prisma, filter.text) : null;
    const orderBy = args.orderBy ?? (search ? 'RELEVANCE' : 'STARTED_AT_DESC');
    if (orderBy === 'RELEVANCE' && !search) throw AppError.badField('orderBy', 'RELEVANCE orders search results; give filter.text');
    // Ranks compare only within one search, so a relevance cursor is tied to its query too.
    const sort: SortSpec =
      orderBy === 'RELEVANCE' ? { expr: Prisma.sql`ts_rank(i."searchRank", s.q)`, cast: Prisma.sql`real`, desc: true } : INCIDENT_SORT[orderBy];
    const include = options.include ?? { narrative: true };
    const { rows, ...page } = await this.keysetPage(
      orderBy === 'RELEVANCE' ? this.relevancePool(where, search!) : this.fromWhere(where, search),
      Prisma.sql`i."id"`,
      sort,
      orderBy === 'RELEVANCE' ? `RELEVANCE:${search!.fingerprint}` : orderBy,
      args,
      { columns: incidentTreeColumns(include), table: Prisma.sql`"Incident" i` },
      search ? this.countedFromIndex(where, search) : this.fromWhere(where, search),
      search !== null,
    );
    const loaders = options.loaders ?? new IncidentLoaders(this.prisma);
    return { ...page, nodes: loaders.incidentsFromTreeRows(rows, include), search };
  }

  async listActionables(
    filter: ActionableFilter = {},
    args: PageArgs<ActionableOrder> = {},
    options: TreeOptions<ActionableInclude> = {},
  ): Promise<Page<ActionableRecord>> {
    const where = this.actionableWhere(filter);
    const orderBy = args.orderBy ?? 'DUE_DATE_ASC';
    const include = options.include ?? {};
    const { rows, ...page } = await this.keysetPage(
      Prisma.sql`FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId" WHERE ${where}`,
      Prisma.sql`a."id"`,
      ACTIONABLE_SORT[orderBy],
      orderBy,
      args,
      { columns: actionableTreeColumns(include), table: Prisma.sql`"Actionable" a` },
    );
    const loaders = options.loaders ?? new IncidentLoaders(this.prisma);
    return { ...page, nodes: loaders.actionablesFromTreeRows(rows, include) };
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

  /**
   * `FROM … WHERE …` of the published incidents a filter (and its parsed text search) selects,
   * aliased `i`; facets and "did you mean" count over it.
   */
  resultSetSql(filter: IncidentFilter, search: TextSearch | null): Prisma.Sql {
    return this.fromWhere(this.incidentWhere(filter), search);
  }

  /**
   * Relevance ranks at most RELEVANCE_POOL matches, so a word found in most of 100,000 incidents
   * does not rank them all on every page; paging in this order ends after the pool. The pool is
   * the first matches the plan yields (a sequential scan's or the index's order, both in the
   * table's physical order, which stays put between calls since the app's connections turn off
   * synchronized scans); below the pool size, which is every rare word, typo and phrase,
   * ranking is exact. Ranking reads `searchRank`, kept in the row.
   *
   * The matches are a MATERIALIZED CTE, planned as if every match were read, and the LIMIT is
   * applied outside it (a CTE is read only as far as its reader asks). With the LIMIT inside, the
   * planner expected 300 matches early in a sequential scan and chose one even for a phrase or
   * an uncommon word, which then decompressed most search documents looking for matches; planned
   * for all matches, it reads the GIN index and only rechecks documents holding every word.
   */
  private relevancePool(where: Prisma.Sql, search: TextSearch): Prisma.Sql {
    return Prisma.sql`FROM (WITH matches AS MATERIALIZED (
        SELECT i."id", i."searchRank", s.q FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s WHERE ${where} AND ${searchMatch('i', search, Prisma.sql`s.q`)})
      SELECT * FROM matches LIMIT ${RELEVANCE_POOL}) i CROSS JOIN LATERAL (SELECT i.q) s WHERE true`;
  }

  /**
   * `fromWhere` for a search's count: the match alone in a fenced subquery (`OFFSET 0` keeps the
   * filters out of it), so the only index that can answer it is the search document's; with the
   * status filter beside it, the planner could read the partial indexes of published incidents
   * instead and test each row's document. Run through `fromSearchIndex`.
   */
  private countedFromIndex(where: Prisma.Sql, search: TextSearch): Prisma.Sql {
    return Prisma.sql`FROM (SELECT * FROM "Incident" m WHERE ${searchMatch('m', search, search.tsquery)} OFFSET 0) i WHERE ${where}`;
  }

  private fromWhere(where: Prisma.Sql, search: TextSearch | null): Prisma.Sql {
    return search
      ? Prisma.sql`FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s WHERE ${where} AND ${searchMatch('i', search, Prisma.sql`s.q`)}`
      : Prisma.sql`FROM "Incident" i WHERE ${where}`;
  }

  /** No search and no other filter: the whole published list (its only condition is being published). */
  isUnfiltered(filter: IncidentFilter, search: TextSearch | null): boolean {
    return !search && this.incidentConditions(filter).length === 1;
  }

  private incidentWhere(filter: IncidentFilter): Prisma.Sql {
    return Prisma.join(this.incidentConditions(filter), ' AND ');
  }

  private incidentConditions(filter: IncidentFilter): Prisma.Sql[] {
    const patterns = Object.fromEntries((filter.patterns ?? []).map((p, i) => [`patterns[${i}]`, p]));
    const listed = (name: string, values: string[] | null | undefined) => Object.fromEntries((values ?? []).map((v, i) => [`${name}[${i}]`, v]));
    checkFilterTexts('filter', {
      text: filter.text,
      organization: filter.organization,
      component: filter.component,
      ...patterns,
      ...listed('severity', filter.severity),
      ...listed('tags', filter.tags),
    });
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
    if (filter.severity && filter.severity.length > 0) parts.push(Prisma.sql`i."severity" = ANY(${[...filter.severity]}::text[])`);
    if (filter.nearMiss != null) parts.push(Prisma.sql`i."nearMiss" = ${filter.nearMiss}`);
    if (filter.actionableStatus && filter.actionableStatus.length > 0) {
      parts.push(Prisma.sql`EXISTS (SELECT 1 FROM "Actionable" fa WHERE fa."incidentId" = i."id" AND fa."status" = ANY(${[...filter.actionableStatus]}::"ActionableStatus"[]))`);
    }
    const tags = normalizeTags(filter.tags ?? []);
    if (tags.length > 0) parts.push(Prisma.sql`i."tags" @> ${tags}::text[]`);
    return parts;
  }

  private actionableWhere(filter: ActionableFilter): Prisma.Sql {
    checkFilterTexts('filter', { owner: filter.owner, pattern: filter.pattern, incident: filter.incident });
    const parts: Prisma.Sql[] = [Prisma.sql`i."status" = 'published'`];
    if (filter.status && filter.status.length > 0) {
      parts.push(Prisma.sql`a."status" = ANY(${[...filter.status]}::"ActionableStatus"[])`);
    }
    if (filter.owner) {
      const like = likePattern(filter.owner.trim());
      parts.push(Prisma.sql`(a."owner" ILIKE ${like}
        OR EXISTS (SELECT 1 FROM "Account" ac WHERE ac."id" = a."ownerAccountId" AND ac."name" ILIKE ${like})
        OR EXISTS (SELECT 1 FROM "Team" tm WHERE tm."id" = a."ownerTeamId" AND tm."name" ILIKE ${like}))`);
    }
    if (filter.assignedTo) {
      parts.push(Prisma.sql`(a."ownerAccountId" = ${filter.assignedTo}::uuid
        OR a."ownerTeamId" IN (SELECT tmm."teamId" FROM "TeamMember" tmm WHERE tmm."accountId" = ${filter.assignedTo}::uuid))`);
    }
    const overdue = Prisma.sql`(a."dueDate" < CURRENT_DATE AND a."status" IN ('open', 'in_progress'))`;
    if (filter.overdue === true) parts.push(overdue);
    // Three-valued: an item with no due date is not overdue, so `NOT` alone would drop it (NULL).
    if (filter.overdue === false) parts.push(Prisma.sql`${overdue} IS NOT TRUE`);
    if (filter.dueBefore) parts.push(Prisma.sql`a."dueDate" < ${filter.dueBefore}::date`);
    if (filter.pattern) {
      parts.push(Prisma.sql`EXISTS (SELECT 1 FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId"
        WHERE ip."incidentId" = i."id" AND p."key" = ${filter.pattern})`);
    }
    if (filter.incident) {
      // The slug or an old one, each by its unique index (an OR of the two scans every incident).
      parts.push(Prisma.sql`i."id" IN (SELECT x."id" FROM "Incident" x WHERE x."slug" = ${filter.incident}
        UNION ALL SELECT sa."incidentId" FROM "IncidentSlugAlias" sa WHERE sa."slug" = ${filter.incident})`);
    }
    if (filter.hasExternalRef != null) {
      const exists = Prisma.sql`EXISTS (SELECT 1 FROM "ExternalReference" r WHERE r."actionableId" = a."id")`;
      parts.push(filter.hasExternalRef ? exists : Prisma.sql`NOT ${exists}`);
    }
    return Prisma.join(parts, ' AND ');
  }

  /**
   * One page, forward (`first`/`after`) or backward (`last`/`before`), with the nodes' rows as
   * `tree` selects them from its table (aliased as in `id`), in one named prepared statement: the
   * page's ids in order (one more than asked, to tell whether there are more), joined to the rows
   * of all but that extra one, so the page and its nodes come from one snapshot. The
   * count is a second statement run only when `count()` is called (GraphQL: when `totalCount` is
   * selected), the estimate a plan without execution (`estimate()`, for `totalCountEstimate`).
   */
  private async keysetPage(
    from: Prisma.Sql,
    id: Prisma.Sql,
    sort: SortSpec,
    order: string,
    args: PageArgs<string>,
    tree: { columns: string; table: Prisma.Sql },
    countFrom: Prisma.Sql = from,
    planEach = false,
  ): Promise<Omit<Page<never>, 'nodes'> & { rows: Record<string, unknown>[] }> {
    const { size, backward, after, before } = pageWindow(args, order);
    // Backward pages read the ordering reversed from `before` (or from the end), then turn the
    // rows back, so one LIMIT bounds either direction.
    const later = sort.desc ? Prisma.sql`<` : Prisma.sql`>`;
    const earlier = sort.desc ? Prisma.sql`>` : Prisma.sql`<`;
    const bound = (c: { value: string; id: string } | null, op: Prisma.Sql) =>
      c ? Prisma.sql`AND (${sort.expr}, ${id}) ${op} (CAST(${c.value} AS ${sort.cast}), CAST(${c.id} AS uuid))` : Prisma.empty;
    const direction = sort.desc !== backward ? Prisma.sql`DESC` : Prisma.sql`ASC`;
    const ordering = Prisma.sql`ORDER BY ${sort.expr} ${direction}, ${id} ${direction}`;
    // `ord` keeps the page's order through the join (the rows are put back in it here, so the
    // plan needs no second sort). It numbers the rows of the limited page in the order they come
    // out of it: a window ordered by the sort key inside the page query would keep the planner
    // from passing the LIMIT down to its sort (a top-N sort), and sort every match instead.
    const rows = await this.named<{ k_id: string; k_sort: string; k_ord: string } & Record<string, unknown>>(planEach, Prisma.sql`
        SELECT p.id::text AS k_id, p.sort AS k_sort, p.ord AS k_ord, ${Prisma.raw(treeRow(tree.columns))}
        FROM (SELECT l.*, row_number() OVER () AS ord FROM (
          SELECT ${id} AS id, ${sort.expr}::text AS sort ${from} ${bound(after, later)} ${bound(before, earlier)}
          ${ordering}
          LIMIT ${size + 1}) l) p
        LEFT JOIN ${tree.table} ON ${id} = p.id AND p.ord <= ${size}`);
    rows.sort((x, y) => Number(x.k_ord) - Number(y.k_ord));
    const more = rows.length > size;
    const pageRows = rows.slice(0, size);
    if (backward) pageRows.reverse();
    let counted: Promise<number> | null = null;
    return {
      rows: pageRows.map(treeOf),
      cursors: pageRows.map((r) => encodeCursor({ order, value: r.k_sort, id: r.k_id })),
      count: () => (counted ??= this.named<{ n: string }>(planEach, Prisma.sql`SELECT count(*)::text AS n ${countFrom}`, planEach).then((r) => Number(r[0]?.n ?? 0))),
      estimate: () => this.estimate(countFrom),
      // The direction read tells from its extra row; the other side has rows when a cursor
      // bounds it (the cursor's own row at least, unless it was deleted since).
      hasNextPage: backward ? before !== null : more || before !== null,
      hasPreviousPage: backward ? more || after !== null : after !== null,
    };
  }

  /** The planner's row estimate for the filter: no rows are read, so it costs a plan, not a scan. */
  private async estimate(from: Prisma.Sql): Promise<number> {
    const q = Prisma.sql`EXPLAIN (FORMAT JSON) SELECT 1 ${from}`;
    const values = q.values.map((v) => (v instanceof Date ? v.toISOString() : v));
    const { rows } = await this.prisma.pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(q.text, values);
    return Math.round(rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
  }

  /**
   * A statement prepared once per connection: the name is a digest of its text. With `planEach`
   * (a text search) it goes unnamed instead, so it is planned for its own values every time:
   * from the sixth run of a named statement Postgres may switch to a generic plan, which cannot
   * see the search's tsquery and measured 2.7 times slower for a typo search at 100,000
   * incidents (10 ms, then 26 ms from the sixth run on). With `throughIndex` (a search's count)
   * it reads the matches through the index (`fromSearchIndex`).
   */
  private async named<T extends object>(planEach: boolean, q: Prisma.Sql, throughIndex = false): Promise<T[]> {
    const text = q.text;
    // Instants go as ISO text, so a `::date` cast never depends on the process's time zone.
    const values = q.values.map((v) => (v instanceof Date ? v.toISOString() : v));
    if (throughIndex) return this.fromSearchIndex<T>(text, values);
    if (planEach) return (await this.prisma.pool.query<T>({ text, values })).rows;
    const name = `q_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    return (await this.prisma.pool.query<T>({ name, text, values })).rows;
  }

  /**
   * A text search's count, with sequential scans off for it alone (`SET LOCAL` in a read-only
   * transaction), so its matches come from the search document's GIN index. A query without a
   * phrase is matched by the index exactly: the rows it names are not rechecked, so no search
   * document is read from TOAST. The planner cannot see that cost, and for a word most incidents
   * hold it chose a sequential scan that reads and tests every row's whole document (0.7–1.2 s at
   * 100,000 incidents, against 0.1–0.3 s through the index; see docs/benchmarks.md). A phrase is
   * still rechecked, on the rows holding all its words. The page is left to the planner: it
   * needs only the first 300 matches, and for such a word a sequential scan finds them in about
   * the first 300 rows, sooner than the index can list 100,000 postings.
   */
  private async fromSearchIndex<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    const client = await this.prisma.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN READ ONLY; SET LOCAL enable_seqscan = off');
      const { rows } = await client.query<T>({ text, values });
      await client.query('COMMIT');
      return rows;
    } catch (error) {
      // A connection that cannot even roll back is dropped from the pool, not reused.
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

const PATTERN_COUNT = { _count: { select: { incidents: { where: { incident: { status: 'published' as const } } } } } };

export type PatternWithCount = PatternRecord & { incidentCount: number };

function withCount({ _count, ...p }: PatternRecord & { _count: { incidents: number } }): PatternWithCount {
  return { ...p, incidentCount: _count.incidents };
}

