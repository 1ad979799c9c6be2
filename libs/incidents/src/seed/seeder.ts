import type { PrismaService } from '@hindsight/db';
import { checkSeverity, DEFAULT_SEVERITY_LEVELS } from '@hindsight/domain';
import { refreshSearchDocuments, writeIncidentDocument } from '../incident-repository';
import type { SeedSet } from './seed-files';

export interface SeedOptions {
  /** The installation's severity scale (`INCIDENT_SEVERITY_LEVELS`); the default scale when absent. */
  severityLevels?: readonly string[];
}

export interface SeedReport {
  patterns: number;
  incidents: { slug: string; created: boolean; changed: boolean }[];
}

/**
 * Writes the shipped patterns and incidents in one transaction: either all of them land or
 * none does. An incident that already exists is left exactly as it is: once loaded, the
 * database is the record (people edit it and track its actionables), so seeding again never
 * overwrites their work. Running it twice changes nothing.
 */
export async function seedDatabase(prisma: PrismaService, seeds: SeedSet, options: SeedOptions = {}): Promise<SeedReport> {
  // Checked before anything is written: a seed rated on another scale is refused, naming its file.
  const scale = options.severityLevels ?? DEFAULT_SEVERITY_LEVELS;
  for (const doc of seeds.incidents) checkSeverity(doc.severity, scale, `incidents/${doc.slug}.json.severity`);
  return prisma.$transaction(
    async (tx) => {
      const names = new Map((await tx.pattern.findMany({ select: { key: true, name: true } })).map((p) => [p.key, p.name]));
      const renamed: string[] = [];
      for (const p of seeds.patterns) {
        const stored = await tx.pattern.upsert({
          where: { key: p.key },
          create: { key: p.key, name: p.name, description: p.description },
          update: { name: p.name, description: p.description },
        });
        if (names.has(p.key) && names.get(p.key) !== p.name) renamed.push(stored.id);
      }
      // Pattern names are in the search document of every incident that has the pattern.
      if (renamed.length > 0) {
        const holders = await tx.incidentPattern.findMany({ where: { patternId: { in: renamed } }, select: { incidentId: true } });
        await refreshSearchDocuments(tx, holders.map((h) => h.incidentId));
      }
      const incidents: SeedReport['incidents'] = [];
      const existing = new Set(
        (await tx.incident.findMany({ where: { slug: { in: seeds.incidents.map((d) => d.slug) } }, select: { slug: true } })).map((i) => i.slug),
      );
      for (const doc of seeds.incidents) {
        if (existing.has(doc.slug)) {
          incidents.push({ slug: doc.slug, created: false, changed: false });
          continue;
        }
        const result = await writeIncidentDocument(tx, doc, { status: 'published' });
        incidents.push({ slug: doc.slug, created: result.created, changed: result.changed });
      }
      return { patterns: seeds.patterns.length, incidents };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}
