/**
 * GraphQL facets on a large corpus: the bounded count (`countUpTo`, by default the list count
 * limit, 1,000) against the exact count over every match (what `facets` did before it took a
 * bound), for searches and filters whose result sets run from a few incidents to most of them.
 * A and B take turns going first, round by round; p50 and p95 per query class.
 *
 * Run against a database filled by `npm run synth -- --incidents 100000`:
 *   DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/facets-bench.ts [rounds]
 * Bounded: `rounds` (default 4) passes, one statement at a time, each limited to 30 s.
 */
import { PrismaService } from '@hindsight/db';
import { buildTextSearch, IncidentsService, SearchResultsService, type IncidentFilter } from '@hindsight/incidents';
import { percentile, time } from './timing';

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 4);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');
const BOUND = 1_000;

const prisma = new PrismaService({ url, poolMax: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
const results = new SearchResultsService(prisma, new IncidentsService(prisma));

/** A common word, a word a few hundred incidents match, a rare word, and a plain filter. */
async function pickCases(): Promise<{ label: string; filter: IncidentFilter }[]> {
  const df = await prisma.$queryRaw<{ word: string; n: number }[]>`
    SELECT word, n::int FROM (SELECT "word" AS word, count(*) AS n FROM "SearchWord" WHERE length("word") >= 6 AND "word" ~ '^[a-z]+$' GROUP BY "word") t ORDER BY n DESC, word`;
  if (df.length === 0) throw new Error('the database holds no indexed words: fill it with npm run synth first');
  // A search matches stems and every stored language's reading, so a word's matches are counted
  // (up to 2,000) rather than read off the word list; candidates from every part of the list.
  const matches = async (word: string) => (await results.countUpTo({ text: word }, await buildTextSearch(prisma, word), 2_000)).count;
  let rare: { word: string; n: number } | null = null;
  let middle: { word: string; n: number } | null = null;
  for (let i = df.length - 1, probes = 0; i >= 0 && probes < 200 && !(rare && middle); i -= Math.max(1, Math.floor(df.length / 200)), probes++) {
    const n = await matches(df[i]!.word);
    if (!rare && n >= 1 && n <= 10) rare = { word: df[i]!.word, n };
    if (!middle && n >= 150 && n <= 600) middle = { word: df[i]!.word, n };
  }
  const [org] = await prisma.$queryRaw<{ o: string }[]>`SELECT "organization" AS o FROM "Incident" GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`;
  return [
    { label: `common word "${df[0]!.word}"`, filter: { text: df[0]!.word } },
    ...(middle ? [{ label: `word matching ${middle.n} incidents ("${middle.word}")`, filter: { text: middle.word } }] : []),
    ...(rare ? [{ label: `rare word matching ${rare.n} ("${rare.word}")`, filter: { text: rare.word } }] : []),
    { label: `organization filter "${org!.o.slice(0, 3)}"`, filter: { organization: org!.o.slice(0, 3) } },
  ];
}

async function main(): Promise<void> {
  const cases = await pickCases();
  console.log(`facets bench: ${rounds} rounds, A = bounded (countUpTo ${BOUND}), B = exact; A and B alternate which goes first`);
  console.log('| result set | bounded p50 / p95 ms | exact p50 / p95 ms | exact ÷ bounded (p50) | counted (bounded) | complete |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const c of cases) {
    const search = c.filter.text ? await buildTextSearch(prisma, c.filter.text) : null;
    const bounded = () => results.facets(c.filter, search, 10, BOUND);
    const exact = () => results.facets(c.filter, search, 10, null);
    await bounded();
    await exact();
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        a.push(await time(bounded));
        b.push(await time(exact));
      } else {
        b.push(await time(exact));
        a.push(await time(bounded));
      }
    }
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    const [first] = await bounded();
    console.log(
      `| ${c.label} | ${percentile(a, 50).toFixed(1)} / ${percentile(a, 95).toFixed(1)} | ${percentile(b, 50).toFixed(1)} / ${percentile(b, 95).toFixed(1)} | ${(percentile(b, 50) / percentile(a, 50)).toFixed(1)}× | ${first!.counted} | ${first!.complete} |`,
    );
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
