import type { TrackerSyncOptions } from '@hindsight/tracker-sync';
import { MAX_COUNT_LIMIT } from '@hindsight/incidents';
import { DEFAULT_ORGANIZATION_TRACKERS, DEFAULT_TRACKERS, TRACKER_NAMES, type TrackerBases, type TrackerDirectory } from '@hindsight/tracking';
import path from 'node:path';
import { AppError, DEFAULT_SEVERITY_LEVELS, parseSeverityLevels, type FieldProblem } from '@hindsight/domain';

/** Everything the app reads from the environment, validated once at boot. */
export interface AppConfig {
  /** Absent: the app starts an embedded Postgres in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  host: string;
  port: number;
  publicRead: boolean;
  /** Development switch: error responses carry the server-side stack. Never on by default. */
  devErrors: boolean;
  db: { poolMax: number; statementTimeoutMs: number; connectTimeoutMs: number };
  http: { requestTimeoutMs: number; keepAliveTimeoutMs: number; maxInFlight: number; shutdownGraceMs: number };
  seedOnStart: boolean;
  models: {
    execution: 'inline' | 'queue';
    workers: number;
    queueSize: number;
    runTimeoutMs: number;
    eventBudget: number;
    defaultSeed: number;
    /** Bounds of one run's worker thread and result. */
    workerHeapMb: number;
    maxResultBytes: number;
    /** Leases, reclaiming and shutdown of runs. */
    leaseMs: number;
    maxAttempts: number;
    drainMs: number;
    /** Queue mode: runs waiting for a worker beyond which new ones are refused. */
    maxPending: number;
    /** Growth of the runs table: retention of unpinned runs and the per-client quota. */
    retainPerScenario: number;
    retainDays: number;
    quotaRuns: number;
    quotaWindowSeconds: number;
  };
  /** The incident severity scale, most severe first (`INCIDENT_SEVERITY_LEVELS`). */
  severityLevels: string[];
  /**
   * The incident list page counts a filtered or searched list, and its facets, over at most this
   * many matches (`LIST_COUNT_LIMIT`): past it the page says "more than" and that the facets are
   * a partial count, so a common word never makes one page view read every incident.
   */
  listCountLimit: number;
  imports: { maxBytes: number; trackers: { phabricator?: string; jira?: string; github?: string } };
  /** Base URLs that turn actionables' tracker references (`T123`, `OPS-1`) into links. */
  trackers: TrackerDirectory;
  /** Signed webhooks on follow-up changes and newly overdue follow-ups; off without subscribers. */
  notifications: { subscribers: string[]; secret: string; pollMs: number; timeoutMs: number; retryLimit: number; publicUrl: string | null };
  /** Two-way sync with GitHub issues and Jira (see libs/tracker-sync); a tracker without credentials is not synced. */
  trackerSync: TrackerSyncOptions;
  /** `json`: one JSON object per line; `pretty`: short plain lines for a person at a terminal. */
  log: { level: LogLevelName; format: 'json' | 'pretty' };
  /** Bearer token a scraper must send to read /metrics; without one only loopback clients may. */
  metricsToken: string | null;
  /** Bounds on one GraphQL operation, checked before it runs (see `limits/operation-limits.ts`). */
  graphql: {
    /** Schema introspection and the explorer page; off by default when NODE_ENV=production. */
    introspection: boolean;
    maxCost: number;
    /** What an unpaginated list (timeline, factors, introspection's types…) is assumed to hold. */
    assumedListSize: number;
    maxAliases: number;
    maxDepth: number;
    maxDirectives: number;
    maxTokens: number;
    /** Origins (scheme://host[:port]) browsers may call /graphql from; empty: no cross-origin calls. */
    corsOrigins: string[];
  };
  /** Requests per client in each window; 0 turns a limit off. */
  rateLimits: {
    windowSeconds: number;
    writesPerToken: number;
    writesPerAddress: number;
    modelRunsPerToken: number;
    modelRunsPerAddress: number;
    /** Refused requests (too complex, unauthenticated, too large) per client in a window before it is blocked. */
    refusalsPerClient: number;
    /** How long a blocked client's requests are answered 429 before being read. */
    penaltySeconds: number;
    /** Sign-in attempts per address and per account name in each sign-in window. */
    signInsPerAddress: number;
    signInsPerAccount: number;
    signInWindowSeconds: number;
  };
  /** People's sign-in: bcrypt cost and session lifetimes. */
  access: {
    passwordHashRounds: number;
    sessionIdleSeconds: number;
    sessionMaxAgeSeconds: number;
    /** Mark the session cookie Secure (the app is served over HTTPS, directly or behind a proxy). */
    secureCookie: boolean;
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

type Env = Record<string, string | undefined>;

/**
 * `TRACKERS_BY_ORGANIZATION`: JSON, organization name → its trackers, e.g.
 * `{"Wikimedia Foundation":{"phabricator":"https://phabricator.wikimedia.org"},"Acme":{"jira":"https://acme.atlassian.net","github":null}}`.
 */
function organizationTrackers(raw: string | undefined, problems: FieldProblem[]): Record<string, Partial<TrackerBases>> {
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_ORGANIZATION_TRACKERS };
  const field = 'TRACKERS_BY_ORGANIZATION';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push({ field, reason: 'expected JSON: an object from organization name to its trackers' });
    return { ...DEFAULT_ORGANIZATION_TRACKERS };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push({ field, reason: 'expected an object from organization name to its trackers' });
    return { ...DEFAULT_ORGANIZATION_TRACKERS };
  }
  const result: Record<string, Partial<TrackerBases>> = {};
  for (const [organization, trackers] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof trackers !== 'object' || trackers === null || Array.isArray(trackers)) {
      problems.push({ field: `${field}.${organization}`, reason: 'expected an object of tracker base URLs' });
      continue;
    }
    const own: Partial<TrackerBases> = {};
    for (const [name, base] of Object.entries(trackers as Record<string, unknown>)) {
      if (!(TRACKER_NAMES as readonly string[]).includes(name)) {
        problems.push({ field: `${field}.${organization}.${name}`, reason: `unknown tracker; expected one of ${TRACKER_NAMES.join(', ')}` });
      } else if (base !== null && (typeof base !== 'string' || !/^https?:\/\/[^/\s]+/.test(base))) {
        problems.push({ field: `${field}.${organization}.${name}`, reason: 'expected an http(s) base URL, or null for none' });
      } else {
        own[name as keyof TrackerBases] = base === null ? null : (base as string).replace(/\/+$/, '');
      }
    }
    result[organization] = own;
  }
  return result;
}

export function loadConfig(env: Env = process.env, root = process.cwd(), isTty = Boolean(process.stdout.isTTY)): AppConfig {
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
    devErrors: bool('HINDSIGHT_DEV_ERRORS', false),
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
      workerHeapMb: int('MODEL_WORKER_HEAP_MB', 512, 32, 65_536),
      maxResultBytes: int('MODEL_RESULT_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      leaseMs: int('MODEL_RUN_LEASE_MS', 30_000, 500, 3_600_000),
      maxAttempts: int('MODEL_RUN_MAX_ATTEMPTS', 3, 1, 100),
      drainMs: int('MODEL_DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
      maxPending: int('MODEL_QUEUE_MAX_PENDING', 200, 1, 1_000_000),
      retainPerScenario: int('MODEL_RUN_RETAIN_PER_SCENARIO', 50, 1, 1_000_000),
      retainDays: int('MODEL_RUN_RETAIN_DAYS', 30, 0, 36_500),
      quotaRuns: int('MODEL_RUN_QUOTA', 100, 0, 1_000_000),
      quotaWindowSeconds: int('MODEL_RUN_QUOTA_WINDOW_SECONDS', 3_600, 1, 30 * 86_400),
    },
    severityLevels: severityLevels(env.INCIDENT_SEVERITY_LEVELS, problems),
    listCountLimit: int('LIST_COUNT_LIMIT', 1_000, 1, MAX_COUNT_LIMIT),
    imports: {
      maxBytes: int('IMPORT_MAX_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      trackers: {
        phabricator: env.TRACKER_PHABRICATOR_URL || undefined,
        jira: env.TRACKER_JIRA_URL || undefined,
        github: env.TRACKER_GITHUB_REPO_URL || undefined,
      },
    },
    trackers: {
      defaults: {
        phabricator: baseUrl('TRACKER_PHABRICATOR_URL', DEFAULT_TRACKERS.phabricator),
        jira: baseUrl('TRACKER_JIRA_URL', DEFAULT_TRACKERS.jira),
        github: baseUrl('TRACKER_GITHUB_URL', DEFAULT_TRACKERS.github),
        gerrit: baseUrl('TRACKER_GERRIT_URL', DEFAULT_TRACKERS.gerrit),
        gitlab: baseUrl('TRACKER_GITLAB_URL', DEFAULT_TRACKERS.gitlab),
        linear: baseUrl('TRACKER_LINEAR_URL', DEFAULT_TRACKERS.linear),
      },
      organizations: organizationTrackers(env.TRACKERS_BY_ORGANIZATION, problems),
    },
    notifications: {
      subscribers: (env.NOTIFY_WEBHOOK_URLS ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter((u) => u !== '')
        .filter((u) => {
          const ok = /^https?:\/\/[^/\s]+/.test(u);
          if (!ok) problems.push({ field: 'NOTIFY_WEBHOOK_URLS', reason: `expected http(s) URLs separated by commas; got "${u}"` });
          return ok;
        }),
      secret: env.NOTIFY_WEBHOOK_SECRET?.trim() ?? '',
      pollMs: int('NOTIFY_POLL_MS', 5_000, 50, 3_600_000),
      timeoutMs: int('NOTIFY_TIMEOUT_MS', 5_000, 100, 120_000),
      retryLimit: int('NOTIFY_RETRY_LIMIT', 5, 0, 100),
      publicUrl: baseUrl('PUBLIC_URL', null),
    },
    trackerSync: {
      github: env.GITHUB_TOKEN?.trim()
        ? { apiUrl: baseUrl('GITHUB_API_URL', 'https://api.github.com')!, token: env.GITHUB_TOKEN.trim(), webhookSecret: env.GITHUB_WEBHOOK_SECRET?.trim() || null }
        : null,
      jira:
        env.JIRA_URL?.trim() && env.JIRA_EMAIL?.trim() && env.JIRA_API_TOKEN?.trim()
          ? { url: baseUrl('JIRA_URL', null)!, email: env.JIRA_EMAIL.trim(), apiToken: env.JIRA_API_TOKEN.trim(), webhookSecret: env.JIRA_WEBHOOK_SECRET?.trim() || null }
          : null,
      writeBack: bool('TRACKER_SYNC_WRITE_BACK', false),
      timeoutMs: int('TRACKER_SYNC_TIMEOUT_MS', 5_000, 100, 120_000),
      pollMs: int('TRACKER_SYNC_POLL_MS', 5_000, 50, 3_600_000),
      retryBudgetPerMinute: int('TRACKER_SYNC_RETRY_BUDGET', 30, 0, 10_000),
    },
    log: {
      level: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
      // Plain lines only for a person at a terminal; anything else (a file, a pipe, a container
      // log driver) gets JSON without colour codes.
      format: oneOf('LOG_FORMAT', ['json', 'pretty'] as const, isTty ? 'pretty' : 'json'),
    },
    metricsToken: metricsToken(env.METRICS_TOKEN, problems),
    graphql: {
      introspection: bool('GRAPHQL_INTROSPECTION', env.NODE_ENV !== 'production'),
      maxCost: int('GRAPHQL_MAX_COST', 150_000, 1, 100_000_000),
      assumedListSize: int('GRAPHQL_ASSUMED_LIST_SIZE', 10, 1, 10_000),
      maxAliases: int('GRAPHQL_MAX_ALIASES', 15, 0, 10_000),
      maxDepth: int('GRAPHQL_MAX_DEPTH', 12, 1, 1_000),
      maxDirectives: int('GRAPHQL_MAX_DIRECTIVES', 50, 0, 10_000),
      maxTokens: int('GRAPHQL_MAX_TOKENS', 5_000, 100, 1_000_000),
      corsOrigins: corsOrigins(env.CORS_ALLOWED_ORIGINS, problems),
    },
    rateLimits: {
      windowSeconds: int('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
      writesPerToken: int('RATE_LIMIT_WRITES_PER_TOKEN', 600, 0, 1_000_000),
      writesPerAddress: int('RATE_LIMIT_WRITES_PER_ADDRESS', 1_200, 0, 1_000_000),
      modelRunsPerToken: int('RATE_LIMIT_MODEL_RUNS_PER_TOKEN', 120, 0, 1_000_000),
      modelRunsPerAddress: int('RATE_LIMIT_MODEL_RUNS_PER_ADDRESS', 240, 0, 1_000_000),
      refusalsPerClient: int('RATE_LIMIT_REFUSALS_PER_CLIENT', 20, 0, 1_000_000),
      penaltySeconds: int('RATE_LIMIT_PENALTY_SECONDS', 60, 0, 86_400),
      signInsPerAddress: int('RATE_LIMIT_SIGN_INS_PER_ADDRESS', 30, 0, 1_000_000),
      signInsPerAccount: int('RATE_LIMIT_SIGN_INS_PER_ACCOUNT', 10, 0, 1_000_000),
      signInWindowSeconds: int('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', 900, 1, 86_400),
    },
    access: {
      passwordHashRounds: int('PASSWORD_HASH_ROUNDS', 12, 4, 15),
      sessionIdleSeconds: int('SESSION_IDLE_SECONDS', 3_600, 60, 30 * 86_400),
      sessionMaxAgeSeconds: int('SESSION_MAX_AGE_SECONDS', 43_200, 60, 90 * 86_400),
      secureCookie: bool('SESSION_COOKIE_SECURE', false),
    },
  };
  if (config.notifications.subscribers.length > 0 && config.notifications.secret === '') {
    problems.push({ field: 'NOTIFY_WEBHOOK_SECRET', reason: 'is needed to sign the webhooks NOTIFY_WEBHOOK_URLS receives' });
  }
  if (problems.length > 0) throw AppError.badInput(problems);
  return config;
}

/** `https://a.example, http://localhost:5173`: exact origins, no paths, no wildcards. */
function severityLevels(raw: string | undefined, problems: FieldProblem[]): string[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_SEVERITY_LEVELS];
  const parsed = parseSeverityLevels(raw, 'INCIDENT_SEVERITY_LEVELS');
  problems.push(...parsed.problems);
  return parsed.levels;
}

function corsOrigins(raw: string | undefined, problems: FieldProblem[]): string[] {
  const origins = (raw ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s*]+$/.test(origin)) {
      problems.push({ field: 'CORS_ALLOWED_ORIGINS', reason: `expected origins like https://app.example.com, comma-separated; got "${origin}"` });
    }
  }
  return origins.map((o) => o.replace(/\/+$/, ''));
}

function metricsToken(raw: string | undefined, problems: FieldProblem[]): string | null {
  const value = raw?.trim();
  if (!value) return null;
  // A short shared secret is guessable; Prometheus sends it on every scrape.
  if (value.length < 16) problems.push({ field: 'METRICS_TOKEN', reason: `expected at least 16 characters; got ${value.length}` });
  return value;
}
