import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import type { IncidentRecord } from './incident.types';

export const RELATION_KINDS = ['SHARED_PATTERN', 'SHARED_COMPONENT', 'CAUSAL_STRUCTURE', 'SIMILAR_TEXT'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

export interface RelationReason {
  kind: RelationKind;
  /** What is shared, in words: a pattern's name, a component, a structure, the shared words. */
  detail: string;
  /** This reason's share of the score. */
  weight: number;
}

export interface RelatedIncident {
  incident: IncidentRecord;
  /** Sum of the reasons' weights; higher is closer. Only comparable within one incident's list. */
  score: number;
  reasons: RelationReason[];
}

/** Candidates considered before the causal structure is compared; bounds the work at any corpus size. */
const CANDIDATES = 60;
/**
 * Incidents read per shared pattern (the most recent with it) and matches ranked for wording:
 * a pattern or a title word can be shared by most of a large corpus, and grouping or ranking
 * all of them cost seconds at 100,000 incidents.
 */
const POOL = 200;
/** Candidates per shared causal shape (found by the shape's words, then checked on the graph). */
const SHAPE_CANDIDATES = 20;
const MAX_RELATED = 20;

/** Weights: a shared failure pattern says the most, then the causal shape, then a component, then wording. */
const WEIGHT = { pattern: 3, structure: 2, component: 1.5, text: 4 } as const;

/**
 * Causal shapes recognised in an incident's factors and links. Each names a structure a reader
 * would say two incidents "both have", and is decided from the stored graph and factor texts.
 */
interface Shape {
  key: string;
  detail: string;
  test: (g: CausalGraph) => boolean;
  /**
   * Words an incident with this shape is bound to hold, as a tsquery of lexemes exactly as the
   * `simple` configuration stores them (read with `::tsquery`, not re-parsed, so a hyphenated
   * word such as 'time-out' stays one lexeme instead of becoming a phrase), so incidents
   * sharing only the shape are found through the document's GIN index; the shape itself is
   * then checked on their graphs. Shapes decided by links alone have none.
   */
  words?: string;
}

interface CausalGraph {
  factors: { id: string; role: string; component: string; text: string }[];
  links: { fromId: string; toId: string; kind: string }[];
}

const RETRY = /\bretr(?:y|ies|ied|ying)\b/i;
const CACHE = /\b(?:cache|caches|caching|memcached?|redis|varnish|cdn)\b/i;
const STORE = /\b(?:shard(?:s|ed)?|database|db|mysql|postgres(?:ql)?|vitess|cassandra|store|keyspace)\b/i;
const TIMEOUT = /\btime-?outs?\b/i;
const LIMIT = /\b(?:limit|cap|maximum|max|pool|quota|exhaust(?:ed|ion)?)\b/i;

const RETRY_WORDS = 'retry | retries | retried | retrying';
const CACHE_WORDS = 'cache | caches | caching | memcache | memcached | redis | varnish | cdn';
const STORE_WORDS = 'shard | shards | sharded | database | db | mysql | postgres | postgresql | vitess | cassandra | store | keyspace';

const SHAPES: Shape[] = [
  { key: 'loop', detail: 'both have a feedback loop (a cycle of causal links)', test: (g) => loopFactorIds(g).size > 0 },
  {
    key: 'retry-loop',
    detail: 'both have a retry-driven feedback loop',
    test: (g) => {
      const inLoop = loopFactorIds(g);
      return g.factors.some((f) => inLoop.has(f.id) && RETRY.test(f.text));
    },
    words: RETRY_WORDS,
  },
  {
    key: 'cache-store',
    detail: 'both have a cache in front of a sharded or shared store',
    test: (g) => g.factors.some((f) => CACHE.test(`${f.component} ${f.text}`)) && g.factors.some((f) => STORE.test(`${f.component} ${f.text}`)),
    words: `(${CACHE_WORDS}) & (${STORE_WORDS})`,
  },
  { key: 'amplifier', detail: 'both have an amplifier that makes a trigger worse', test: (g) => g.links.some((l) => l.kind === 'amplifies') },
  { key: 'timeouts', detail: 'both involve missing or wrong timeouts', test: (g) => g.factors.some((f) => TIMEOUT.test(f.text)), words: "timeout | timeouts | 'time-out' | 'time-outs'" },
  {
    key: 'capacity-limit',
    detail: 'both hit a capacity limit',
    test: (g) => g.factors.some((f) => f.role !== 'mitigating' && LIMIT.test(f.text)),
    words: 'limit | limits | cap | maximum | max | pool | quota | exhaust | exhausted | exhaustion',
  },
];

/** Factors on a directed cycle of causal links (depth-first search from each factor). */
function loopFactorIds(g: CausalGraph): Set<string> {
  const next = new Map<string, string[]>();
  for (const l of g.links) next.set(l.fromId, [...(next.get(l.fromId) ?? []), l.toId]);
  const onLoop = new Set<string>();
  for (const start of next.keys()) {
    const seen = new Set<string>();
    const stack = [...(next.get(start) ?? [])];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n === start) {
        onLoop.add(start);
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(next.get(n) ?? []));
    }
  }
  return onLoop;
}

/** Related incidents of one incident, by id: what `findRelatedIncidents` returns per incident. */
export interface RelatedIncidentRef {
  id: string;
  score: number;
  reasons: RelationReason[];
}

export function checkRelatedFirst(first: number): void {
  if (!Number.isInteger(first) || first < 1 || first > MAX_RELATED) throw AppError.badField('first', `expected 1 to ${MAX_RELATED}`);
}

type Db = Pick<PrismaService, '$queryRaw'>;

/**
 * Incidents related to each of several incidents, ranked, each with its reasons: shared failure
 * patterns (rarer patterns weigh more), shared components (case-insensitive), the same causal
 * shapes (see SHAPES), and similar wording (full-text rank of the other's document against this
 * incident's title and components). Candidates come from the indexes, each path bounded so the
 * cost does not grow with the corpus:
 * - by pattern: per shared pattern, the POOL most recent incidents with it; of all of those, the
 *   CANDIDATES sharing the most (idf-weighted) patterns;
 * - by wording: the first POOL incidents the search document's index yields for the title and
 *   component words (as the search's relevance pool does), ranked, the best CANDIDATES kept;
 * - by shape: per causal shape the incident has, the SHAPE_CANDIDATES most recent incidents
 *   holding the shape's words, so the choice never depends on where rows lie on disk.
 * Five statements for any number of incidents: their graphs (two), the candidates of all of
 * them, and the candidates' graphs (two).
 */
export async function findRelatedIncidents(db: Db, incidentIds: readonly string[], first: number): Promise<Map<string, RelatedIncidentRef[]>> {
  checkRelatedFirst(first);
  const ids = [...new Set(incidentIds)];
  const result = new Map<string, RelatedIncidentRef[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return result;
  const mine = await graphsOf(db, ids);
  const shapesOf = new Map(ids.map((id) => [id, SHAPES.filter((s) => s.test(mine.get(id)!))]));
  const shapeQueries = ids.flatMap((id) => shapesOf.get(id)!.filter((s) => s.words).map((s) => ({ id, words: s.words! })));
  const candidates = await db.$queryRaw<
    { me: string; id: string; patterns: string[] | null; pattern_weight: number; components: string[] | null; text_rank: number }[]
  >`
    WITH me AS (SELECT i."id", i."title", i."components" FROM "Incident" i WHERE i."id" = ANY(${ids}::uuid[])),
    total AS (SELECT greatest(count(*), 1)::float8 AS n FROM "Incident" WHERE "status" = 'published'),
    -- Materialized so each pattern's incidents are counted once, not once per row that reads its idf.
    my_patterns AS MATERIALIZED (
      SELECT ip."incidentId" AS me_id, ip."patternId", p."name",
        ln((SELECT n FROM total) / greatest((SELECT count(*) FROM "IncidentPattern" x WHERE x."patternId" = ip."patternId"), 1)) + 1 AS idf
      FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ip."incidentId" IN (SELECT "id" FROM me)
    ),
    pattern_pool AS (
      SELECT DISTINCT mp.me_id, c.id FROM my_patterns mp CROSS JOIN LATERAL (
        SELECT ip."incidentId" AS id FROM "IncidentPattern" ip JOIN "Incident" i ON i."id" = ip."incidentId" AND i."status" = 'published'
        WHERE ip."patternId" = mp."patternId" AND ip."incidentId" <> mp.me_id
        ORDER BY COALESCE(i."startedAt", '-infinity'::timestamptz) DESC, i."id" DESC LIMIT ${POOL}) c
    ),
    pattern_scored AS (
      SELECT pp.me_id, pp.id, array_agg(mp."name" ORDER BY mp."name") AS patterns, sum(mp.idf)::float8 AS pattern_weight,
        row_number() OVER (PARTITION BY pp.me_id ORDER BY sum(mp.idf) DESC, pp.id) AS r
      FROM pattern_pool pp JOIN "IncidentPattern" ip ON ip."incidentId" = pp.id
      JOIN my_patterns mp ON mp.me_id = pp.me_id AND mp."patternId" = ip."patternId"
      GROUP BY pp.me_id, pp.id
    ),
    by_pattern AS (SELECT me_id, id, patterns, pattern_weight FROM pattern_scored WHERE r <= ${CANDIDATES}),
    my_text AS (
      SELECT me."id" AS me_id, (SELECT to_tsquery('simple', string_agg(quote_literal(w), ' | ')) FROM (
        SELECT DISTINCT w FROM regexp_split_to_table(lower(me."title" || ' ' || array_to_string(me."components", ' ')), '[^[:alnum:]]+') AS w WHERE length(w) >= 4
      ) t) AS q FROM me
    ),
    by_text AS (
      SELECT t.me_id, c.* FROM my_text t CROSS JOIN LATERAL (
        SELECT m."id", ts_rank(m."searchDocument", t.q, 1)::float8 AS text_rank FROM (
          -- The LIMIT outside the materialized matches, as in the search's relevance pool: the
          -- planner then reads the index rather than scanning the table for the first matches.
          WITH matches AS MATERIALIZED (
            SELECT i."id", i."searchDocument" FROM "Incident" i
            WHERE t.q IS NOT NULL AND i."status" = 'published' AND i."id" <> t.me_id AND i."searchDocument" @@ t.q)
          SELECT * FROM matches LIMIT ${POOL}) m
        ORDER BY text_rank DESC, m."id" LIMIT ${CANDIDATES}) c
    ),
    by_shape AS (
      SELECT s.me_id, c."id" FROM unnest(${shapeQueries.map((q) => q.id)}::uuid[], ${shapeQueries.map((q) => q.words)}::text[]) AS s(me_id, words)
      CROSS JOIN LATERAL (
        SELECT i."id" FROM "Incident" i
        WHERE i."status" = 'published' AND i."id" <> s.me_id AND i."searchDocument" @@ s.words::tsquery
        ORDER BY COALESCE(i."startedAt", '-infinity'::timestamptz) DESC, i."id" DESC
        LIMIT ${SHAPE_CANDIDATES}) c
    ),
    pairs AS (SELECT me_id, id FROM by_pattern UNION SELECT me_id, id FROM by_text UNION SELECT me_id, id FROM by_shape)
    SELECT pairs.me_id::text AS me, pairs.id::text AS id, bp.patterns, COALESCE(bp.pattern_weight, 0)::float8 AS pattern_weight,
      (SELECT array_agg(DISTINCT c) FROM unnest(i."components") AS c
        WHERE lower(c) IN (SELECT lower(x) FROM me, unnest(me."components") AS x WHERE me."id" = pairs.me_id)) AS components,
      COALESCE(bt.text_rank, 0)::float8 AS text_rank
    FROM pairs JOIN "Incident" i ON i."id" = pairs.id AND i."status" = 'published'
    LEFT JOIN by_pattern bp ON bp.me_id = pairs.me_id AND bp.id = pairs.id
    LEFT JOIN by_text bt ON bt.me_id = pairs.me_id AND bt.id = pairs.id`;
  // No shortcut when there are no candidates: the same statements whatever the data.
  const theirs = await graphsOf(db, [...new Set(candidates.map((c) => c.id))].filter((id) => !mine.has(id)));
  const graphOf = (id: string) => mine.get(id) ?? theirs.get(id) ?? { factors: [], links: [] };
  const scored = new Map<string, RelatedIncidentRef[]>(ids.map((id) => [id, []]));
  for (const c of candidates) {
    const reasons: RelationReason[] = [];
    const patterns = c.patterns ?? [];
    // The idf-weighted sum, spread over the shared patterns.
    for (const name of patterns) reasons.push({ kind: 'SHARED_PATTERN', detail: name, weight: round((WEIGHT.pattern * c.pattern_weight) / patterns.length) });
    for (const comp of c.components ?? []) reasons.push({ kind: 'SHARED_COMPONENT', detail: comp, weight: WEIGHT.component });
    const graph = graphOf(c.id);
    for (const shape of shapesOf.get(c.me) ?? []) if (shape.test(graph)) reasons.push({ kind: 'CAUSAL_STRUCTURE', detail: shape.detail, weight: WEIGHT.structure });
    if (c.text_rank > 0) reasons.push({ kind: 'SIMILAR_TEXT', detail: 'words of the title or components appear in its record', weight: round(WEIGHT.text * c.text_rank) });
    scored.get(c.me)!.push({ id: c.id, reasons, score: round(reasons.reduce((s, r) => s + r.weight, 0)) });
  }
  for (const [id, list] of scored) {
    result.set(id, list.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, first));
  }
  return result;
}

async function graphsOf(db: Db, ids: string[]): Promise<Map<string, CausalGraph>> {
  const graphs = new Map<string, CausalGraph>(ids.map((id) => [id, { factors: [], links: [] }]));
  const factors = await db.$queryRaw<{ incidentId: string; id: string; role: string; component: string; text: string }[]>`
    SELECT "incidentId"::text AS "incidentId", "id"::text AS id, "role"::text AS role, "component", "text" FROM "CausalFactor" WHERE "incidentId" = ANY(${ids}::uuid[])`;
  const links = await db.$queryRaw<{ incidentId: string; fromId: string; toId: string; kind: string }[]>`
    SELECT "incidentId"::text AS "incidentId", "fromId"::text AS "fromId", "toId"::text AS "toId", "kind"::text AS kind FROM "CausalLink" WHERE "incidentId" = ANY(${ids}::uuid[])`;
  for (const f of factors) graphs.get(f.incidentId)?.factors.push(f);
  for (const l of links) graphs.get(l.incidentId)?.links.push(l);
  return graphs;
}

/**
 * Related incidents of one incident with their records, for the incident page. GraphQL's
 * `Incident.related` goes through the request's `IncidentLoaders.related` instead, so a list of
 * incidents asks for all of theirs at once.
 */
@Injectable()
export class RelatedIncidentsService {
  constructor(private readonly prisma: PrismaService) {}

  async related(incidentId: string, first = 5): Promise<RelatedIncident[]> {
    const top = (await findRelatedIncidents(this.prisma, [incidentId], first)).get(incidentId) ?? [];
    if (top.length === 0) return [];
    const rows = await this.prisma.incident.findMany({ where: { id: { in: top.map((t) => t.id) } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return top.flatMap((t) => {
      const incident = byId.get(t.id);
      return incident ? [{ incident, score: t.score, reasons: t.reasons }] : [];
    });
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
