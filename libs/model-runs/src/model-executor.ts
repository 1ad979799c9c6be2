import type { ModelRunResult, RunModelInput } from '@hindsight/models';

/**
 * Where a model run executes. In the API process it is the bounded worker-thread pool of
 * `@hindsight/models`; tests and the queue worker use the same interface.
 */
export interface ModelExecutor {
  execute(input: RunModelInput): Promise<ModelRunResult>;
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
}
