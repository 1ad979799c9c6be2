/**
 * Writes EXPLAIN (ANALYZE, BUFFERS) of the hot read statements to bench/plans/, so a change in
 * a plan shows in the diff. The statements are the ones the app sends (captured from its pool
 * while IncidentsService answers the bench's queries), run against a database filled by
 * `npm run synth`:
 *   BENCH_DATABASE_URL=postgresql://…/hindsight_synth_100k node -r ./scripts/register-ts.js bench/read-plans.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { PrismaService, projectRoot } from '@hindsight/db';
import { IncidentLoaders, IncidentsService } from '@hindsight/incidents';
import { DETAIL_INCLUDE, LIST_INCLUDE } from './read-queries';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL to a database filled by npm run synth');

async function main() {
  const prisma = new PrismaService({ url: url!, poolMax: 2, statementTimeoutMs: 120_000, connectTimeoutMs: 10_000 });
  const captured: { text: string; values: unknown[] }[] = [];
  const original = prisma.pool.query.bind(prisma.pool) as (...args: unknown[]) => Promise<unknown>;
  (prisma.pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (q: unknown, v?: unknown) => {
    const config = typeof q === 'string' ? { text: q, values: (v as unknown[]) ?? [] } : (q as { text: string; values?: unknown[] });
    if (!config.text.startsWith('EXPLAIN')) captured.push({ text: config.text, values: config.values ?? [] });
    return original(q, v);
  };
  const service = new IncidentsService(prisma);
  const [{ slug }] = await prisma.$queryRaw<{ slug: string }[]>`SELECT "slug" FROM "Incident" WHERE "slug" LIKE 'synth-%' ORDER BY "slug" LIMIT 1 OFFSET 100`;
  const cases: [string, () => Promise<unknown>][] = [
    // The includes the API works out for the read benches' queries (read-queries.ts, read-bench.ts):
    // the detail's actionables without their timestamps and its patterns without descriptions,
    // the list's actionables and patterns by key only, the board's items without their timestamps.
    ['incident-detail', () => service.findBySlug(slug!, { loaders: new IncidentLoaders(prisma), include: DETAIL_INCLUDE })],
    ['incident-list', () => service.listIncidents({}, { first: 20 }, { loaders: new IncidentLoaders(prisma), include: LIST_INCLUDE })],
    ['incident-list-count', async () => (await service.listIncidents({}, { first: 1 })).count()],
    ['incident-list-by-title', () => service.listIncidents({ organization: 'cloud' }, { first: 20, orderBy: 'TITLE_ASC' }, { include: {} })],
    ['actionables-board', () => service.listActionables({ status: ['open', 'in_progress'], overdue: true }, { first: 20 }, { loaders: new IncidentLoaders(prisma), include: { incident: true, columns: ['words', 'followUp'] } })],
    ['actionables-board-owner', () => service.listActionables({ owner: 'ALICE' }, { first: 20 }, { include: { references: true } })],
  ];
  const dir = path.join(projectRoot(), 'bench', 'plans');
  fs.mkdirSync(dir, { recursive: true });
  const [{ n }] = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Incident"`;
  for (const [name, run] of cases) {
    captured.length = 0;
    await run();
    const statements = [...captured];
    let out = `-- ${name}: the statements IncidentsService sent, on ${n} incidents\n`;
    for (const s of statements) {
      const values = s.values.map((v) => (v instanceof Date ? v.toISOString() : v));
      const plan = (await original(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, values)) as { rows: { 'QUERY PLAN': string }[] };
      out += `\n${s.text.trim()}\n-- parameters: ${JSON.stringify(values)}\n\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`;
    }
    fs.writeFileSync(path.join(dir, `${name}.txt`), out);
    console.log(`${name}: ${statements.length} statement(s)`);
  }
  await prisma.onModuleDestroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
