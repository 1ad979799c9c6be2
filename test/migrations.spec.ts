import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { checksumOf, migrate, MigrationError, migrationsDir, readMigrations } from '@hindsight/db';
import { createTestDatabase, type TestDatabase } from './support/test-db';

/** A copy of the real migrations folder that a test may tamper with. */
function copyMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-migrations-'));
  fs.cpSync(migrationsDir(), dir, { recursive: true });
  return dir;
}

async function rows(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

describe('migration runner', () => {
  let db: TestDatabase;
  let dir: string;
  beforeEach(async () => {
    db = await createTestDatabase({ migrate: false });
    dir = copyMigrations();
  });
  afterEach(async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("applies every migration once and records it the way Prisma Migrate does", async () => {
    const first = await migrate(db.url, dir);
    expect(first.applied).toEqual(readMigrations(dir).map((m) => m.name));
    const again = await migrate(db.url, dir);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(first.applied);
    const recorded = await rows(db.url, 'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name');
    expect(recorded).toHaveLength(first.applied.length);
    const init = readMigrations(dir)[0]!;
    expect(recorded[0]).toMatchObject({ migration_name: init.name, checksum: checksumOf(fs.readFileSync(path.join(dir, init.name, 'migration.sql'))), applied_steps_count: 1, rolled_back_at: null });
    expect(recorded[0]!.finished_at).toBeInstanceOf(Date);
    // Prisma's own column set, so `prisma migrate status` can read it.
    const cols = await rows(db.url, `SELECT column_name FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`);
    expect(cols.map((c) => c.column_name)).toEqual(['id', 'checksum', 'finished_at', 'migration_name', 'logs', 'rolled_back_at', 'started_at', 'applied_steps_count']);
  });

  it('refuses to run when an applied migration was edited afterwards', async () => {
    await migrate(db.url, dir);
    const first = readMigrations(dir)[0]!;
    fs.appendFileSync(path.join(dir, first.name, 'migration.sql'), '\n-- edited after the fact\n');
    await expect(migrate(db.url, dir)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
    await expect(migrate(db.url, dir)).rejects.toThrow(/modified after it was applied/);
  });

  it('rolls back a failing migration completely and records nothing for it', async () => {
    await migrate(db.url, dir);
    const name = '29991231000000_broken';
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, 'migration.sql'), 'CREATE TABLE "Half" (id int);\nSELECT * FROM "no_such_table";\n');
    const error = await migrate(db.url, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).code).toBe('APPLY_FAILED');
    expect(await rows(db.url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'Half'`)).toHaveLength(0);
    expect(await rows(db.url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '${name}'`)).toHaveLength(0);
  });

  it('refuses a database that has a migration this folder does not know', async () => {
    await migrate(db.url, dir);
    await rows(db.url, `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ('00000000-0000-0000-0000-000000000001', 'x', '29990101000000_from_elsewhere', now(), 1)`);
    await expect(migrate(db.url, dir)).rejects.toMatchObject({ code: 'MISSING_MIGRATION' });
  });

  it('serialises concurrent runners: each migration is applied exactly once', async () => {
    const results = await Promise.all([migrate(db.url, dir), migrate(db.url, dir), migrate(db.url, dir)]);
    const applied = results.flatMap((r) => r.applied);
    expect(applied.sort()).toEqual(readMigrations(dir).map((m) => m.name));
    expect(await rows(db.url, 'SELECT 1 FROM "_prisma_migrations"')).toHaveLength(applied.length);
  });
});
