import path from 'node:path';
import { Logger, type INestApplication, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import compression from 'compression';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { migrate, migrationsDir, projectRoot, PrismaService, startEmbeddedPostgres } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { ModelRunsService, runDefaultScenarios, seedModels } from '@hindsight/model-runs';
import { AppModule } from './app.module';
import type { AppConfig, LogLevelName } from './config/app-config';
import { APP_CONFIG } from './config/app-config.token';
import { createPinoLogger, PinoNestLogger } from './logging/app-logger';
import { requestLogger } from './logging/request-logger';
import { httpMetrics } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';
import type { HttpDrain } from './lifecycle/http-drain';
import { PenaltyBox, penaltyBoxMiddleware } from './limits/penalty-box';
import { configureGraphqlTransport } from './transport/graphql-transport';

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
    const report = await seedDatabase(prisma, readSeedFiles(seedsDir), { severityLevels: app.get<AppConfig>(APP_CONFIG).severityLevels });
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

export interface CreateAppOptions {
  /** Nest-style levels to keep (`['error', 'warn']`), or false for none; the config's LOG_LEVEL otherwise. */
  logger?: false | LogLevel[];
  /** The process's pino logger, when the caller made one already (main does, to log start-up). */
  log?: PinoLogger;
  /** Answers new requests with 503 and Connection: close while the server stops (main.ts owns the signals). */
  drain?: HttpDrain;
}

export async function createApp(config: AppConfig, databaseUrl: string, options: CreateAppOptions = {}): Promise<INestApplication> {
  const log = options.log ?? createPinoLogger({ level: pinoLevel(options.logger) ?? config.log.level, format: config.log.format });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), {
    logger: new PinoNestLogger(log),
    abortOnError: false,
    // Kept beside the parsed body, so tracker webhooks can check their signatures over the exact bytes.
    rawBody: true,
  });
  // Nothing tells a client which framework answers.
  app.disable('x-powered-by');
  // Express would hash every body it sends into an ETag, GraphQL answers included, which are
  // no-store (and mostly POSTs): work for nothing on every request. What clients revalidate
  // (pages, exports, assets) is sent with its own ETag (common/revalidated.ts).
  app.set('etag', false);
  const metrics = app.get(MetricsService);
  app.use(requestLogger(log));
  app.use(httpMetrics(metrics));
  // Before the load shedder: a stopping server answers every new request with 503 and
  // Connection: close (main.ts owns the signals and the order of the shutdown).
  if (options.drain) app.use(options.drain.middleware);
  app.use(loadShedder(config.http.maxInFlight, { shed: () => metrics.shed.inc(), inFlight: (n) => metrics.inFlight.set(n) }));
  // A client blocked for repeated refusals is answered 429 before its body is read or parsed.
  app.use(penaltyBoxMiddleware(app.get(PenaltyBox)));
  // Pages, assets (graphiql.js is 3.5 MB) and GraphQL answers, for clients that ask for it.
  app.use(compression());
  // CORS (off unless CORS_ALLOWED_ORIGINS), preflights, and which GET requests may run queries.
  configureGraphqlTransport(app, config.graphql.corsOrigins);
  // Room for an imported document (JSON-escaped) or a long narrative; anything larger is refused
  // with 413 before it is parsed.
  app.useBodyParser('json', { limit: config.imports.maxBytes * 2 + 64 * 1024 });
  return app;
}

/** The most verbose of Nest's level names, as a pino level. */
function pinoLevel(levels: false | LogLevel[] | undefined): LogLevelName | undefined {
  if (levels === undefined) return undefined;
  if (levels === false || levels.length === 0) return 'silent';
  const order: [LogLevel, LogLevelName][] = [['verbose', 'trace'], ['debug', 'debug'], ['log', 'info'], ['warn', 'warn'], ['error', 'error'], ['fatal', 'fatal']];
  return order.find(([nest]) => levels.includes(nest))?.[1] ?? 'silent';
}

/**
 * Refuses work beyond a fixed number of requests in flight with a fast 503, instead of queueing
 * without bound until every request times out (the failure mode of three of the four seeds).
 */
function loadShedder(maxInFlight: number, observe: { shed: () => void; inFlight: (count: number) => void }) {
  let inFlight = 0;
  const logger = new Logger('LoadShedder');
  return (req: Request, res: Response, next: NextFunction) => {
    // Probes and metrics are answered even when busy: they are how an operator sees it.
    if (inFlight >= maxInFlight && !/^\/(health|metrics)(\/|$)/.test(req.path)) {
      observe.shed();
      logger.warn(`shedding ${req.method} ${req.path}: ${inFlight} requests in flight`);
      res.status(503).setHeader('Retry-After', '1').json({ code: 'SERVICE_UNAVAILABLE', message: 'Server busy; retry shortly.' });
      return;
    }
    observe.inFlight(++inFlight);
    let done = false;
    const release = () => {
      if (!done) {
        done = true;
        observe.inFlight(--inFlight);
      }
    };
    res.on('finish', release);
    res.on('close', release);
    next();
  };
}
