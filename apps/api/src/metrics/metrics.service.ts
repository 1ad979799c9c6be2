import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PrismaService } from '@hindsight/db';
import { ModelRunsService } from '@hindsight/model-runs';
import { withTimeout } from '../common/with-timeout';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];

/** A scrape waits at most this long for the one query it makes. */
const SCRAPE_QUERY_TIMEOUT_MS = 2_000;

/** Distinct values a client-chosen label may take before the rest count as `other`. */
export const MAX_LABEL_VALUES = 50;

/**
 * Keeps a label's cardinality bounded when its values come from clients (GraphQL operation
 * names, error codes): the first `max` well-formed values are kept, anything after is `other`.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    private readonly shape: RegExp,
    private readonly max = MAX_LABEL_VALUES,
  ) {}

  of(value: string | null | undefined, fallback: string): string {
    if (!value) return fallback;
    if (!this.shape.test(value)) return 'other';
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(value);
    return value;
  }
}

/**
 * Every Prometheus metric of the app, on a registry of its own (not prom-client's global one),
 * so two apps in one process (the tests) never share or double-register metrics.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'hindsight_http_request_duration_seconds',
    help: 'HTTP requests other than /graphql, by route pattern (not the raw URL), method and status class.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly graphqlDuration = new Histogram({
    name: 'hindsight_graphql_request_duration_seconds',
    help: 'GraphQL requests by operation name ("anonymous" when unnamed, "other" beyond the first 50 names).',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly graphqlErrors = new Counter({
    name: 'hindsight_graphql_errors_total',
    help: 'Errors in GraphQL responses by extensions.code (limits answer TOO_MANY_REQUESTS, QUERY_TOO_COMPLEX, SERVICE_UNAVAILABLE).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'hindsight_http_shed_total',
    help: 'Requests refused with 503 because HTTP_MAX_IN_FLIGHT requests were already in flight.',
    registers: [this.registry],
  });

  readonly inFlight = new Gauge({
    name: 'hindsight_http_requests_in_flight',
    help: 'HTTP requests being served now (the load shedder refuses more than HTTP_MAX_IN_FLIGHT).',
    registers: [this.registry],
  });

  readonly modelRunDuration = new Histogram({
    name: 'hindsight_model_run_duration_seconds',
    help: 'Model runs executed by this process, by outcome (succeeded or failed).',
    labelNames: ['status'] as const,
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  });

  readonly operationLabel = new BoundedLabel(/^[_A-Za-z][_0-9A-Za-z]{0,63}$/);
  readonly errorCodeLabel = new BoundedLabel(/^[A-Z][A-Z0-9_]{0,47}$/);

  constructor(prisma: PrismaService, models: ModelRunsService) {
    collectDefaultMetrics({ register: this.registry, prefix: 'hindsight_' });
    const pool = prisma.pool;
    new Gauge({
      name: 'hindsight_db_pool_connections',
      help: 'Connections of the database pool by state: in_use, idle, and callers waiting for one.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'hindsight_model_runner_runs',
      help: "Runs in this process's model worker pool: running now, and waiting for a worker (the queue depth).",
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const stats = models.executorStats();
        this.set({ state: 'running' }, stats?.active ?? 0);
        this.set({ state: 'queued' }, stats?.queued ?? 0);
      },
    });
    new Gauge({
      name: 'hindsight_model_runs_unfinished',
      help: 'Model runs stored as queued or running, by any process: with MODEL_EXECUTION=queue, the queue depth of the workers.',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        try {
          const { rows } = await withTimeout(
            pool.query<{ status: string; n: number }>(`SELECT status::text AS status, count(*)::int AS n FROM "ModelRun" WHERE status IN ('queued', 'running') GROUP BY status`),
            SCRAPE_QUERY_TIMEOUT_MS,
          );
          for (const status of ['queued', 'running']) this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
        } catch {
          // A scrape must not fail because the database does; the series keeps its last value.
        }
      },
    });
    models.onRunFinished(({ status, durationMs }) => this.modelRunDuration.observe({ status }, durationMs / 1000));
  }
}
