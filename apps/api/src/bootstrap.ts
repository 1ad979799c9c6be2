import path from 'node:path';
import { Logger, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { migrate, migrationsDir, projectRoot, PrismaService, startEmbeddedPostgres } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { ModelRunsService, runDefaultScenarios, seedModels } from '@hindsight/model-runs';
import { AppModule } from './app.module';
import type { AppConfig } from './config/app-config';
import type { HttpDrain } from './lifecycle/http-drain';

export interface Database {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Who is asking, for the messages of other processes that find the embedded server in use. */
  role?: string;
  /**
   * Command-line tools: use the embedded server of a running app instead of refusing (both
   * cannot own the data folder), and start one only when none runs.
   */
  shareRunning?: boolean;
  /** With `shareRunning`: only use a running app's embedded server, never start one. */
  requireRunning?: boolean;
}

/** The configured server, or an embedded Postgres kept in the data folder when none is set. */
export async function openDatabase(config: AppConfig, log: (line: string) => void, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  const dataDir = path.join(config.dataDir, 'postgres');
  const server = await startEmbeddedPostgres({
    dataDir,
    database: 'hindsight',
    persistent: true,
    role: options.role ?? 'npm start',
    shareRunning: options.shareRunning ?? false,
    requireRunning: options.requireRunning ?? false,
    log,
  });
  const relative = path.relative(process.cwd(), server.dataDir);
  const shown = relative && !relative.startsWith('..') ? relative : server.dataDir;
  if (server.mode === 'started') {
    log(`DATABASE_URL is not set: ${server.created ? 'initialised and started' : 'started'} an embedded PostgreSQL in ${shown} on port ${server.port}`);
  }
  return { url: server.url, embedded: true, stop: () => server.stop() };
}

export async function prepareSchema(url: string, log: (line: string) => void): Promise<void> {
  const result = await migrate(url, migrationsDir(), log);
  log(`migrations: ${result.applied.length} applied, ${result.alreadyApplied.length} already in place`);
}

/**
 * Seeds the shipped incidents when the database has none (a fresh install), and attaches the
 * shipped models to their incidents (new model versions in seeds/models are picked up on start).
 */
export async function seedIfEmpty(app: INestApplication, log: (line: string) => void): Promise<void> {
  const prisma = app.get(PrismaService);
  const seedsDir = path.join(projectRoot(), 'seeds');
  if ((await prisma.incident.count()) === 0) {
    const report = await seedDatabase(prisma, readSeedFiles(seedsDir));
    log(`seeded ${report.incidents.length} incidents and ${report.patterns} patterns`);
  }
  const models = await seedModels(prisma, app.get(ModelRunsService), seedsDir);
  if (models.attached.length > 0) log(`models attached to ${models.attached.length} incidents`);
}

/**
 * Runs every scenario of every attached model once with default inputs (stored runs are reused),
 * after the server is listening, so the first page view has results without delaying start-up.
 */
export function runDefaultScenariosInBackground(app: INestApplication, log: (line: string) => void): void {
  const logger = new Logger('Models');
  runDefaultScenarios(app.get(PrismaService), app.get(ModelRunsService)).then(
    ({ runs, failed }) => {
      log(`model scenarios ready: ${runs} runs${failed.length > 0 ? `, ${failed.length} failed` : ''}`);
      for (const f of failed) logger.warn(f);
    },
    (error: Error) => logger.warn(`model scenarios not run: ${error.message}`),
  );
}

export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  options: { logger?: false | LogLevel[]; drain?: HttpDrain } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), {
    logger: options.logger ?? ['error', 'warn', 'log'],
    abortOnError: false,
  });
  // Before the load shedder: a stopping server answers every new request with 503 and
  // Connection: close (main.ts owns the signals and the order of the shutdown).
  if (options.drain) app.use(options.drain.middleware);
  app.use(loadShedder(config.http.maxInFlight));
  // Room for an imported document (JSON-escaped) or a long narrative; anything larger is refused
  // with 413 before it is parsed.
  app.useBodyParser('json', { limit: config.imports.maxBytes * 2 + 64 * 1024 });
  return app;
}

/**
 * Refuses work beyond a fixed number of requests in flight with a fast 503, instead of queueing
 * without bound until every request times out (the failure mode of three of the four seeds).
 */
function loadShedder(maxInFlight: number) {
  let inFlight = 0;
  const logger = new Logger('LoadShedder');
  return (req: Request, res: Response, next: NextFunction) => {
    if (inFlight >= maxInFlight && req.path !== '/health') {
      logger.warn(`shedding ${req.method} ${req.path}: ${inFlight} requests in flight`);
      res.status(503).setHeader('Retry-After', '1').json({ code: 'SERVICE_UNAVAILABLE', message: 'Server busy; retry shortly.' });
      return;
    }
    inFlight++;
    let done = false;
    const release = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('finish', release);
    res.on('close', release);
    next();
  };
}
