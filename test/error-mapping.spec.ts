import { Client } from 'pg';
import { PrismaService } from '@hindsight/db';
import { ImportError } from '@hindsight/postmortem-parser';
import { ModelErrorCode, ModelParameterError, ModelRunError, ModelSpecError } from '@hindsight/models';
import { toAppError } from '../apps/api/src/common/errors/app-error.mapping';
import { createTestDatabase, type TestDatabase } from './support/test-db';

/** What a real driver or Prisma throws for `work`, against a real Postgres. */
async function thrownBy(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

describe('toAppError: every error family, mapped once', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('maps database timeouts, from Prisma or from pg, to SERVICE_UNAVAILABLE / DATABASE_TIMEOUT', async () => {
    const prisma = new PrismaService({ url: db.url, poolMax: 1, statementTimeoutMs: 100, connectTimeoutMs: 5_000 });
    const pg = new Client({ connectionString: db.url, query_timeout: 100 });
    await pg.connect();
    try {
      const statementTimeout = await thrownBy(() => prisma.$queryRaw`SELECT pg_sleep(2)`);
      const readTimeout = await thrownBy(() => pg.query('SELECT pg_sleep(2)'));
      expect((readTimeout as Error).message).toBe('Query read timeout');
      for (const error of [statementTimeout, readTimeout]) {
        expect(toAppError(error)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'DATABASE_TIMEOUT', retryAfterSeconds: 1 } });
      }
    } finally {
      await pg.end().catch(() => undefined);
      await prisma.onModuleDestroy();
    }
  });

  it('maps an unreachable database to SERVICE_UNAVAILABLE / DATABASE_UNAVAILABLE', async () => {
    const prisma = new PrismaService({ url: 'postgresql://postgres@127.0.0.1:1/none', poolMax: 1, statementTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
    try {
      const error = await thrownBy(() => prisma.$queryRaw`SELECT 1`);
      expect(toAppError(error)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'DATABASE_UNAVAILABLE' } });
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('maps values Postgres refuses to BAD_USER_INPUT and a lost unique race to CONFLICT', async () => {
    const prisma = new PrismaService({ url: db.url, poolMax: 1, statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
    try {
      const nul = await thrownBy(() => prisma.$queryRaw`SELECT ${'a\u0000b'}::text`);
      expect(toAppError(nul)).toMatchObject({ code: 'BAD_USER_INPUT', details: { reason: 'SQLSTATE_22021' } });
      await prisma.pattern.create({ data: { key: 'dup', name: 'Dup', description: 'x' } });
      const duplicate = await thrownBy(() => prisma.pattern.create({ data: { key: 'dup', name: 'Dup', description: 'x' } }));
      expect(toAppError(duplicate)).toMatchObject({ code: 'CONFLICT' });
      const missing = await thrownBy(() => prisma.$queryRaw`SELECT * FROM "NoSuchTable"`);
      expect(toAppError(missing)).toBeNull();
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('maps the importer and model engine errors with their fields', () => {
    expect(toAppError(new ImportError('TOO_LARGE', 'The document is 9 bytes; the limit is 8 bytes.', { byteLength: 9, maxBytes: 8 }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'document', reason: 'TOO_LARGE', limit: 8 },
    });
    expect(toAppError(new ModelSpecError([{ path: '$', reason: 'expected an object' }, { path: 'stations[0].slots', reason: 'expected a positive integer' }]))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'spec', problems: [{ field: 'spec' }, { field: 'spec.stations[0].slots' }] },
    });
    expect(toAppError(new ModelParameterError('keepAliveSeconds', 'parameters.keepAliveSeconds', 'must be at most 600', { min: 0, max: 600, unit: 's' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'parameters.keepAliveSeconds', parameter: 'keepAliveSeconds', allowed: { min: 0, max: 600, unit: 's' } },
    });
    expect(toAppError(new ModelRunError(ModelErrorCode.QueueFull, 'full'))).toMatchObject({ code: 'TOO_MANY_REQUESTS', details: { retryAfterSeconds: 1 } });
    expect(toAppError(new ModelRunError(ModelErrorCode.WorkerFailed, 'crashed'))).toBeNull();
    expect(toAppError(new TypeError('x is undefined'))).toBeNull();
  });
});
