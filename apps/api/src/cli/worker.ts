import { Logger } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { ModelRunQueue, ModelRunsService, runnerExecutor } from '@hindsight/model-runs';
import { openDatabase, prepareSchema } from '../bootstrap';
import { loadConfig } from '../config/app-config';
import { modelRunOptions } from '../models/models.module';
import { useAppLogger } from '../logging/app-logger';
import { cliRole } from './cli-database';

/**
 * `npm run worker`: executes model runs queued by an API started with MODEL_EXECUTION=queue.
 * Start as many as you like, on any machine that reaches the database; each takes MODEL_WORKERS
 * jobs at a time and renews the lease of each run it holds. A worker that dies mid-run leaves a
 * lease that runs out; any worker's (or the API's) sweep then queues the run again. SIGINT/SIGTERM
 * finish the runs in progress within MODEL_DRAIN_TIMEOUT_MS, release the rest, then exit.
 */
export async function main(): Promise<number> {
  const config = loadConfig();
  useAppLogger(config.log);
  const logger = new Logger('worker');
  // Without DATABASE_URL the worker joins the running app's embedded server: it has no queue of
  // its own to serve, so it never starts one.
  const database = await openDatabase(config, (line) => logger.log(line), { role: cliRole(), shareRunning: true, requireRunning: true });
  await prepareSchema(database.url, (line) => logger.log(line));
  const prisma = new PrismaService({ url: database.url, ...config.db });
  const pool = runnerExecutor(config.models);
  const models = new ModelRunsService(prisma, pool, modelRunOptions(config, 'queue'));
  const queue = new ModelRunQueue(database.url);
  models.enqueue = (runId, attempt) => queue.enqueue(runId, attempt);
  await queue.work(async (runId) => {
    const run = await models.execute(runId);
    logger.log(`run ${runId} (${run.scenarioKey}): ${run.status}${run.durationMs !== null ? ` in ${run.durationMs} ms` : ''}`);
  }, config.models.workers);
  models.startSweeping();
  logger.log(`waiting for model runs (${config.models.workers} at a time)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.log('stopping: finishing runs in progress');
  const { finished, interrupted } = await models.drain(config.models.drainMs);
  logger.log(`stopped: ${finished} runs finished, ${interrupted} released`);
  await queue.stop();
  await pool.close();
  await prisma.onModuleDestroy();
  return 0;
}
