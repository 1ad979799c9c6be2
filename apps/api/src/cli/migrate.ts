import { migrate, migrationsDir } from '@hindsight/db';
import { openDatabase } from '../bootstrap';
import { loadConfig } from '../config/app-config';
import { cliRole } from './cli-database';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded server). */
export async function main(): Promise<number> {
  const database = await openDatabase(loadConfig(), (line) => console.log(line), { role: cliRole(), shareRunning: true });
  try {
    const result = await migrate(database.url, migrationsDir(), (line) => console.log(line));
    console.log(`${result.applied.length} applied, ${result.alreadyApplied.length} already in place`);
    return 0;
  } finally {
    await database.stop();
  }
}
