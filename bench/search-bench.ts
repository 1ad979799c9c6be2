/**
 * Search latency on a large corpus: p50/p95/p99 of a search page (20 results, relevance order)
 * for common words, rare words, component names, typos, quoted phrases and non-English words.
 * Per query, interleaved: A, the page with the relevance pool as IncidentsService builds it now
 * (matches in a MATERIALIZED CTE, LIMIT outside); B, the same page with the pool as it was
 * (LIMIT inside the match query); C, the app's own `listIncidents` for the same text (parse,
 * typo lookup, page statement planned for its text, page rows); D, the exact count `totalCount`
 * runs; E, A's page as a named prepared statement on one connection, as search pages were sent
 * before they went unnamed (from the sixth run Postgres may give it a generic plan).
 *
 * Run against a database filled by `npm run synth -- --incidents 100000`:
 *   DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/search-bench.ts [rounds] [--plans]
 * Bounded: `rounds` (default 5) passes over every query, one statement at a time, each limited
 * to 30 s. `--plans` writes EXPLAIN (ANALYZE, BUFFERS) of each class's first query (A, B and the
 * count) to bench/plans/search-*.txt.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Prisma, PrismaService } from '@hindsight/db';
import { buildTextSearch, IncidentsService, RELEVANCE_POOL } from '@hindsight/incidents';

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const writePlans = process.argv.includes('--plans');
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');

const prisma = new PrismaService({ url, poolMax: 4, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
const service = new IncidentsService(prisma);
// One connection for the named statements, so each is prepared once and reused, as in the app's pool.
const namedClient = prisma.pool.connect();

type Kind = 'common word' | 'rare word' | 'component' | 'typo' | 'phrase' | 'non-English';

/** The queries of each class, drawn from the corpus itself so they exist whatever the seed. */
async function pickQueries(): Promise<Record<Kind, string[]>> {
  const df = await prisma.$queryRaw<{ word: string; n: number }[]>`
    SELECT word, n::int FROM (SELECT "word" AS word, count(*) AS n FROM "SearchWord" WHERE length("word") >= 6 AND "word" ~ '^[a-z]+$' GROUP BY "word") t
    ORDER BY n DESC`;
  const common = df.slice(0, 5).map((w) => w.word);
  const rare = df.filter((w) => w.n <= 3).slice(0, 5).map((w) => w.word);
  const components = await prisma.$queryRaw<{ c: string }[]>`
    SELECT c FROM (SELECT DISTINCT c FROM "Incident" TABLESAMPLE SYSTEM (5), unnest("components") AS c) t ORDER BY c LIMIT 5`;
  const typo = df.slice(20, 25).map((w) => `${w.word.slice(0, 2)}${w.word[3]}${w.word[2]}${w.word.slice(4)}`);
  const titles = await prisma.$queryRaw<{ title: string }[]>`SELECT "title" FROM "Incident" WHERE "slug" LIKE 'synth-%' AND "slug" NOT LIKE '%-copy%' ORDER BY md5("slug") LIMIT 5`;
  const phrase = titles.map((t) => `"${t.title.split(/\s+/).slice(1, 4).join(' ')}"`);
  return {
    'common word': common,
    'rare word': rare,
    component: components.map((c) => c.c),
    typo,
    phrase,
    // The synthetic corpus tags languages but writes English text; these are the seeds' own words.
    'non-English': ['siêu bền', 'bộ đệm', 'sieu ben', 'trạng thái', 'quá tải'],
  };
}

const matches = (tsquery: Prisma.Sql) => Prisma.sql`FROM "Incident" i CROSS JOIN (SELECT ${tsquery} AS q) s WHERE i."status" = 'published' AND i."searchDocument" @@ s.q`;
/** The relevance pool as it was: LIMIT inside the match query, so the planner plans for the first 300 matches. */
const pooledBefore = (tsquery: Prisma.Sql) =>
  Prisma.sql`FROM (SELECT i."id", i."searchDocument", s.q ${matches(tsquery)} LIMIT ${RELEVANCE_POOL}) i CROSS JOIN LATERAL (SELECT i.q) s`;
/** The relevance pool as IncidentsService builds it now: the matches a MATERIALIZED CTE, the LIMIT outside. */
const pooledAfter = (tsquery: Prisma.Sql) =>
  Prisma.sql`FROM (WITH matches AS MATERIALIZED (SELECT i."id", i."searchDocument", s.q ${matches(tsquery)}) SELECT * FROM matches LIMIT ${RELEVANCE_POOL}) i
    CROSS JOIN LATERAL (SELECT i.q) s`;
const pageSql = (from: Prisma.Sql) => Prisma.sql`SELECT i."id"::text AS id, ts_rank(i."searchDocument", s.q)::text AS sort ${from} ORDER BY ts_rank(i."searchDocument", s.q) DESC, i."id" DESC LIMIT 21`;

/** A search page by hand: the query's parse and typo lookup, the ranked page, the page's rows. */
async function page(text: string, pool: (tsquery: Prisma.Sql) => Prisma.Sql): Promise<number> {
  const search = await buildTextSearch(prisma, text);
  const rows = await prisma.$queryRaw<{ id: string }[]>(pageSql(pool(search.tsquery)));
  await prisma.$queryRaw`SELECT "id", "slug", "title", "organization", "startedAt" FROM "Incident" WHERE "id" = ANY(${rows.map((r) => r.id)}::uuid[])`;
  return rows.length;
}

/**
 * A's page sent as a named prepared statement, as the service sent search pages before: from
 * the sixth run on one connection Postgres may plan it once for any tsquery (a generic plan).
 */
async function pageNamed(text: string): Promise<number> {
  const search = await buildTextSearch(prisma, text);
  const q = pageSql(pooledAfter(search.tsquery));
  const name = `bench_${createHash('sha1').update(q.text).digest('base64url').slice(0, 20)}`;
  const client = await namedClient;
  const { rows } = await client.query<{ id: string }>({ name, text: q.text, values: q.values });
  await prisma.$queryRaw`SELECT "id", "slug", "title", "organization", "startedAt" FROM "Incident" WHERE "id" = ANY(${rows.map((r) => r.id)}::uuid[])`;
  return rows.length;
}

/** The app's own path: IncidentsService.listIncidents, as the GraphQL `incidents(filter: { text })` field calls it, no count. */
async function servicePage(text: string): Promise<number> {
  return (await service.listIncidents({ text }, { first: 20 }, { include: {} })).nodes.length;
}

/** The exact count listIncidents runs when totalCount is asked for. */
async function count(text: string): Promise<number> {
  const search = await buildTextSearch(prisma, text);
  const [row] = await prisma.$queryRaw<{ n: number }[]>(Prisma.sql`SELECT count(*)::int AS n ${matches(search.tsquery)}`);
  return row?.n ?? 0;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function explain(kind: Kind, text: string): Promise<void> {
  const search = await buildTextSearch(prisma, text);
  const plans: string[] = [];
  for (const [label, sql] of [
    ['page (relevance pool, MATERIALIZED matches)', Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${pageSql(pooledAfter(search.tsquery))}`],
    ['page as it was (LIMIT inside the match query)', Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${pageSql(pooledBefore(search.tsquery))}`],
    ['count', Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) ${matches(search.tsquery)}`],
  ] as const) {
    const rows = await prisma.$queryRaw<{ 'QUERY PLAN': string }[]>(sql);
    plans.push(`-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  const file = path.join(__dirname, 'plans', `search-${kind.replace(/[^a-z]+/gi, '-').toLowerCase()}.txt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Buffer counts vary with the cache; the plan's shape is what a diff should show.
  fs.writeFileSync(file, `-- search ${JSON.stringify(text)} (${kind}) on ${incidents} published incidents; EXPLAIN (ANALYZE, BUFFERS), timings off\n${plans.join('\n\n')}\n`);
}

let incidents = 0;

async function main(): Promise<void> {
  [{ n: incidents }] = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Incident" WHERE "status" = 'published'`;
  const queries = await pickQueries();
  console.log(`search bench: ${incidents} published incidents, ${rounds} rounds; per query A (pool now) B (pool as it was) C (the app's listIncidents) D (exact count), interleaved`);
  // Warm-up: one pass of every path over every query.
  for (const list of Object.values(queries)) for (const q of list) for (const run of [() => page(q, pooledAfter), () => page(q, pooledBefore), () => servicePage(q), () => pageNamed(q)]) await run();
  const rows: string[] = [];
  const f = (v: number) => v.toFixed(1);
  const stats = (xs: number[]) => {
    xs.sort((x, y) => x - y);
    return `${f(percentile(xs, 50))} / ${f(percentile(xs, 95))} / ${f(percentile(xs, 99))}`;
  };
  for (const [kind, list] of Object.entries(queries) as [Kind, string[]][]) {
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const d: number[] = [];
    const e: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const q of list) {
        e.push(await time(() => pageNamed(q)));
        a.push(await time(() => page(q, pooledAfter)));
        b.push(await time(() => page(q, pooledBefore)));
        c.push(await time(() => servicePage(q)));
        d.push(await time(() => count(q)));
      }
    }
    const p95 = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 95);
    const ratio = (p95(b) / p95(a)).toFixed(1);
    rows.push(`| ${kind} | ${[...new Set(list)].map((q) => `\`${q}\``).join(', ')} | ${stats(a)} | ${stats(b)} | ${ratio}× | ${stats(c)} | ${stats(d)} | ${stats(e)} |`);
    if (writePlans) await explain(kind, list[0]!);
  }
  console.log('| queries | examples | A: page, pool now: p50 / p95 / p99 ms | B: page, pool as it was | p95 B ÷ A | C: listIncidents (app) | D: exact count | E: A as a named statement |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    (await namedClient).release();
    await prisma.onModuleDestroy();
  });
