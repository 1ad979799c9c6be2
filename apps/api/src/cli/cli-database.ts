import { Logger } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { openDatabase, prepareSchema } from '../bootstrap';
import { loadConfig } from '../config/app-config';
import { useAppLogger } from '../logging/app-logger';

/**
 * Opens the same database `npm start` uses (DATABASE_URL, or the embedded server in the data
 * folder), migrated, for a command-line tool; runs `work`, then closes everything.
 */
export async function withDatabase<T>(work: (prisma: PrismaService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  useAppLogger(config.log);
  const log = (line: string) => new Logger('cli').log(line);
  const database = await openDatabase(config, log);
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
