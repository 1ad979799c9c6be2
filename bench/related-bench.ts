/**
 * Related incidents on a large corpus: the time of `findRelatedIncidents` (the statement an
 * incident page and `Incident.related` run) for one incident at a time, p50/p95/max, beside
 * another commit's version of the same function in the same run (A B A B per incident).
 *
 * Run against a database filled by `npm run synth -- --incidents 100000`:
 *   DATABASE_URL=postgresql://…/db [BASELINE_ROOT=<checkout>] node -r ./scripts/register-ts.js bench/related-bench.ts [incidents] [baselineIncidents]
 *
 * Bounded: `incidents` (default 20) incidents for this checkout, and the first `baselineIncidents`
 * (default 3) of them for the baseline, whose calls may take far longer; every statement is
 * limited to 120 s. Incidents are drawn by a fixed hash of their slug, so both sides and every
 * run ask for the same ones.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PrismaService } from '@hindsight/db';
import { findRelatedIncidents } from '@hindsight/incidents';
import { percentile } from './timing';

type Find = typeof findRelatedIncidents;

const numbers = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const count = numbers[0] ?? 20;
const baselineCount = numbers[1] ?? 3;
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a database filled by npm run synth');

function summary(times: number[]): string {
  const s = [...times].sort((a, b) => a - b);
  return s.length === 0 ? 'n/a' : `n=${s.length} p50 ${percentile(s, 50).toFixed(1)} ms, p95 ${percentile(s, 95).toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const prisma = new PrismaService({ url: url!, poolMax: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 120_000 });
  try {
    const baseline: Find | null = process.env.BASELINE_ROOT
      ? // eslint-disable-next-line @typescript-eslint/no-require-imports
        (require(path.resolve(process.env.BASELINE_ROOT, 'libs/incidents/src/related-incidents.service.ts')) as { findRelatedIncidents: Find }).findRelatedIncidents
      : null;
    const picked = await prisma.$queryRaw<{ id: string; slug: string }[]>`
      SELECT "id"::text AS id, "slug" FROM "Incident" WHERE "status" = 'published' ORDER BY md5("slug") LIMIT ${count}`;
    const mine: number[] = [];
    const theirs: number[] = [];
    const time = async (find: Find, id: string, into: number[]) => {
      const t0 = performance.now();
      const related = await find(prisma, [id], 5);
      into.push(performance.now() - t0);
      return related.get(id)?.length ?? 0;
    };
    // One call each first, so both start with the same cache.
    await time(findRelatedIncidents, picked[0]!.id, []);
    for (const [k, { id, slug }] of picked.entries()) {
      const n = await time(findRelatedIncidents, id, mine);
      let line = `${slug}: this ${mine[mine.length - 1]!.toFixed(1)} ms (${n} related)`;
      if (baseline && k < baselineCount) {
        const m = await time(baseline, id, theirs);
        line += `, baseline ${theirs[theirs.length - 1]!.toFixed(1)} ms (${m} related)`;
      }
      console.log(line);
    }
    console.log(`this checkout: ${summary(mine)}`);
    if (baseline) console.log(`baseline:      ${summary(theirs)}`);
  } finally {
    await prisma.onModuleDestroy();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
