import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { PrismaService, projectRoot } from '@hindsight/db';
import { ModelRunsService, seedModels, type SeedModelsReport } from '@hindsight/model-runs';

/**
 * Stores the shipped model specs (`seeds/models/*.model.json`) and attaches each to its seeded
 * incident, through the running app's own services, as the seed command does. Runs are left to
 * the code under test.
 */
export async function attachSeedModels(app: INestApplication): Promise<SeedModelsReport> {
  return seedModels(app.get(PrismaService), app.get(ModelRunsService), path.join(projectRoot(), 'seeds'));
}
