import './aliases';
import './heap-settings';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { createApp, openDatabase, prepareSchema, runDefaultScenariosInBackground, seedIfEmpty, type Database } from './bootstrap';
import { loadConfig, type AppConfig } from './config/app-config';
import { useAppLogger } from './logging/app-logger';
import { HttpDrain } from './lifecycle/http-drain';

/** A start-up or shutdown failure as one readable line, whatever was thrown. */
function reason(error: unknown): string {
  if (error instanceof Error && error.message) return error.message.replace(/\s+/g, ' ').trim();
  if (error instanceof Error) return error.name;
  if (error === undefined || error === null) return 'unknown error (nothing was thrown with it)';
  return String(error).replace(/\s+/g, ' ').trim();
}

async function main(): Promise<void> {
  const logger = new Logger('Hindsight');
  const log = (line: string) => logger.log(line);
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    logger.error(`could not start: ${reason(error)}`);
    process.exit(1);
  }
  // One logger for the whole process, from here on (JSON unless at a terminal).
  const pino = useAppLogger(config.log);
  const drain = new HttpDrain();
  let database: Database | undefined;
  let opening: Promise<Database> | undefined;
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  let server: Server | undefined;
  let stopping = false;

  // The order matters: first the HTTP server stops taking work and lets requests in flight
  // answer, then Nest's shutdown hooks run (model runs, the worker pool, the database pool),
  // and only then does the embedded Postgres stop.
  const stop = async (signal: string) => {
    if (stopping) {
      log(`${signal} again: no longer waiting for the ${drain.requestsInFlight} requests still running`);
      drain.hurry();
      return;
    }
    stopping = true;
    let code = 0;
    log(`${signal}: draining (no new connections; up to ${config.http.shutdownGraceMs} ms for ${drain.requestsInFlight} requests in flight)`);
    const { cut } = await drain.drain(server, config.http.shutdownGraceMs);
    if (cut > 0) logger.warn(`${cut} requests were still running after ${config.http.shutdownGraceMs} ms; their connections were closed`);
    try {
      await app?.close();
    } catch (error) {
      logger.error(`while closing the app: ${reason(error)}`);
      code = 1;
    }
    try {
      // A signal during start-up waits for the embedded server to be up, so it is not orphaned.
      database ??= await opening?.catch(() => undefined);
      await database?.stop();
    } catch (error) {
      logger.error(`while stopping the embedded PostgreSQL: ${reason(error)}`);
      code = 1;
    }
    log(`stopped${code === 0 ? '' : ' with errors'}`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    opening = openDatabase(config, log);
    database = await opening;
    if (stopping) return;
    await prepareSchema(database.url, log);
    app = await createApp(config, database.url, { log: pino, drain });
    if (config.seedOnStart) await seedIfEmpty(app, log);
    server = app.getHttpServer() as Server;
    // Bounded waits on the client side of every connection (the StackEgg lesson: idle
    // keep-alive connections are not free).
    server.requestTimeout = config.http.requestTimeoutMs;
    server.headersTimeout = Math.min(config.http.requestTimeoutMs, 60_000);
    server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
    if (stopping) return;
    await app.listen(config.port, config.host);
    if (config.seedOnStart) runDefaultScenariosInBackground(app, log);
    log(`Hindsight is ready on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${(server.address() as { port: number }).port} (GraphQL explorer at /graphql)`);
  } catch (error) {
    if (stopping) return;
    stopping = true;
    logger.error(`could not start: ${reason(error)}`);
    await app?.close().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  new Logger('Hindsight').error(`could not start: ${reason(error)}`);
  process.exit(1);
});
