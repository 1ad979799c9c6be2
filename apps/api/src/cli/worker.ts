import { Logger } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { ModelRunQueue, ModelRunsService, runnerExecutor } from '@hindsight/model-runs';
import { openDatabase, prepareSchema } from '../bootstrap';
import { loadConfig } from '../config/app-config';
import { cliRole } from './cli-database';

/**
 * `npm run worker`: executes model runs queued by an API started with MODEL_EXECUTION=queue.
 * Start as many as you like, on any machine that reaches the database; each takes MODEL_WORKERS
 * jobs at a time. SIGINT/SIGTERM finish the runs in progress, then exit.
 */
export async function main(): Promise<number> {
  const config = loadConfig();
  const logger = new Logger('worker');
  // Without DATABASE_URL the worker joins the running app's embedded server: it has no queue of
  // its own to serve, so it never starts one.
  const database = await openDatabase(config, (line) => logger.log(line), { role: cliRole(), shareRunning: true, requireRunning: true });
  await prepareSchema(database.url, (line) => logger.log(line));
  const prisma = new PrismaService({ url: database.url, ...config.db });
  const pool = runnerExecutor(config.models);
  const models = new ModelRunsService(prisma, pool, { execution: 'inline', defaultSeed: config.models.defaultSeed });
  const queue = new ModelRunQueue(database.url);
  await queue.work(async (runId) => {
    const run = await models.execute(runId);
    logger.log(`run ${runId} (${run.scenarioKey}): ${run.status}${run.durationMs !== null ? ` in ${run.durationMs} ms` : ''}`);
  }, config.models.workers);
  logger.log(`waiting for model runs (${config.models.workers} at a time)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.log('stopping: finishing runs in progress');
  await queue.stop();
  await pool.close();
  await prisma.onModuleDestroy();
  return 0;
}
