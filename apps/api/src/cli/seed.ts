import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { withDatabase } from './cli-database';

/** `npm run seed`: writes the shipped incidents again (idempotent: unchanged rows stay untouched). */
export async function main(): Promise<number> {
  const seeds = readSeedFiles(path.join(projectRoot(), 'seeds'));
  const report = await withDatabase((prisma) => seedDatabase(prisma, seeds));
  for (const i of report.incidents) console.log(`${i.slug}: ${i.created ? 'created' : i.changed ? 'updated' : 'unchanged'}`);
  return 0;
}
