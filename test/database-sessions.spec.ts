import { Client } from 'pg';
import type { PrismaService } from '@hindsight/db';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

/**
 * The app's connections read "the first matches" of a sequential scan (a search's relevance
 * pool, a bounded count) from the start of the table every time. Postgres's default lets a
 * sequential scan of a table larger than a quarter of shared buffers start where the last one
 * stopped, which would change those matches from one call to the next on the same data.
 */
describe('database sessions', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  /** Whether the table is large enough for the server to synchronize scans of it at all. */
  let large = false;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: false });
    prisma = testPrisma(db.url);
    // Half again a quarter of the server's shared buffers (about 60 MB for the default 128 MB),
    // at most about 260 MB; a row takes about 430 bytes.
    const [{ bytes }] = await prisma.$queryRawUnsafe<{ bytes: number }[]>(
      `SELECT (setting::bigint * current_setting('block_size')::bigint)::float8 AS bytes FROM pg_settings WHERE name = 'shared_buffers'`,
    );
    const rows = Math.min(600_000, Math.max(140_000, Math.ceil((bytes / 4) * 1.5 / 430)));
    large = rows * 430 > bytes / 4;
    await prisma.$executeRawUnsafe(`CREATE TABLE big AS SELECT g AS id, repeat('x', 400) AS pad FROM generate_series(1, ${rows}) AS g`);
    await prisma.$executeRawUnsafe(`ANALYZE big`);
  }, 300_000);
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const firstRows = `SELECT id FROM big WHERE pad LIKE 'x%' LIMIT 3`;
  /** A scan that stops near the middle of the table, leaving its position behind. */
  const stopHalfway = `SELECT id FROM big WHERE id > 70000 LIMIT 1`;

  it('starts every sequential scan at the start of the table', async () => {
    const reads: number[][] = [];
    for (let k = 0; k < 2; k++) {
      await prisma.$queryRawUnsafe(stopHalfway);
      reads.push((await prisma.$queryRawUnsafe<{ id: number }[]>(firstRows)).map((r) => r.id));
    }
    expect(reads).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
  });

  it('never compiles a statement with JIT, whatever its cost estimate', async () => {
    const [{ jit }] = await prisma.$queryRawUnsafe<{ jit: string }[]>(`SHOW jit`);
    expect(jit).toBe('off');
    // A statement the planner costs far above jit_above_cost is still planned without JIT.
    const plan = (await prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN (COSTS ON) SELECT count(*) FROM big a, big b WHERE a.pad < b.pad`))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).not.toContain('JIT');
  });

  it('would not, with the server default (the control: this is what the setting prevents)', async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      // A server set up otherwise (scans never synchronized, or shared buffers too large for a test
      // table to pass a quarter of them) has nothing to show here.
      const setting = (await client.query<{ synchronize_seqscans: string }>('SHOW synchronize_seqscans')).rows[0]!.synchronize_seqscans;
      if (setting !== 'on' || !large) return;
      await client.query(stopHalfway);
      const ids = (await client.query<{ id: number }>(firstRows)).rows.map((r) => r.id);
      expect(ids[0]).toBeGreaterThan(1);
    } finally {
      await client.end();
    }
  });
});
