import type { RunModelInput } from '@hindsight/models';

/**
 * Where a model run executes. In the API process it is the bounded worker-thread pool of
 * `@hindsight/models`; tests and the queue worker use the same interface.
 */
export interface ModelExecutor {
  /** The run's `ModelRunResult` as JSON, serialised off the calling thread and stored as it is. */
  execute(input: RunModelInput): Promise<string>;
  /** Runs it would accept now; absent means it never refuses. */
  room?(): number;
  /** Runs executing and waiting right now, for executors that have a pool (read-only). */
  stats?(): ExecutorStats;
}

export interface ExecutorStats {
  active: number;
  queued: number;
}

export const MODEL_EXECUTOR = Symbol('MODEL_EXECUTOR');
export const MODEL_RUN_OPTIONS = Symbol('MODEL_RUN_OPTIONS');

export interface ModelRunOptions {
  /** `inline`: the API runs models in its own worker threads. `queue`: it enqueues them for `npm run worker`. */
  execution: 'inline' | 'queue';
  /** Seed used when a caller gives none, so the same question gets the same (cached) answer. */
  defaultSeed: number;
  /** How long a claimed run stays claimed without a heartbeat; heartbeats come every third of it. Default 30 s. */
  leaseMs?: number;
  /** Claims of one run (first run plus reclaims after a lost lease) before it is failed. Default 3. */
  maxAttempts?: number;
  /** Queue mode: runs queued but not started beyond which new ones are refused at once. Default 200. */
  maxPending?: number;
  /** Unpinned runs kept per incident scenario; older ones are deleted as new ones are stored. Default 50. */
  retainPerScenario?: number;
  /** Unpinned runs older than this many days are deleted by the periodic sweep (0: never). Default 30. */
  retainDays?: number;
  /** Stored runs one client (token or address) may create per window (0: no quota). Default 100. */
  quotaRuns?: number;
  quotaWindowSeconds?: number;
  /** How long `drain()` waits for runs in progress at shutdown before releasing them. Default 10 s. */
  drainMs?: number;
}

export type ResolvedModelRunOptions = Required<ModelRunOptions>;

export function resolveRunOptions(options: ModelRunOptions): ResolvedModelRunOptions {
  return {
    leaseMs: 30_000,
    maxAttempts: 3,
    maxPending: 200,
    retainPerScenario: 50,
    retainDays: 30,
    quotaRuns: 100,
    quotaWindowSeconds: 3_600,
    drainMs: 10_000,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  } as ResolvedModelRunOptions;
}

/**
 * Failure codes that are a property of the inputs: the same inputs fail the same way on any
 * machine, so the failure is a valid cached answer. Every other failure (wall time, a lost or
 * out-of-memory worker, a shutdown, an expired lease, an unexpected error) is not: the same
 * inputs run again when asked again.
 */
export const DETERMINISTIC_FAILURES: ReadonlySet<string> = new Set([
  'INVALID_SPEC',
  'INVALID_PARAMETER',
  'UNKNOWN_SCENARIO',
  'EVENT_BUDGET_EXCEEDED',
  'MODEL_RESULT_TOO_LARGE',
]);
