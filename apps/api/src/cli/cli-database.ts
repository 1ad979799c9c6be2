import { Logger } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { openDatabase, prepareSchema } from '../bootstrap';
import { loadConfig } from '../config/app-config';
import { useAppLogger } from '../logging/app-logger';

/** How a command-line tool names itself to other processes (`npm run token` sets the event). */
export function cliRole(): string {
  return `npm run ${process.env.npm_lifecycle_event ?? "cli"}`;
}

/**
 * Opens the same database `npm start` uses (DATABASE_URL, or the embedded server in the data
 * folder: the running app's when there is one, else one of its own), migrated, for a
 * command-line tool; runs `work`, then closes what it opened.
 */
export async function withDatabase<T>(work: (prisma: PrismaService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  useAppLogger(config.log);
  const log = (line: string) => new Logger('cli').log(line);
  const database = await openDatabase(config, log, { role: cliRole(), shareRunning: true });
  try {
    await prepareSchema(database.url, () => undefined);
    const prisma = new PrismaService({ url: database.url, ...config.db });
    try {
      return await work(prisma);
    } finally {
      await prisma.onModuleDestroy();
    }
  } finally {
    await database.stop();
  }
}
