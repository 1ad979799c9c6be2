import type { PrismaService } from '@hindsight/db';
import { writeIncidents } from '../incident-repository';
import { syntheticIncident, syntheticSlug, type SyntheticIncident } from './synthetic-corpus';

export interface LoadCorpusOptions {
  incidents: number;
  seed: number;
  /** Incidents per transaction. */
  batchSize: number;
  /** The severity scale incidents are drawn on (see `syntheticIncident`). */
  severityLevels?: readonly string[];
  onProgress?: (progress: { stored: number; total: number; skipped: number; elapsedMs: number }) => void;
}

/**
 * Stores incidents 0 … incidents-1 of the synthetic corpus with this seed, one transaction per
 * batch. Incidents already present (an earlier run that was stopped) are skipped, so running it
 * again resumes; the patterns must be stored first (the shipped seeds hold them).
 */
export async function loadSyntheticCorpus(prisma: PrismaService, options: LoadCorpusOptions): Promise<{ stored: number; skipped: number }> {
  const patternKeys = (await prisma.pattern.findMany({ select: { key: true }, orderBy: { key: 'asc' } })).map((p) => p.key);
  if (patternKeys.length === 0) throw new Error('no patterns in the database: run `npm run seed` (or start the app once) first');
  const prefix = `synth-s${options.seed}-`;
  const present = new Set(
    (await prisma.$queryRaw<{ slug: string }[]>`SELECT "slug" FROM "Incident" WHERE "slug" LIKE ${`${prefix}%`}`).map((r) => r.slug),
  );
  const started = Date.now();
  let stored = 0;
  let skipped = 0;
  // Two batches in flight: one is generated while the database stores the other.
  const inFlight = new Set<Promise<void>>();
  for (let from = 0; from < options.incidents; from += options.batchSize) {
    const batch: SyntheticIncident[] = [];
    for (let n = from; n < Math.min(options.incidents, from + options.batchSize); n++) {
      if (present.has(syntheticSlug(options.seed, n))) skipped++;
      else batch.push(syntheticIncident(options.seed, n, patternKeys, { severityLevels: options.severityLevels }));
    }
    if (batch.length > 0) {
      const write: Promise<void> = prisma
        .$transaction(
          async (tx) => {
            // New incidents, diffed against the empty record: the one writer's multi-row INSERTs.
            await writeIncidents(tx, batch.map(({ doc }) => ({ before: null, after: { doc, status: 'published' } })));
          },
          { timeout: 300_000, maxWait: 30_000 },
        )
        .then(() => {
          stored += batch.length;
          inFlight.delete(write);
          options.onProgress?.({ stored, total: options.incidents, skipped, elapsedMs: Date.now() - started });
        });
      inFlight.add(write);
      if (inFlight.size >= 2) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
  options.onProgress?.({ stored, total: options.incidents, skipped, elapsedMs: Date.now() - started });
  await prisma.$executeRawUnsafe('ANALYZE');
  return { stored, skipped };
}
