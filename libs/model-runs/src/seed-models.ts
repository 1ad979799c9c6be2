import fs from 'node:fs';
import path from 'node:path';
import type { PrismaService } from '@hindsight/db';
import type { ModelRunsService } from './model-runs.service';

export interface SeedModelsReport {
  attached: string[];
  skipped: string[];
}

/**
 * Stores every `seeds/models/<incident-slug>.model.json` as a spec version and attaches it to
 * the incident of the same slug. Idempotent: a spec already stored with the same content is
 * reused; a changed spec under an unchanged version is refused (give it a new version).
 */
export async function seedModels(prisma: PrismaService, models: ModelRunsService, seedsDir: string): Promise<SeedModelsReport> {
  const dir = path.join(seedsDir, 'models');
  const report: SeedModelsReport = { attached: [], skipped: [] };
  if (!fs.existsSync(dir)) return report;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.model.json')).sort()) {
    const json: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const spec = await models.createSpec(json);
    const slug = file.replace(/\.model\.json$/, '');
    if (!(await prisma.incident.findUnique({ where: { slug }, select: { id: true } }))) {
      report.skipped.push(slug);
      continue;
    }
    const current = await prisma.incidentModel.findFirst({ where: { incident: { slug }, specId: spec.id } });
    if (!current) await models.attach(slug, spec.key, spec.version);
    report.attached.push(slug);
  }
  return report;
}

/**
 * Runs every scenario of every attached model once with default inputs, so pages show results
 * from the first visit. Already stored runs are reused, so this is cheap on a restart.
 */
export async function runDefaultScenarios(prisma: PrismaService, models: ModelRunsService): Promise<{ runs: number; failed: string[] }> {
  const bindings = await prisma.incidentModel.findMany({ include: { incident: { select: { slug: true, status: true } }, scenarios: { orderBy: { position: 'asc' } } } });
  let runs = 0;
  const failed: string[] = [];
  for (const binding of bindings) {
    if (binding.incident.status !== 'published') continue;
    for (const scenario of binding.scenarios) {
      const run = await models.run({ incidentSlug: binding.incident.slug, scenarioKey: scenario.key });
      runs++;
      if (run.status === 'failed') failed.push(`${binding.incident.slug}/${scenario.key}: ${run.error}`);
    }
  }
  return { runs, failed };
}
