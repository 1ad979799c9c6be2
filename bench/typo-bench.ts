/**
 * Typo widening and did-you-mean on a large corpus: p50/p95 of a search page (20 results, the
 * app's `listIncidents`, no count) for misspelt words, and of `didYouMean` for a search that finds
 * nothing. The misspellings are made from the corpus's own words, so they exist whatever the seed:
 * - swap: a word of five or six letters with two neighbouring letters swapped ("reigon");
 * - long typo: a longer word with two inner letters swapped, as search-bench.ts makes them;
 * - many unknown words: 30 made-up words of five to seven letters, about 250 characters;
 * - did-you-mean: a short word with a swap beside one no incident holds, so nothing matches.
 *
 * The same file runs against another checkout for an A B comparison in one run (copy it and
 * bench/timing.ts into that checkout's bench/ and run the two in turns):
 *   DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/typo-bench.ts [rounds]
 * Bounded: `rounds` (default 6) passes over every query, one at a time, each statement limited to 30 s.
 */
import { PrismaService } from '@hindsight/db';
import { buildTextSearch, IncidentsService, SearchResultsService } from '@hindsight/incidents';
import { percentile, time } from './timing';

const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 6);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');

const prisma = new PrismaService({ url, poolMax: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 30_000 });
const incidents = new IncidentsService(prisma);
const results = new SearchResultsService(prisma, incidents);

const swap = (w: string, at: number) => `${w.slice(0, at)}${w[at + 1]}${w[at]}${w.slice(at + 2)}`;

async function pickQueries(): Promise<Record<string, string[]>> {
  const df = await prisma.$queryRaw<{ word: string }[]>`
    SELECT word FROM (SELECT "word" AS word, count(*) AS n FROM "SearchWord" WHERE length("word") BETWEEN 5 AND 12 AND "word" ~ '^[a-z]+$' GROUP BY "word") t
    ORDER BY n DESC, word LIMIT 400`;
  const words = df.map((d) => d.word);
  if (words.length === 0) throw new Error('the database holds no indexed words: fill it with npm run synth first');
  const short = words.filter((w) => w.length <= 6);
  const long = words.filter((w) => w.length >= 8);
  const made = (i: number) => `${'bcdfghjklmnpqrstvwxz'[i % 20]}${'aeiou'[i % 5]}${'rstlnm'[i % 6]}${'aeiou'[(i * 3) % 5]}${'qxzvkj'[i % 6]}${'aeiou'[(i * 7) % 5]}${'bcdfg'[i % 5]}`.slice(0, 5 + (i % 3));
  return {
    swap: short.slice(0, 5).map((w) => swap(w, 2)),
    'long typo': long.slice(0, 5).map((w) => swap(w, 3)),
    'many unknown words': [Array.from({ length: 30 }, (_, i) => made(i)).join(' ')],
  };
}

async function main(): Promise<void> {
  const queries = await pickQueries();
  const shortWords = await prisma.$queryRaw<{ word: string }[]>`
    SELECT "word" AS word FROM "SearchWord" WHERE length("word") = 4 AND "word" ~ '^[a-z]+$' GROUP BY "word" ORDER BY count(*) DESC, "word" LIMIT 5`;
  const didYouMean = shortWords.map((w) => `${swap(w.word, 1)} qzxvkj`);
  const timings: Record<string, number[]> = {};
  const run = async (label: string, f: () => Promise<unknown>) => {
    (timings[label] ??= []).push(await time(f));
  };
  for (let r = 0; r <= rounds; r++) {
    for (const [kind, texts] of Object.entries(queries)) {
      for (const text of texts) await run(kind, () => incidents.listIncidents({ text }, { first: 20 }, { include: {} }));
    }
    for (const text of didYouMean) {
      await run('did-you-mean', async () => results.didYouMean({ text }, await buildTextSearch(prisma, text)));
    }
    if (r === 0) for (const k of Object.keys(timings)) timings[k] = []; // the first pass warms up
  }
  console.log(`typo bench: ${rounds} rounds; queries: ${JSON.stringify({ ...queries, 'did-you-mean': didYouMean })}`);
  console.log('| class | p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  for (const [kind, t] of Object.entries(timings)) {
    t.sort((a, b) => a - b);
    console.log(`| ${kind} | ${percentile(t, 50).toFixed(1)} | ${percentile(t, 95).toFixed(1)} |`);
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
