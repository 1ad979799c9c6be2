import { Injectable, Logger } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, foldText, LIMITS } from '@hindsight/domain';
import { IncidentsService, type IncidentFilter } from './incidents.service';
import { buildTextSearch, unknownWordsWithCloseOnes, wholeWord, type TextSearch } from './search-query';
import { RefreshingCache } from './refreshing-cache';
import { hasCjk } from './search-language';
import { positiveTerms } from './tsquery-text';

/** Where a result matched, in the order a reader scans a record (and roughly by weight). */
export const SEARCH_FIELDS = [
  'TITLE',
  'SUMMARY',
  'ORIGINAL_TEXT',
  'COMPONENTS',
  'PATTERNS',
  'IMPACT',
  'CAUSAL_FACTORS',
  'ACTIONABLES',
  'TIMELINE',
  'NARRATIVE',
  'SOURCE_TITLE',
  'REFERENCES',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface HighlightFragment {
  text: string;
  matched: boolean;
}

/** One field of one result, cut around its first match; `fragments` join back into `excerpt`. */
export interface SearchHighlight {
  field: SearchField;
  excerpt: string;
  fragments: HighlightFragment[];
}

export const FACET_KINDS = ['PATTERN', 'ORGANIZATION', 'COMPONENT', 'YEAR', 'ACTIONABLE_STATUS', 'SEVERITY', 'NEAR_MISS', 'TAG'] as const;
export type FacetKind = (typeof FACET_KINDS)[number];

export interface FacetValue {
  /** What to filter by: a pattern key, an organization, a component, a year, an actionable status. */
  value: string;
  label: string;
  count: number;
}

export interface Facet {
  kind: FacetKind;
  /** Distinct values in the incidents counted; `values` holds the most frequent `first` of them. */
  distinctValues: number;
  values: FacetValue[];
  /** Matching incidents the counts were taken over. */
  counted: number;
  /** False when the result set has more matches than were counted (see `SearchResultsService.facets`). */
  complete: boolean;
}

/** The facets of a result set, and whether they are the unfiltered list's (recounted about once a minute) or counted now. */
export interface ResultFacets {
  facets: Facet[];
  recounted: 'now' | 'minute';
}

function checkFacetValues(first: number): void {
  if (!Number.isInteger(first) || first < 1 || first > MAX_FACET_VALUES) throw AppError.badField('first', `expected 1 to ${MAX_FACET_VALUES}; got ${first}`);
}

/**
 * The most matches a bounded count reads (the list page's `LIST_COUNT_LIMIT`, GraphQL's
 * `facets(countUpTo)`): the facets of 100,000 matches take about 3 s of database time.
 */
export const MAX_COUNT_LIMIT = 100_000;

function checkCountLimit(field: string, limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_COUNT_LIMIT) throw AppError.badField(field, `expected 1 to ${MAX_COUNT_LIMIT}; got ${limit}`);
}

export interface DidYouMean {
  /** The corrected query. */
  text: string;
  /** Published incidents the corrected query finds (with the same other filters). */
  totalCount: number;
  /** Each word replaced, with what replaced it. */
  corrections: { word: string; replacement: string }[];
}

export const SUGGESTION_FIELDS = ['ORGANIZATION', 'COMPONENT', 'OWNER'] as const;
export type SuggestionField = (typeof SUGGESTION_FIELDS)[number];

export interface FilterSuggestion {
  value: string;
  /** Published incidents (or, for owners, actionables of published incidents) with this value. */
  count: number;
}

/** Characters shown on each side of a highlight's first match. */
const EXCERPT_CONTEXT = 90;
const MAX_HIGHLIGHTS = 3;
const MAX_FACET_VALUES = 50;
const MAX_SUGGESTIONS = 50;
const COMMON_VALUES = 200;
const COMMON_VALUES_TTL_MS = 60_000;
const WORD = /[\p{L}\p{N}]+/gu;

interface FieldTexts {
  id: string;
  title: string;
  summary: string;
  impact: string;
  narrative: string;
  sourceTitle: string;
  sourceOriginalText: string | null;
  components: string[];
  patterns: string[] | null;
  timeline: string[] | null;
  factors: string[] | null;
  actionables: string[] | null;
  refs: string[] | null;
}

/**
 * What a search result page needs beside the rows: where each result matched, facet counts of
 * the whole result set, a corrected query when nothing matched, and suggestions for the
 * organization, component and owner filters. Every method is one or two SQL statements.
 */
@Injectable()
export class SearchResultsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly incidents: IncidentsService,
  ) {}

  /** The search fields' shared state for one connection: highlights computed once, on first use. */
  context(filter: IncidentFilter, search: TextSearch | null, count: () => Promise<number>, ids: readonly string[]) {
    let highlights: Promise<Map<string, SearchHighlight[]>> | null = null;
    return {
      filter,
      search,
      /** The exact size of the result set, counted on first use (did-you-mean asks only when a search is given). */
      count,
      highlights: () => (highlights ??= search ? this.highlights(search, ids) : Promise.resolve(new Map<string, SearchHighlight[]>())),
    };
  }

  /**
   * Highlights for a page of results: the fields of each incident that hold a query term, each
   * with an excerpt around the first match and every match in it marked. A word counts as a
   * match when one of its lexemes (after folding: as written, its english stem, or its stem in
   * another configuration the query was parsed under) is a positive term of the query, so "retries" marks "retry" and "sieu ben" marks "siêu bền".
   */
  async highlights(search: TextSearch, incidentIds: readonly string[]): Promise<Map<string, SearchHighlight[]>> {
    const result = new Map<string, SearchHighlight[]>();
    if (incidentIds.length === 0) return result;
    const [tree] = await this.prisma.$queryRaw<{ tree: string }[]>`SELECT querytree(${search.tsquery})::text AS tree`;
    const terms = positiveTerms(tree?.tree ?? '');
    if (terms.size === 0) return result;
    const rows = await this.prisma.$queryRaw<FieldTexts[]>`
      SELECT i."id"::text AS id, i."title", i."summary", i."impact", i."narrative", i."sourceTitle", i."sourceOriginalText", i."components",
        (SELECT array_agg(p."name" ORDER BY p."key") FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ip."incidentId" = i."id") AS patterns,
        (SELECT array_agg(e."text" ORDER BY e."position") FROM "TimelineEvent" e WHERE e."incidentId" = i."id") AS timeline,
        (SELECT array_agg(concat_ws(': ', f."title", f."component", f."text") ORDER BY f."position") FROM "CausalFactor" f WHERE f."incidentId" = i."id") AS factors,
        (SELECT array_agg(a."title" || ' — ' || a."description" ORDER BY a."position") FROM "Actionable" a WHERE a."incidentId" = i."id") AS actionables,
        (SELECT array_agg(r."ref" ORDER BY a."position", r."position") FROM "Actionable" a JOIN "ExternalReference" r ON r."actionableId" = a."id" WHERE a."incidentId" = i."id") AS refs
      FROM "Incident" i WHERE i."id" IN (${Prisma.join(incidentIds.map((id) => Prisma.sql`${id}::uuid`))})`;
    const fieldsOf = (r: FieldTexts): [SearchField, string[]][] => [
      ['TITLE', [r.title]],
      ['SUMMARY', [r.summary]],
      ['ORIGINAL_TEXT', r.sourceOriginalText ? [r.sourceOriginalText] : []],
      ['COMPONENTS', [r.components.join(', ')]],
      ['PATTERNS', [(r.patterns ?? []).join(', ')]],
      ['IMPACT', [r.impact]],
      ['CAUSAL_FACTORS', r.factors ?? []],
      ['ACTIONABLES', r.actionables ?? []],
      ['TIMELINE', r.timeline ?? []],
      ['NARRATIVE', [r.narrative]],
      ['SOURCE_TITLE', [r.sourceTitle]],
      ['REFERENCES', [(r.refs ?? []).join(' ')]],
    ];
    // The lexemes of every distinct word in these fields, in one statement.
    const words = new Set<string>();
    for (const r of rows) for (const [, texts] of fieldsOf(r)) for (const t of texts) for (const m of t.matchAll(WORD)) if (!hasCjk(m[0])) words.add(foldText(m[0]));
    const lexemeRows = words.size === 0 ? [] : await this.prisma.$queryRaw<{ w: string; lex: string[] }[]>`
      SELECT w, ARRAY(SELECT unnest(tsvector_to_array(to_tsvector(c::regconfig, w))) FROM unnest(${search.configs}::text[]) AS c) AS lex
      FROM unnest(${[...words]}::text[]) AS w`;
    const matchingWords = new Set(lexemeRows.filter((l) => l.lex.some((x) => terms.has(x))).map((l) => l.w));
    for (const r of rows) {
      const found: SearchHighlight[] = [];
      for (const [field, texts] of fieldsOf(r)) {
        if (found.length >= MAX_HIGHLIGHTS) break;
        for (const text of texts) {
          const marks = markMatches(text, matchingWords, terms);
          if (marks.length > 0) {
            found.push({ field, ...excerptAround(text, marks) });
            break;
          }
        }
      }
      result.set(r.id, found);
    }
    return result;
  }

  /**
   * The size of the result set, counted no further than `limit`: `complete` is false when there
   * are more. The matches are a MATERIALIZED CTE read only as far as the count asks, planned as if
   * all were read (see `IncidentsService.relevancePool`), so a common word stops after `limit`
   * matches and a rare word or a phrase still reads the index.
   */
  async countUpTo(filter: IncidentFilter, search: TextSearch | null, limit: number): Promise<{ count: number; complete: boolean }> {
    const from = this.incidents.resultSetSql(filter, search);
    const [row] = await this.prisma.$queryRaw<{ n: number }[]>`
      WITH matches AS MATERIALIZED (SELECT 1 ${from}) SELECT count(*)::int AS n FROM (SELECT 1 FROM matches LIMIT ${limit + 1}) m`;
    const n = row?.n ?? 0;
    return { count: Math.min(n, limit), complete: n <= limit };
  }

  /**
   * Counts of the result set (all pages) by pattern, organization, component, year, actionable
   * status, severity, near miss and tag. With `limit`, only the first `limit` matches found are
   * counted, which bounds the work when the result set is most of a large corpus; each facet then
   * says how many incidents it counted and whether that was all of them.
   */
  async facets(filter: IncidentFilter, search: TextSearch | null, first = 10, limit: number | null = null): Promise<Facet[]> {
    checkFacetValues(first);
    if (limit !== null) checkCountLimit('limit', limit);
    const from = this.incidents.resultSetSql(filter, search);
    const columns = Prisma.sql`i."id", i."organization", i."components", i."startedAt", i."severity", i."nearMiss", i."tags"`;
    // With a limit, one match past it is read (and not counted) to tell whether there are more.
    const resultSet =
      limit === null
        ? Prisma.sql`rs AS MATERIALIZED (SELECT ${columns} ${from}), found AS (SELECT count(*) AS n FROM rs)`
        : Prisma.sql`matches AS MATERIALIZED (SELECT ${columns} ${from}), probe AS MATERIALIZED (SELECT * FROM matches LIMIT ${limit + 1}),
          rs AS MATERIALIZED (SELECT * FROM probe LIMIT ${limit}), found AS (SELECT count(*) AS n FROM probe)`;
    // A bounded result set's patterns and follow-ups are read by its incidents' ids (an index
    // probe each): joined, the planner estimates the match count, not the bound, and past about a
    // thousand estimated matches reads all 700,000 follow-ups of a 100,000-incident corpus.
    const ofResultSet = (column: Prisma.Sql) =>
      limit === null ? Prisma.sql`${column} IN (SELECT rs."id" FROM rs)` : Prisma.sql`${column} = ANY(ARRAY(SELECT rs."id" FROM rs))`;
    const rows = await this.prisma.$queryRaw<{ kind: FacetKind | 'FOUND'; value: string; label: string; n: number }[]>`
      WITH ${resultSet}
      SELECT 'FOUND' AS kind, '' AS value, '' AS label, n::int FROM found
      UNION ALL SELECT 'PATTERN', p."key", p."name", count(*)::int
        FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ${ofResultSet(Prisma.sql`ip."incidentId"`)} GROUP BY p."key", p."name"
      UNION ALL SELECT 'ORGANIZATION', rs."organization", rs."organization", count(*)::int FROM rs GROUP BY rs."organization"
      UNION ALL SELECT 'COMPONENT', c, c, count(DISTINCT rs."id")::int FROM rs, unnest(rs."components") AS c GROUP BY c
      UNION ALL SELECT 'YEAR', y, y, count(*)::int FROM rs, LATERAL (SELECT COALESCE(extract(year FROM rs."startedAt" AT TIME ZONE 'UTC')::int::text, 'unknown') AS y) AS t GROUP BY y
      UNION ALL SELECT 'ACTIONABLE_STATUS', a."status"::text, a."status"::text, count(*)::int FROM "Actionable" a WHERE ${ofResultSet(Prisma.sql`a."incidentId"`)} GROUP BY a."status"
      UNION ALL SELECT 'SEVERITY', COALESCE(rs."severity", 'none'), COALESCE(rs."severity", 'not stated'), count(*)::int FROM rs GROUP BY rs."severity"
      UNION ALL SELECT 'NEAR_MISS', rs."nearMiss"::text, CASE WHEN rs."nearMiss" THEN 'near miss' ELSE 'incident' END, count(*)::int FROM rs GROUP BY rs."nearMiss"
      UNION ALL SELECT 'TAG', t, t, count(DISTINCT rs."id")::int FROM rs, unnest(rs."tags") AS t GROUP BY t`;
    const found = rows.find((r) => r.kind === 'FOUND')?.n ?? 0;
    const counted = limit === null ? found : Math.min(found, limit);
    const complete = limit === null || found <= limit;
    return FACET_KINDS.map((kind) => {
      const values = rows
        .filter((r) => r.kind === kind)
        .sort((a, b) => b.n - a.n || a.value.localeCompare(b.value))
        .map((r) => ({ value: r.value, label: r.label, count: r.n }));
      return { kind, distinctValues: values.length, values: values.slice(0, first), counted, complete };
    });
  }

  /**
   * Facets of every published incident, as the unfiltered list page shows them: counted at most
   * once a minute per process (like `commonValues`), since at 100,000 incidents they read every
   * incident and its follow-ups (1.6 s), and the front page should not do so on each view. Past
   * the minute the last counts are still shown while one recount runs (`RefreshingCache`), so
   * no reader waits for it but the very first.
   */
  async allIncidentFacets(first: number): Promise<Facet[]> {
    checkFacetValues(first);
    // One count whatever `first` is asked, cut to it.
    const all = await this.allFacets.get('all', () => this.facets({}, null, MAX_FACET_VALUES));
    return all.map((f) => ({ ...f, values: f.values.slice(0, first) }));
  }

  /**
   * The facets of a list, the one way the list page and GraphQL both take: the unfiltered list's
   * come from `allIncidentFacets` (every published incident, recounted about once a minute), any
   * other's are counted now over at most `limit` matches.
   */
  async resultFacets(filter: IncidentFilter, search: TextSearch | null, first: number, limit: number): Promise<ResultFacets> {
    // `first` is checked where the facets are counted or cut; the bound here, before the unfiltered
    // list (which does not use it) is told apart.
    checkCountLimit('countUpTo', limit);
    if (this.incidents.isUnfiltered(filter, search)) return { facets: await this.allIncidentFacets(first), recounted: 'minute' };
    return { facets: await this.facets(filter, search, first, limit), recounted: 'now' };
  }

  private readonly allFacets = new RefreshingCache<'all', Facet[]>(COMMON_VALUES_TTL_MS, {
    onError: (_key, error) => this.logger.warn(`recounting the facets of every incident failed: ${error instanceof Error ? error.message : String(error)}`),
  });

  /**
   * For a search that found nothing: the query with each unknown word replaced by the closest
   * word the published incidents hold (component names included: their words are indexed),
   * nearest by edit distance then trigram similarity, when the corrected query finds something
   * with the same other filters. Null when there is nothing better to offer.
   */
  async didYouMean(filter: IncidentFilter, search: TextSearch): Promise<DidYouMean | null> {
    const words = [...new Set(search.text.split(/\s+/).filter((t) => !t.startsWith('-') && t !== 'or').flatMap((t) => t.match(WORD) ?? []))].filter(
      (w) => w.length >= 3 && w.length <= 60 && !hasCjk(w),
    );
    const found = await unknownWordsWithCloseOnes(this.prisma, words, Prisma.sql`GREATEST(1, length(q.w) / 3)`, 1);
    const corrections = found.flatMap((f) => (f.alternatives.length > 0 ? [{ word: f.word, replacement: f.alternatives[0]! }] : []));
    if (corrections.length === 0) return null;
    let text = search.text;
    for (const c of corrections) text = text.replace(wholeWord(c.word), c.replacement);
    const corrected = await buildTextSearch(this.prisma, text);
    const { count: totalCount } = await this.countUpTo({ ...filter, text }, corrected, 1000);
    return totalCount > 0 ? { text, totalCount, corrections } : null;
  }

  /**
   * The most frequent values of a filter field (up to 200), for a page's `<datalist>`; kept for
   * a minute per process, since suggestions need not be up to the second and the list page
   * should not scan every incident on each view.
   */
  async commonValues(field: SuggestionField): Promise<string[]> {
    return this.common.get(field, async () => (await this.valuesLike(field, '', COMMON_VALUES)).map((s) => s.value));
  }

  private readonly common = new RefreshingCache<SuggestionField, string[]>(COMMON_VALUES_TTL_MS, {
    onError: (field, error) => this.logger.warn(`recounting the common ${field.toLowerCase()} values failed: ${error instanceof Error ? error.message : String(error)}`),
  });

  private readonly logger = new Logger(SearchResultsService.name);

  /**
   * Values of a filter field containing `text` (case-insensitive), those starting
   * with it first, then the most frequent. Published incidents only.
   */
  async suggest(field: SuggestionField, text: string, first = 10): Promise<FilterSuggestion[]> {
    if (text.length > LIMITS.shortText) throw AppError.badField('text', `is ${text.length} characters long; the limit is ${LIMITS.shortText}`);
    if (!Number.isInteger(first) || first < 1 || first > MAX_SUGGESTIONS) throw AppError.badField('first', `expected 1 to ${MAX_SUGGESTIONS}`);
    return this.valuesLike(field, text, first);
  }

  private valuesLike(field: SuggestionField, text: string, first: number): Promise<FilterSuggestion[]> {
    const like = `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const prefix = `${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const values =
      field === 'ORGANIZATION'
        ? Prisma.sql`SELECT i."organization" AS value FROM "Incident" i WHERE i."status" = 'published'`
        : field === 'COMPONENT'
          ? Prisma.sql`SELECT c AS value FROM "Incident" i, unnest(i."components") AS c WHERE i."status" = 'published'`
          : Prisma.sql`SELECT a."owner" AS value FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId" WHERE i."status" = 'published' AND a."owner" IS NOT NULL`;
    return this.prisma.$queryRaw<FilterSuggestion[]>`
      SELECT v.value, count(*)::int AS count FROM (${values}) AS v
      WHERE v.value ILIKE ${like}
      GROUP BY v.value
      ORDER BY bool_or(v.value ILIKE ${prefix}) DESC, count(*) DESC, v.value
      LIMIT ${first}`;
  }
}

/** Character ranges of `text` that match: words whose lexemes are query terms, and CJK bigrams that are. */
function markMatches(text: string, matchingWords: ReadonlySet<string>, terms: ReadonlySet<string>): [number, number][] {
  const marks: [number, number][] = [];
  for (const m of text.matchAll(WORD)) {
    const start = m.index;
    const word = m[0];
    if (hasCjk(word)) {
      const chars = [...word];
      const folded = chars.map((c) => foldText(c));
      let offset = start;
      const offsets = chars.map((c) => {
        const o = offset;
        offset += c.length;
        return o;
      });
      if (chars.length <= 2 && terms.has(folded.join(''))) marks.push([start, start + word.length]);
      else
        for (let i = 0; i + 1 < chars.length; i++) {
          if (terms.has(folded[i]! + folded[i + 1]!)) marks.push([offsets[i]!, offsets[i + 1]! + chars[i + 1]!.length]);
        }
    } else if (matchingWords.has(foldText(word))) {
      marks.push([start, start + word.length]);
    }
  }
  // Overlapping bigram marks merge into one run.
  const merged: [number, number][] = [];
  for (const m of marks) {
    const last = merged[merged.length - 1];
    if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]);
    else merged.push([m[0], m[1]]);
  }
  return merged;
}

function excerptAround(text: string, marks: [number, number][]): { excerpt: string; fragments: HighlightFragment[] } {
  const first = marks[0]!;
  let from = Math.max(0, first[0] - EXCERPT_CONTEXT);
  let to = Math.min(text.length, first[1] + EXCERPT_CONTEXT);
  // Cut at whitespace so no word is split.
  if (from > 0) {
    const space = text.indexOf(' ', from);
    if (space !== -1 && space < first[0]) from = space + 1;
  }
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > first[1]) to = space;
  }
  const fragments: HighlightFragment[] = [];
  const push = (t: string, matched: boolean) => {
    const clean = t.replace(/\s+/g, ' ');
    if (clean !== '') fragments.push({ text: clean, matched });
  };
  if (from > 0) push('… ', false);
  let at = from;
  for (const [s, e] of marks) {
    if (s < from || e > to) continue;
    push(text.slice(at, s), false);
    push(text.slice(s, e), true);
    at = e;
  }
  push(text.slice(at, to), false);
  if (to < text.length) push(' …', false);
  return { excerpt: fragments.map((f) => f.text).join(''), fragments };
}
