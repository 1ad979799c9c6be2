/**
 * Search latency on a large corpus: p50/p95/p99 of a search page (20 results, relevance order)
 * for common words, rare words, component names, typos, quoted phrases and non-English words.
 * Per query, interleaved:
 * - A, the app's own `listIncidents` for the text (parse, typo lookup, the page statement, the
 *   page's rows; no count): the relevance pool ranks the rank vector (`searchRank`, in the row);
 * - B, the same page as it was: the same parse, then the relevance pool ranking the whole search
 *   document (in TOAST), then the rows; A and B take turns going first, round by round;
 * - C, the exact count `totalCount` runs now (through the GIN index, sequential scans off);
 * - D, the exact count as it was (planner's choice); C and D take turns like A and B.
 * Use an even number of rounds, so each of a pair goes first equally often.
 *
 * Run against a database filled by `npm run synth -- --incidents 100000`:
 *   DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/search-bench.ts [rounds] [--plans]
 * Bounded: `rounds` (default 5) passes over every query, one statement at a time, each limited
 * to 30 s. `--plans` writes EXPLAIN (ANALYZE, BUFFERS) of each class's first query (the page
 * now, the page as it was, the count now and as it was) to bench/plans/search-*.txt.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Prisma, PrismaService } from '@hindsight/db';
import { buildTextSearch, IncidentsService, RELEVANCE_POOL, searchMatch, type TextSearch } from '@hindsight/incidents';
import { percentile, time } from './timing';

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const writePlans = process.argv.includes('--plans');
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');

const prisma = new PrismaService({ url, poolMax: 4, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
const service = new IncidentsService(prisma);

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
/** The relevance pool as it was: the whole search document (in TOAST) ranked. */
const poolBefore = (tsquery: Prisma.Sql) =>
  Prisma.sql`FROM (WITH matches AS MATERIALIZED (SELECT i."id", i."searchDocument" AS v, s.q ${matches(tsquery)}) SELECT * FROM matches LIMIT ${RELEVANCE_POOL}) i
    CROSS JOIN LATERAL (SELECT i.q) s`;
/** The relevance pool as IncidentsService builds it now: the rank vector (in the row) ranked. */
const poolNow = (search: TextSearch) =>
  Prisma.sql`FROM (WITH matches AS MATERIALIZED (SELECT i."id", i."searchRank" AS v, s.q FROM "Incident" i CROSS JOIN (SELECT ${search.tsquery} AS q) s
    WHERE i."status" = 'published' AND ${searchMatch('i', search, Prisma.sql`s.q`)}) SELECT * FROM matches LIMIT ${RELEVANCE_POOL}) i
    CROSS JOIN LATERAL (SELECT i.q) s`;
const pageSql = (from: Prisma.Sql) => Prisma.sql`SELECT i."id"::text AS id, ts_rank(i.v, s.q)::text AS sort ${from} ORDER BY ts_rank(i.v, s.q) DESC, i."id" DESC LIMIT 21`;
/** What IncidentsService sets for a search statement (see `fromSearchIndex`). */
const THROUGH_INDEX = 'BEGIN READ ONLY; SET LOCAL enable_seqscan = off';

/** B: the search page as it was: parse and typo lookup, the ranked page (unnamed), the page's rows. */
async function pageBefore(text: string): Promise<number> {
  const search = await buildTextSearch(prisma, text);
  const rows = await prisma.$queryRaw<{ id: string }[]>(pageSql(poolBefore(search.tsquery)));
  await prisma.$queryRaw`SELECT "id", "slug", "title", "organization", "startedAt" FROM "Incident" WHERE "id" = ANY(${rows.map((r) => r.id)}::uuid[])`;
  return rows.length;
}

/** A: the app's own path: IncidentsService.listIncidents, as the GraphQL `incidents(filter: { text })` field calls it, no count. */
async function pageNow(text: string): Promise<number> {
  return (await service.listIncidents({ text }, { first: 20 }, { include: {} })).nodes.length;
}

/** C: the exact count listIncidents runs when totalCount is asked for (the page before it is not timed). */
async function countNow(text: string): Promise<() => Promise<number>> {
  const page = await service.listIncidents({ text }, { first: 0 }, { include: {} });
  return () => page.count();
}

/** D: the exact count as it was: the same statement, planned as the planner likes. */
async function countBefore(text: string): Promise<() => Promise<number>> {
  const search = await buildTextSearch(prisma, text);
  return async () => {
    const [row] = await prisma.$queryRaw<{ n: number }[]>(Prisma.sql`SELECT count(*)::int AS n ${matches(search.tsquery)}`);
    return row?.n ?? 0;
  };
}

async function explain(kind: Kind, text: string): Promise<void> {
  const search = await buildTextSearch(prisma, text);
  const plans: string[] = [];
  const analyze = Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)`;
  for (const [label, sql, throughIndex] of [
    ['page now (rank vector, planner\'s choice)', Prisma.sql`${analyze} ${pageSql(poolNow(search))}`, false],
    ['page as it was (whole document ranked, planner\'s choice)', Prisma.sql`${analyze} ${pageSql(poolBefore(search.tsquery))}`, false],
    ['count now (read through the index)', Prisma.sql`${analyze} SELECT count(*) FROM (SELECT * FROM "Incident" m WHERE ${searchMatch('m', search, search.tsquery)} OFFSET 0) i WHERE i."status" = 'published'`, true],
    ['count as it was (planner\'s choice)', Prisma.sql`${analyze} SELECT count(*) ${matches(search.tsquery)}`, false],
  ] as const) {
    const client = await prisma.pool.connect();
    try {
      if (throughIndex) await client.query(THROUGH_INDEX);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(sql.text, sql.values);
      if (throughIndex) await client.query('COMMIT');
      plans.push(`-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    } finally {
      client.release();
    }
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
  console.log(`search bench: ${incidents} published incidents, ${rounds} rounds; per query A (page now) B (page as it was) C (count now) D (count as it was), interleaved`);
  // Warm-up: one pass of every path over every query.
  for (const list of Object.values(queries)) {
    for (const q of list) {
      await pageNow(q);
      await pageBefore(q);
      await (await countNow(q))();
      await (await countBefore(q))();
    }
  }
  const rows: string[] = [];
  const f = (v: number) => v.toFixed(1);
  const stats = (xs: number[]) => {
    xs.sort((x, y) => x - y);
    return `${f(percentile(xs, 50))} / ${f(percentile(xs, 95))} / ${f(percentile(xs, 99))}`;
  };
  const p95 = (xs: number[]) => percentile([...xs].sort((x, y) => x - y), 95);
  for (const [kind, list] of Object.entries(queries) as [Kind, string[]][]) {
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const d: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const q of list) {
        // Alternate which goes first, so neither always finds the cache the other warmed.
        if (r % 2 === 0) {
          a.push(await time(() => pageNow(q)));
          b.push(await time(() => pageBefore(q)));
        } else {
          b.push(await time(() => pageBefore(q)));
          a.push(await time(() => pageNow(q)));
        }
        // Likewise for the counts: a count reads thousands of heap pages, and the one that runs
        // second finds many of them in shared buffers.
        const now = await countNow(q);
        const before = await countBefore(q);
        if (r % 2 === 0) {
          c.push(await time(now));
          d.push(await time(before));
        } else {
          d.push(await time(before));
          c.push(await time(now));
        }
      }
    }
    rows.push(
      `| ${kind} | ${[...new Set(list)].map((q) => `\`${q}\``).join(', ')} | ${stats(a)} | ${stats(b)} | ${(p95(b) / p95(a)).toFixed(1)}× | ${stats(c)} | ${stats(d)} | ${(p95(d) / p95(c)).toFixed(1)}× |`,
    );
    if (writePlans) await explain(kind, list[0]!);
  }
  console.log('| queries | examples | A: page now, p50 / p95 / p99 ms | B: page as it was | p95 B ÷ A | C: count now | D: count as it was | p95 D ÷ C |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await prisma.onModuleDestroy();
  });
