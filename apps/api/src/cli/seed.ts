import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { loadConfig } from '../config/app-config';
import { withDatabase } from './cli-database';

/** `npm run seed`: adds the shipped incidents that are missing; existing ones are never overwritten. */
export async function main(): Promise<number> {
  const seeds = readSeedFiles(path.join(projectRoot(), 'seeds'));
  const { severityLevels } = loadConfig();
  const report = await withDatabase((prisma) => seedDatabase(prisma, seeds, { severityLevels }));
  for (const i of report.incidents) console.log(`${i.slug}: ${i.created ? 'created' : 'already present, left as it is'}`);
  return 0;
}
