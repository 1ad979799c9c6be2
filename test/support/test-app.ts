import type { INestApplication } from '@nestjs/common';
import type { Logger as PinoLogger } from 'pino';
import request from 'supertest';
import { createApp } from '../../apps/api/src/bootstrap';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { createTestDatabase, type TestDatabase } from './test-db';

export interface TestApp {
  app: INestApplication;
  db: TestDatabase;
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GqlResponse<T>>;
  close(): Promise<void>;
}

export interface GqlResponse<T> {
  data: T;
  errors?: { message: string; extensions?: { code?: string; [k: string]: unknown } }[];
}

/**
 * The real application, on a fresh migrated (and by default seeded) database. Waiting for a pooled
 * connection may take 30 s rather than the production 5 s: the suites share two cores with
 * Postgres and a headless browser, and what they assert is behaviour, never latency.
 */
export async function startTestApp(options: { seed?: boolean; env?: Record<string, string>; log?: PinoLogger } = {}): Promise<TestApp> {
  const db = await createTestDatabase({ seed: options.seed ?? true });
  // An hour's lease: the periodic model-run sweep (every half lease) stays out of suites that count
  // SQL statements; suites about leases set their own.
  // Suites send hundreds of writes from one token and one address: the per-client rate limits
  // are off unless a suite sets them (test/graphql-limits.spec.ts does).
  const rateLimitsOff = {
    RATE_LIMIT_WRITES_PER_TOKEN: '0',
    RATE_LIMIT_WRITES_PER_ADDRESS: '0',
    RATE_LIMIT_MODEL_RUNS_PER_TOKEN: '0',
    RATE_LIMIT_MODEL_RUNS_PER_ADDRESS: '0',
    RATE_LIMIT_REFUSALS_PER_CLIENT: '0',
  };
  const config = loadConfig({ DB_CONNECT_TIMEOUT_MS: '30000', MODEL_RUN_LEASE_MS: '3600000', ...rateLimitsOff, ...options.env, DATABASE_URL: db.url });
  let app: INestApplication;
  try {
    app = await createApp(config, db.url, options.log ? { log: options.log } : { logger: ['error', 'warn'] });
    await app.init();
  } catch (error) {
    await db.drop();
    throw error;
  }
  return {
    app,
    db,
    async gql<T>(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
      const res = await request(app.getHttpServer()).post('/graphql').set(headers).send({ query, variables });
      return res.body as GqlResponse<T>;
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
