import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { migrate, migrationsDir, PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';

/**
 * Each suite gets a database of its own on the server named by DATABASE_URL (the machine's, or
 * the embedded one `npm test` starts), so suites run in parallel without seeing each other.
 */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function serverUrl(): URL {
  const raw = process.env.DATABASE_URL;
  if (!raw) throw new Error('DATABASE_URL is not set: run the tests with `npm test`, which starts an embedded Postgres when needed.');
  return new URL(raw);
}

export async function createTestDatabase(options: { migrate?: boolean; seed?: boolean } = {}): Promise<TestDatabase> {
  const admin = serverUrl();
  const name = `hindsight_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(admin.toString());
  url.pathname = `/${name}`;
  const db: TestDatabase = {
    url: url.toString(),
    name,
    async drop() {
      const c = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 10_000 });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
  if (options.migrate !== false) await migrate(db.url, migrationsDir());
  if (options.seed) {
    const prisma = testPrisma(db.url);
    try {
      await seedDatabase(prisma, readSeedFiles(path.join(projectRoot(), 'seeds')));
    } finally {
      await prisma.onModuleDestroy();
    }
  }
  return db;
}

export function testPrisma(url: string): PrismaService {
  return new PrismaService({ url, poolMax: 5, statementTimeoutMs: 20_000, connectTimeoutMs: 10_000 });
}
