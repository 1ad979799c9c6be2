import path from 'node:path';
import { AppError, type FieldProblem } from '@hindsight/domain';

/** Everything the app reads from the environment, validated once at boot. */
export interface AppConfig {
  /** Absent: the app starts an embedded Postgres in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  host: string;
  port: number;
  publicRead: boolean;
  db: { poolMax: number; statementTimeoutMs: number; connectTimeoutMs: number };
  http: { requestTimeoutMs: number; keepAliveTimeoutMs: number; maxInFlight: number; shutdownGraceMs: number };
  seedOnStart: boolean;
  models: { execution: 'inline' | 'queue'; workers: number; queueSize: number; runTimeoutMs: number; eventBudget: number; defaultSeed: number };
  imports: { maxBytes: number; trackers: { phabricator?: string; jira?: string; github?: string } };
  /** Base URLs that turn actionables' tracker references (`T123`, `OPS-1`) into links. */
  trackers: { phabricator: string; jira: string | null; github: string };
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, root = process.cwd()): AppConfig {
  const problems: FieldProblem[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push({ field: name, reason: `expected an integer from ${min} to ${max}; got "${raw}"` });
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
    problems.push({ field: name, reason: `expected true or false; got "${raw}"` });
    return fallback;
  };
  const baseUrl = (name: string, fallback: string | null): string | null => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^https?:\/\/[^/\s]+/.test(raw)) {
      problems.push({ field: name, reason: `expected an http(s) base URL; got "${raw}"` });
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push({ field: name, reason: `expected one of ${allowed.join(', ')}; got "${raw}"` });
    return fallback;
  };
  const databaseUrl = env.DATABASE_URL && env.DATABASE_URL.trim() !== '' ? env.DATABASE_URL.trim() : null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push({ field: 'DATABASE_URL', reason: 'expected a postgresql:// URL' });
  }
  const config: AppConfig = {
    databaseUrl,
    dataDir: path.resolve(root, env.HINDSIGHT_DATA_DIR || '.data'),
    host: env.HOST || '127.0.0.1',
    port: int('PORT', 3000, 0, 65535),
    publicRead: bool('PUBLIC_READ', true),
    db: {
      poolMax: int('DB_POOL_MAX', 10, 1, 200),
      statementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
      connectTimeoutMs: int('DB_CONNECT_TIMEOUT_MS', 5_000, 100, 120_000),
    },
    http: {
      requestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000),
      keepAliveTimeoutMs: int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 0, 120_000),
      maxInFlight: int('HTTP_MAX_IN_FLIGHT', 256, 1, 100_000),
      // How long SIGTERM waits for requests in flight before closing their connections.
      shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    },
    seedOnStart: bool('SEED_ON_START', true),
    models: {
      execution: oneOf('MODEL_EXECUTION', ['inline', 'queue'] as const, 'inline'),
      workers: int('MODEL_WORKERS', 2, 1, 64),
      queueSize: int('MODEL_QUEUE_SIZE', 32, 0, 10_000),
      runTimeoutMs: int('MODEL_RUN_TIMEOUT_MS', 15_000, 100, 600_000),
      eventBudget: int('MODEL_EVENT_BUDGET', 20_000_000, 1_000, 1_000_000_000),
      defaultSeed: int('MODEL_DEFAULT_SEED', 1, 0, 2 ** 31 - 1),
    },
    imports: {
      maxBytes: int('IMPORT_MAX_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      trackers: {
        phabricator: env.TRACKER_PHABRICATOR_URL || undefined,
        jira: env.TRACKER_JIRA_URL || undefined,
        github: env.TRACKER_GITHUB_REPO_URL || undefined,
      },
    },
    trackers: {
      phabricator: baseUrl('TRACKER_PHABRICATOR_URL', 'https://phabricator.wikimedia.org')!,
      jira: baseUrl('TRACKER_JIRA_URL', null),
      github: baseUrl('TRACKER_GITHUB_URL', 'https://github.com')!,
    },
  };
  if (problems.length > 0) throw AppError.badInput(problems);
  return config;
}
