import type { PrismaService } from '@hindsight/db';
import { writeIncidentDocument } from '../incident-writer';
import type { SeedSet } from './seed-files';

export interface SeedReport {
  patterns: number;
  incidents: { slug: string; created: boolean; changed: boolean }[];
}

/**
 * Writes the shipped patterns and incidents in one transaction: either all of them land or
 * none does. Running it again changes nothing (stable keys, upserts, unchanged rows untouched).
 */
export async function seedDatabase(prisma: PrismaService, seeds: SeedSet): Promise<SeedReport> {
  return prisma.$transaction(
    async (tx) => {
      for (const p of seeds.patterns) {
        await tx.pattern.upsert({
          where: { key: p.key },
          create: { key: p.key, name: p.name, description: p.description },
          update: { name: p.name, description: p.description },
        });
      }
      const incidents: SeedReport['incidents'] = [];
      for (const doc of seeds.incidents) {
        const result = await writeIncidentDocument(tx, doc, { status: 'published' });
        incidents.push({ slug: doc.slug, created: result.created, changed: result.changed });
      }
      return { patterns: seeds.patterns.length, incidents };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}
