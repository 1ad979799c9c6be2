/**
 * What an edit of a stored incident costs through the one writer (writeIncidentDocument), on a
 * database with the search indexes: each edit appends a sentence to one incident's summary, so
 * the whole search document is rewritten, as every edit of an incident does. Bounded: EDITS
 * edits (default 200) spread over the first 50 incidents by slug.
 *
 *   DATABASE_URL=postgresql://…/<a database filled by npm run synth> node -r ./scripts/register-ts.js bench/edit-bench.ts
 *
 * To compare two commits, run it from each checkout in turns (copy this file into a checkout
 * that has none) against its own migrated copy of the same corpus (A B A B), and read the ratio
 * of the medians.
 */
import { PrismaService } from '@hindsight/db';
import { loadIncidentSnapshot, writeIncidentDocument } from '@hindsight/incidents';
import { percentile, time } from './timing';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');
  const edits = Number(process.env.EDITS ?? 200);
  const prisma = new PrismaService({ url, poolMax: 2, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
  try {
    const slugs = (await prisma.incident.findMany({ select: { slug: true }, orderBy: { slug: 'asc' }, take: 50 })).map((r) => r.slug);
    if (slugs.length === 0) throw new Error('the database holds no incidents');
    const ms: number[] = [];
    for (let i = 0; i < edits; i++) {
      const slug = slugs[i % slugs.length]!;
      ms.push(
        await time(() =>
          prisma.$transaction(async (tx) => {
            const before = (await loadIncidentSnapshot(tx, { slug }))!;
            const doc = { ...before.doc, summary: `${before.doc.summary} Edit ${i}.` };
            await writeIncidentDocument(tx, doc, { status: before.status });
          }),
        ),
      );
    }
    ms.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    console.log(JSON.stringify({ edits, p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)), mean: round(ms.reduce((a, b) => a + b, 0) / ms.length) }));
  } finally {
    await prisma.onModuleDestroy();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
