/**
 * Importing 1,000 generated postmortems, beside two baselines measured in the same run:
 *  - marked's Markdown lexer over the same documents (tokenising only: the floor for any
 *    parser that reads Markdown);
 *  - storing the already parsed drafts (the database half of an import on its own).
 * Run: node -r ./scripts/register-ts.js bench/import-bench.ts [count]
 * Uses DATABASE_URL's server when set (a scratch database is created and dropped), otherwise an
 * embedded Postgres in a temporary folder. Bounded: one pass over `count` documents.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { marked } from 'marked';
import { migrate, migrationsDir, PrismaService, projectRoot, startEmbeddedPostgres } from '@hindsight/db';
import { parsePostmortem } from '@hindsight/postmortem-parser';
import { DraftsService } from '@hindsight/drafts';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { generatePostmortemDocuments } from '../libs/postmortem-parser/src/testing/generate-documents';
import { createScratchDatabase } from './scratch-database';

const count = Number(process.argv[2] ?? 1000);
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function database(): Promise<{ url: string; done: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase('hindsight_bench');
    return { url: scratch.url, done: scratch.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-bench-'));
  const server = await startEmbeddedPostgres({ dataDir: dir, database: 'bench', persistent: false });
  return { url: server.url, done: async () => { await server.stop(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

async function main() {
  const docs = generatePostmortemDocuments(count, { seed: 7 });
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.text), 0);

  let start = process.hrtime.bigint();
  let tokens = 0;
  for (const d of docs) tokens += marked.lexer(d.text).length;
  const lexMs = ms(start);

  start = process.hrtime.bigint();
  const parsed = docs.map((d) => parsePostmortem(d.text, { organization: 'Bench Corp', knownPatterns: ['missing-timeout', 'retry-amplification'] }));
  const parseMs = ms(start);
  const mismatches = parsed.filter((r, i) => r.draft.timeline.length !== docs[i]!.expected.timeline).length;

  // Prose reading: the seed-source fixtures, three of which tell events or follow-ups only in
  // sentences, parsed as many times as there are generated documents, beside the lexer on them.
  const sourcesDir = path.join(projectRoot(), 'libs', 'postmortem-parser', 'test', 'fixtures', 'seed-sources');
  const sources = fs.readdirSync(sourcesDir).map((f) => fs.readFileSync(path.join(sourcesDir, f), 'utf8'));
  const proseDocs = Array.from({ length: count }, (_, i) => sources[i % sources.length]!);
  start = process.hrtime.bigint();
  for (const d of proseDocs) marked.lexer(d);
  const proseLexMs = ms(start);
  start = process.hrtime.bigint();
  let fromProse = 0;
  for (const d of proseDocs) fromProse += parsePostmortem(d).report.warnings.filter((w) => w.code.endsWith('_FROM_PROSE')).length;
  const proseParseMs = ms(start);

  const db = await database();
  const prisma = new PrismaService({ url: db.url, poolMax: 4, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
  try {
    await migrate(db.url, migrationsDir());
    await seedDatabase(prisma, readSeedFiles(path.join(projectRoot(), 'seeds')));
    const imports = new DraftsService(prisma, { maxBytes: 1024 * 1024, trackers: {} });
    const actor = { name: 'bench', tokenId: null };

    // Half the documents through the whole import (parse + store), half stored from their parse.
    const half = Math.floor(count / 2);
    start = process.hrtime.bigint();
    for (const d of docs.slice(0, half)) await imports.importDocument({ document: d.text, organization: 'Bench Corp', actor });
    const fullMs = ms(start);
    start = process.hrtime.bigint();
    for (const r of parsed.slice(half)) await imports.saveDraft(r, { sourceUrl: null, actor });
    const storeMs = ms(start);
    const drafts = await prisma.incident.count({ where: { status: 'draft' } });

    const per = (total: number, n: number) => (total / n).toFixed(2);
    console.log(`documents: ${count} generated (${(bytes / 1024).toFixed(0)} KiB), timeline counts off in ${mismatches}`);
    console.log(`marked.lexer (baseline)       ${lexMs.toFixed(0).padStart(7)} ms   ${per(lexMs, count)} ms/doc   ${tokens} tokens`);
    console.log(`parsePostmortem               ${parseMs.toFixed(0).padStart(7)} ms   ${per(parseMs, count)} ms/doc   ${(parseMs / lexMs).toFixed(1)}x the lexer`);
    console.log(`seed sources: marked.lexer   ${proseLexMs.toFixed(0).padStart(7)} ms   ${per(proseLexMs, count)} ms/doc`);
    console.log(`seed sources: parsePostmortem${proseParseMs.toFixed(0).padStart(7)} ms   ${per(proseParseMs, count)} ms/doc   ${(proseParseMs / proseLexMs).toFixed(1)}x the lexer, ${fromProse} prose readings`);
    console.log(`store parsed drafts (baseline)${storeMs.toFixed(0).padStart(7)} ms   ${per(storeMs, count - half)} ms/doc   (${count - half} docs)`);
    console.log(`full import (parse + store)   ${fullMs.toFixed(0).padStart(7)} ms   ${per(fullMs, half)} ms/doc   (${half} docs)`);
    console.log(`1,000 documents imported end to end ≈ ${((fullMs / half) * 1000 / 1000).toFixed(1)} s; drafts stored: ${drafts}`);
  } finally {
    await prisma.onModuleDestroy();
    await db.done();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
