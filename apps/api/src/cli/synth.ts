import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { loadSyntheticCorpus, readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { loadConfig } from '../config/app-config';
import { withDatabase } from './cli-database';

const USAGE = 'usage: npm run synth -- --incidents <n> [--seed <n>] [--batch <n>]';

function intArg(argv: string[], name: string, fallback: number | null, min: number, max: number): number {
  const i = argv.indexOf(`--${name}`);
  if (i === -1) {
    if (fallback === null) throw new Error(`--${name} is required\n${USAGE}`);
    return fallback;
  }
  const raw = argv[i + 1];
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name}: expected a whole number from ${min} to ${max}; got ${raw ?? 'nothing'}`);
  return value;
}

/**
 * `npm run synth -- --incidents 100000 [--seed 1]`: adds a reproducible synthetic corpus of
 * published incidents (slugs `synth-s<seed>-<n>`) to the database, beside the shipped ones. The
 * same seed gives the same documents; a stopped run resumes where it left off.
 */
export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    console.log(USAGE);
    return 0;
  }
  const known = new Set(['--incidents', '--seed', '--batch']);
  const unknown = argv.filter((a, i) => a.startsWith('--') && !known.has(a) && !known.has(argv[i - 1] ?? ''));
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(', ')}\n${USAGE}`);
  const incidents = intArg(argv, 'incidents', null, 1, 10_000_000);
  const seed = intArg(argv, 'seed', 1, 0, 2 ** 31 - 1);
  const batchSize = intArg(argv, 'batch', 250, 1, 5_000);
  // A batch is a few large statements; on a busy machine they may take longer than a request's
  // statement limit. DB_STATEMENT_TIMEOUT_MS still wins when set.
  process.env.DB_STATEMENT_TIMEOUT_MS ??= '300000';
  const seeds = readSeedFiles(path.join(projectRoot(), 'seeds'));
  const { severityLevels } = loadConfig();
  return withDatabase(async (prisma) => {
    await seedDatabase(prisma, seeds, { severityLevels });
    let last = 0;
    const result = await loadSyntheticCorpus(prisma, {
      incidents,
      seed,
      batchSize,
      severityLevels,
      onProgress: ({ stored, total, skipped, elapsedMs }) => {
        const done = stored + skipped;
        if (done < total && Date.now() - last < 2_000) return;
        last = Date.now();
        const rate = stored / Math.max(elapsedMs / 1000, 0.001);
        const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
        process.stderr.write(`synth: ${done}/${total} incidents (${skipped} already present), ${rate.toFixed(0)}/s, about ${eta}s left\n`);
      },
    });
    console.log(`synth: stored ${result.stored} incidents with seed ${seed}; ${result.skipped} were already present`);
    return 0;
  });
}
