import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type PoolClient } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface DatabaseOptions {
  url: string;
  /** Connections in the pool: a bound on concurrent queries, excess callers wait. */
  poolMax: number;
  /** Server-side limit for one statement; a runaway query is cancelled, not waited on. */
  statementTimeoutMs: number;
  /** How long a caller waits for a free connection before failing. */
  connectTimeoutMs: number;
}

/**
 * The one Prisma client of the process. It owns the pg pool, so every query has a timeout and the
 * number of concurrent connections is bounded. It also counts SQL statements, which the tests
 * use to prove nested GraphQL fields are batched.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  readonly pool: Pool;
  /** For clients that keep their own connections to the same database (the job queue). */
  readonly connectionString: string;
  private statements = 0;

  constructor(options: DatabaseOptions) {
    const pool = new Pool({
      connectionString: options.url,
      max: options.poolMax,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      query_timeout: options.statementTimeoutMs + 1_000,
      idle_in_transaction_session_timeout: options.statementTimeoutMs * 2,
      idleTimeoutMillis: 30_000,
      application_name: 'hindsight',
      // A sequential scan of a large table otherwise starts where the last one (of any session)
      // stopped, so "the first matches" of a search's relevance pool, or of a bounded count,
      // would change from one call to the next on the same data. JIT compilation is off: the
      // app's statements are short, and a cost estimate past `jit_above_cost` (a typo lookup of
      // ten words, whose real work is 2 ms) made the server spend 20–75 ms compiling it.
      options: '-c synchronize_seqscans=off -c jit=off',
    });
    pool.on('connect', (client: PoolClient) => countStatements(client, () => this.statements++));
    // An idle client losing its server must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
    this.connectionString = options.url;
  }

  /** SQL statements sent since the process started (including BEGIN/COMMIT). */
  get statementCount(): number {
    return this.statements;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end().catch(() => undefined);
  }
}

function countStatements(client: PoolClient, onStatement: () => void): void {
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    onStatement();
    return original(...args);
  };
}
