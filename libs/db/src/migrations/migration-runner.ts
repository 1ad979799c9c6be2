import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/**
 * Applies `prisma/migrations/<name>/migration.sql` in name order and keeps Prisma Migrate's own
 * bookkeeping table (`_prisma_migrations`, same columns, same SHA-256 checksum of the file), so
 * `prisma migrate status/deploy` on a machine with Prisma's engine agrees with this runner.
 *
 * Unlike Prisma, each migration runs in a transaction (Postgres DDL is transactional), so a
 * failed migration leaves nothing half-applied. Concurrent runners serialise on an advisory lock.
 */

export class MigrationError extends Error {
  constructor(
    readonly code: 'CHECKSUM_MISMATCH' | 'FAILED_MIGRATION' | 'MISSING_MIGRATION' | 'APPLY_FAILED',
    message: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

const LOCK_KEY = 72707369; // arbitrary constant shared by every runner of this app

const BOOKKEEPING_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export function checksumOf(sql: string | Buffer): string {
  return createHash('sha256').update(sql).digest('hex');
}

export function readMigrations(migrationsDir: string): MigrationFile[] {
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'));
      return { name, sql: bytes.toString('utf8'), checksum: checksumOf(bytes) };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrate(
  connectionString: string,
  migrationsDir: string,
  log: (line: string) => void = () => undefined,
): Promise<MigrateResult> {
  const migrations = readMigrations(migrationsDir);
  const client = new Client({ connectionString, connectionTimeoutMillis: 10_000, statement_timeout: 120_000 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(BOOKKEEPING_DDL);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL ORDER BY started_at',
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row]));
    const known = new Set(migrations.map((m) => m.name));
    for (const row of rows) {
      if (row.finished_at === null) {
        throw new MigrationError(
          'FAILED_MIGRATION',
          `Migration ${row.migration_name} started but never finished; resolve it before migrating again.`,
        );
      }
      if (!known.has(row.migration_name)) {
        throw new MigrationError(
          'MISSING_MIGRATION',
          `Migration ${row.migration_name} is applied to the database but missing from ${path.basename(migrationsDir)}/.`,
        );
      }
    }
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(
            'CHECKSUM_MISMATCH',
            `Migration ${migration.name} was modified after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${migration.checksum.slice(0, 12)}… on disk). Never edit an applied migration; add a new one.`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await applyOne(client, migration);
      log(`applied migration ${migration.name}`);
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: Client, migration: MigrationFile): Promise<void> {
  try {
    await client.query('BEGIN');
    const id = randomUUID();
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationError('APPLY_FAILED', `Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
  }
}

/** Anything that runs a query: a pg Pool, Client or PoolClient. */
export interface Queryable {
  query<R extends object>(sql: string): Promise<{ rows: R[] }>;
}

export interface MigrationStatus {
  /** In the folder, not (or not successfully) applied to the database. */
  pending: string[];
  /** Started but never finished: the database needs a person before the app can trust it. */
  failed: string[];
}

/**
 * Compares the migrations folder with `_prisma_migrations` without changing anything (for
 * readiness checks). A database that has never been migrated has every migration pending.
 */
export async function migrationStatus(db: Queryable, migrations: readonly Pick<MigrationFile, 'name'>[]): Promise<MigrationStatus> {
  const { rows: exists } = await db.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  if (!exists[0]?.present) return { pending: migrations.map((m) => m.name), failed: [] };
  const { rows } = await db.query<Pick<AppliedRow, 'migration_name' | 'finished_at'>>(
    'SELECT migration_name, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  );
  const finished = new Set(rows.filter((r) => r.finished_at !== null).map((r) => r.migration_name));
  return {
    pending: migrations.map((m) => m.name).filter((name) => !finished.has(name)),
    failed: rows.filter((r) => r.finished_at === null).map((r) => r.migration_name),
  };
}
