import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
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

const SHAPES: Shape[] = [
  { key: 'loop', detail: 'both have a feedback loop (a cycle of causal links)', test: (g) => loopFactorIds(g).size > 0 },
  {
    key: 'retry-loop',
    detail: 'both have a retry-driven feedback loop',
    test: (g) => {
      const inLoop = loopFactorIds(g);
      return g.factors.some((f) => inLoop.has(f.id) && RETRY.test(f.text));
    },
  },
  { key: 'cache-store', detail: 'both have a cache in front of a sharded or shared store', test: (g) => g.factors.some((f) => CACHE.test(`${f.component} ${f.text}`)) && g.factors.some((f) => STORE.test(`${f.component} ${f.text}`)) },
  { key: 'amplifier', detail: 'both have an amplifier that makes a trigger worse', test: (g) => g.links.some((l) => l.kind === 'amplifies') },
  { key: 'timeouts', detail: 'both involve missing or wrong timeouts', test: (g) => g.factors.some((f) => TIMEOUT.test(f.text)) },
  { key: 'capacity-limit', detail: 'both hit a capacity limit', test: (g) => g.factors.some((f) => f.role !== 'mitigating' && LIMIT.test(f.text)) },
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

/**
 * Incidents related to one incident, ranked, each with its reasons: shared failure patterns
 * (rarer patterns weigh more), shared components (case-insensitive), the same causal shapes
 * (see SHAPES), and similar wording (full-text rank of the other's document against this
 * incident's title and components). Candidates come from the indexes (patterns, components,
 * the search document), so the cost is bounded whatever the corpus size.
 */
@Injectable()
export class RelatedIncidentsService {
  constructor(private readonly prisma: PrismaService) {}

  async related(incidentId: string, first = 5): Promise<RelatedIncident[]> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_RELATED) throw AppError.badField('first', `expected 1 to ${MAX_RELATED}`);
    const candidates = await this.prisma.$queryRaw<
      { id: string; patterns: string[] | null; pattern_weight: number; components: string[] | null; text_rank: number }[]
    >`
      WITH me AS (SELECT i."id", i."title", i."components" FROM "Incident" i WHERE i."id" = ${incidentId}::uuid),
      total AS (SELECT greatest(count(*), 1)::float8 AS n FROM "Incident" WHERE "status" = 'published'),
      my_patterns AS (
        SELECT ip."patternId", p."name", ln((SELECT n FROM total) / greatest((SELECT count(*) FROM "IncidentPattern" x WHERE x."patternId" = ip."patternId"), 1)) + 1 AS idf
        FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ip."incidentId" = ${incidentId}::uuid
      ),
      by_pattern AS (
        SELECT ip."incidentId" AS id, array_agg(mp."name" ORDER BY mp."name") AS patterns, sum(mp.idf)::float8 AS pattern_weight
        FROM my_patterns mp JOIN "IncidentPattern" ip ON ip."patternId" = mp."patternId"
        WHERE ip."incidentId" <> ${incidentId}::uuid GROUP BY ip."incidentId"
        ORDER BY pattern_weight DESC LIMIT ${CANDIDATES}
      ),
      my_text AS (
        SELECT to_tsquery('simple', string_agg(quote_literal(w), ' | ')) AS q FROM (
          SELECT DISTINCT w FROM me, regexp_split_to_table(lower(me."title" || ' ' || array_to_string(me."components", ' ')), '[^[:alnum:]]+') AS w WHERE length(w) >= 4
        ) t
      ),
      by_text AS (
        SELECT i."id", ts_rank(i."searchDocument", t.q, 1)::float8 AS text_rank
        FROM "Incident" i, my_text t
        WHERE t.q IS NOT NULL AND i."status" = 'published' AND i."id" <> ${incidentId}::uuid AND i."searchDocument" @@ t.q
        ORDER BY text_rank DESC LIMIT ${CANDIDATES}
      ),
      ids AS (SELECT id FROM by_pattern UNION SELECT id FROM by_text)
      SELECT ids.id::text AS id, bp.patterns, COALESCE(bp.pattern_weight, 0)::float8 AS pattern_weight,
        (SELECT array_agg(DISTINCT c) FROM unnest(i."components") AS c, me WHERE lower(c) IN (SELECT lower(x) FROM unnest(me."components") AS x)) AS components,
        COALESCE(bt.text_rank, 0)::float8 AS text_rank
      FROM ids JOIN "Incident" i ON i."id" = ids.id AND i."status" = 'published'
      LEFT JOIN by_pattern bp ON bp.id = ids.id LEFT JOIN by_text bt ON bt.id = ids.id`;
    if (candidates.length === 0) return [];
    const graphs = await this.graphsOf([incidentId, ...candidates.map((c) => c.id)]);
    const myShapes = SHAPES.filter((s) => s.test(graphs.get(incidentId) ?? { factors: [], links: [] }));
    const scored = candidates.map((c) => {
      const reasons: RelationReason[] = [];
      for (const name of c.patterns ?? []) reasons.push({ kind: 'SHARED_PATTERN', detail: name, weight: 0 });
      const patternReasons = reasons.length;
      if (patternReasons > 0) {
        // The idf-weighted sum, spread over the shared patterns.
        for (const r of reasons) r.weight = round((WEIGHT.pattern * c.pattern_weight) / patternReasons);
      }
      for (const comp of c.components ?? []) reasons.push({ kind: 'SHARED_COMPONENT', detail: comp, weight: WEIGHT.component });
      const graph = graphs.get(c.id) ?? { factors: [], links: [] };
      for (const shape of myShapes) if (shape.test(graph)) reasons.push({ kind: 'CAUSAL_STRUCTURE', detail: shape.detail, weight: WEIGHT.structure });
      if (c.text_rank > 0) reasons.push({ kind: 'SIMILAR_TEXT', detail: 'words of the title or components appear in its record', weight: round(WEIGHT.text * c.text_rank) });
      return { id: c.id, reasons, score: round(reasons.reduce((s, r) => s + r.weight, 0)) };
    });
    const top = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, first);
    const rows = await this.prisma.incident.findMany({ where: { id: { in: top.map((t) => t.id) } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return top.flatMap((t) => {
      const incident = byId.get(t.id);
      return incident ? [{ incident, score: t.score, reasons: t.reasons }] : [];
    });
  }

  private async graphsOf(ids: string[]): Promise<Map<string, CausalGraph>> {
    const list = Prisma.join(ids.map((id) => Prisma.sql`${id}::uuid`));
    const [factors, links] = await Promise.all([
      this.prisma.$queryRaw<{ incidentId: string; id: string; role: string; component: string; text: string }[]>`
        SELECT "incidentId"::text AS "incidentId", "id"::text AS id, "role"::text AS role, "component", "text" FROM "CausalFactor" WHERE "incidentId" IN (${list})`,
      this.prisma.$queryRaw<{ incidentId: string; fromId: string; toId: string; kind: string }[]>`
        SELECT "incidentId"::text AS "incidentId", "fromId"::text AS "fromId", "toId"::text AS "toId", "kind"::text AS kind FROM "CausalLink" WHERE "incidentId" IN (${list})`,
    ]);
    const graphs = new Map<string, CausalGraph>(ids.map((id) => [id, { factors: [], links: [] }]));
    for (const f of factors) graphs.get(f.incidentId)?.factors.push(f);
    for (const l of links) graphs.get(l.incidentId)?.links.push(l);
    return graphs;
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
