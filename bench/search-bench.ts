/**
 * Search latency on a large corpus: p50/p95/p99 of a search page (20 results, relevance order)
 * for common words, rare words, component names, typos, quoted phrases and non-English words,
 * beside the same run's baseline: the search as it was before the bounded relevance pool and
 * the vocabulary table (uncapped ranking, typo lookup over every (word, incident) pair).
 *
 * Run against a database filled by `npm run synth -- --incidents 100000`:
 *   DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/search-bench.ts [rounds] [--plans]
 * Bounded: `rounds` (default 5) passes over every query, A B A B (new, baseline, new, …) per
 * query, one at a time, each statement limited to 30 s. `--plans` writes EXPLAIN (ANALYZE,
 * BUFFERS) of each class's first query to bench/plans/search-*.txt.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Prisma, PrismaService } from '@hindsight/db';
import { buildTextSearch, normalizeSearchText, RELEVANCE_POOL } from '@hindsight/incidents';

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const writePlans = process.argv.includes('--plans');
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');

const prisma = new PrismaService({ url, poolMax: 4, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });

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

/** Main's typo widening: trigram similarity over every (word, incident) pair of SearchWord. */
async function baselineTsquery(text: string): Promise<Prisma.Sql> {
  const folded = normalizeSearchText(text);
  const words = [...new Set(folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 5 && w.length <= 60 && w !== 'or'))];
  const widened =
    words.length === 0
      ? []
      : await prisma.$queryRaw<{ word: string; alternatives: string[] }[]>`
        SELECT q.w AS word,
          ARRAY(SELECT s."word" FROM "SearchWord" s JOIN "Incident" i ON i."id" = s."incidentId" AND i."status" = 'published'
                WHERE s."word" % q.w AND levenshtein(s."word", q.w) <= 3 GROUP BY s."word"
                ORDER BY levenshtein(s."word", q.w), similarity(s."word", q.w) DESC, s."word" LIMIT 5) AS alternatives
        FROM unnest(${words}::text[]) AS q(w)
        WHERE NOT EXISTS (SELECT 1 FROM "SearchWord" s JOIN "Incident" i ON i."id" = s."incidentId" AND i."status" = 'published' WHERE s."word" = q.w)`;
  let tsquery = Prisma.sql`(websearch_to_tsquery('english', ${folded}) || websearch_to_tsquery('simple', ${folded}))`;
  for (const { word, alternatives } of widened) {
    if (alternatives.length === 0) continue;
    const sub = Prisma.join([word, ...alternatives].map((w) => Prisma.sql`(plainto_tsquery('english', ${w}) || plainto_tsquery('simple', ${w}))`), ' || ');
    for (const config of ['english', 'simple']) tsquery = Prisma.sql`ts_rewrite(${tsquery}, plainto_tsquery(${config}::regconfig, ${word}), (${sub}))`;
  }
  return tsquery;
}

const matches = (tsquery: Prisma.Sql) => Prisma.sql`FROM "Incident" i CROSS JOIN (SELECT ${tsquery} AS q) s WHERE i."status" = 'published' AND i."searchDocument" @@ s.q`;
const pooled = (tsquery: Prisma.Sql) => Prisma.sql`FROM (SELECT i."id", i."searchDocument", s.q ${matches(tsquery)} LIMIT ${RELEVANCE_POOL}) i CROSS JOIN LATERAL (SELECT i.q) s`;
const pageSql = (from: Prisma.Sql) => Prisma.sql`SELECT i."id"::text AS id, ts_rank(i."searchDocument", s.q)::text AS sort ${from} ORDER BY ts_rank(i."searchDocument", s.q) DESC, i."id" DESC LIMIT 21`;

/** Main's search page: main's widening, every match ranked; then the page's rows. No count. */
async function baselinePage(text: string): Promise<number> {
  const rows = await prisma.$queryRaw<{ id: string }[]>(pageSql(matches(await baselineTsquery(text))));
  await prisma.incident.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  return rows.length;
}

/** This branch's search page, the statements IncidentsService.listIncidents runs for it, less the count. */
async function currentPage(text: string): Promise<number> {
  const search = await buildTextSearch(prisma, text);
  const rows = await prisma.$queryRaw<{ id: string }[]>(pageSql(pooled(search.tsquery)));
  await prisma.incident.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  return rows.length;
}

/** The exact count listIncidents runs beside the page (unchanged from main). */
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
  const pool = Prisma.sql`FROM (SELECT i."id", i."searchDocument", s.q FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s
      WHERE i."status" = 'published' AND i."searchDocument" @@ s.q LIMIT ${RELEVANCE_POOL}) i CROSS JOIN LATERAL (SELECT i.q) s`;
  const plans: string[] = [];
  for (const [label, sql] of [
    ['page (relevance pool)', Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT i."id"::text, ts_rank(i."searchDocument", s.q)::text ${pool} ORDER BY ts_rank(i."searchDocument", s.q) DESC, i."id" DESC LIMIT 21`],
    ['count', Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s WHERE i."status" = 'published' AND i."searchDocument" @@ s.q`],
  ] as const) {
    const rows = await prisma.$queryRaw<{ 'QUERY PLAN': string }[]>(sql);
    plans.push(`-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  const file = path.join(__dirname, 'plans', `search-${kind.replace(/[^a-z]+/gi, '-').toLowerCase()}.txt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Buffer counts vary with the cache; the plan's shape is what a diff should show.
  fs.writeFileSync(file, `-- search ${JSON.stringify(text)} (${kind}); EXPLAIN (ANALYZE, BUFFERS), timings off\n${plans.join('\n\n')}\n`);
}

async function main(): Promise<void> {
  const [{ n }] = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Incident" WHERE "status" = 'published'`;
  const queries = await pickQueries();
  console.log(`search bench: ${n} published incidents, ${rounds} rounds, A (this branch) B (main) interleaved per query`);
  for (const list of Object.values(queries)) for (const q of list) await Promise.all([currentPage(q), baselinePage(q)].map((p) => p.catch(() => 0)));
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
    let failures = 0;
    for (let r = 0; r < rounds; r++) {
      for (const q of list) {
        a.push(await time(() => currentPage(q)));
        b.push(await time(() => baselinePage(q).catch(() => failures++)));
        c.push(await time(() => count(q)));
      }
    }
    const p95 = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 95);
    const ratio = (p95(b) / p95(a)).toFixed(1);
    rows.push(`| ${kind} | ${[...new Set(list)].map((q) => `\`${q}\``).join(', ')} | ${stats(a)} | ${stats(b)}${failures ? ` (${failures} failed)` : ''} | ${ratio}× | ${stats(c)} |`);
    if (writePlans) await explain(kind, list[0]!);
  }
  console.log('| queries | examples | page, this branch: p50 / p95 / p99 ms | page, main | p95 main ÷ branch | exact count (both) |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
