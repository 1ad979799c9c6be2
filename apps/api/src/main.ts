import './aliases';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { createApp, openDatabase, prepareSchema, runDefaultScenariosInBackground, seedIfEmpty } from './bootstrap';
import { loadConfig } from './config/app-config';
import { useAppLogger } from './logging/app-logger';

async function main(): Promise<void> {
  const config = loadConfig();
  // One logger for the whole process, from the first line on (JSON unless at a terminal).
  const pino = useAppLogger(config.log);
  const logger = new Logger('Hindsight');
  const log = (line: string) => logger.log(line);
  const database = await openDatabase(config, log);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    await app?.close().catch((e: Error) => logger.error(e.message));
    await database.stop().catch((e: Error) => logger.error(e.message));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  try {
    await prepareSchema(database.url, log);
    app = await createApp(config, database.url, { log: pino });
    if (config.seedOnStart) await seedIfEmpty(app, log);
    const server = app.getHttpServer() as Server;
    // Bounded waits on the client side of every connection (the StackEgg lesson: idle
    // keep-alive connections are not free).
    server.requestTimeout = config.http.requestTimeoutMs;
    server.headersTimeout = Math.min(config.http.requestTimeoutMs, 60_000);
    server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
    await app.listen(config.port, config.host);
    if (config.seedOnStart) runDefaultScenariosInBackground(app, log);
    log(`Hindsight is ready on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${(server.address() as { port: number }).port} (GraphQL explorer at /graphql)`);
  } catch (error) {
    logger.error((error as Error).message);
    await app?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
    process.exit(1);
  }
}

main().catch((error: Error) => {
  new Logger('Hindsight').error(`could not start: ${error.message}`);
  process.exit(1);
});
