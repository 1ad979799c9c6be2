import { ModelRunner } from '@hindsight/models';
import type { ModelExecutor } from './model-executor';

export interface ExecutorOptions {
  /** Worker threads, each running one model at a time. */
  workers: number;
  /** Runs allowed to wait for a free worker; one more is refused at once (QUEUE_FULL). */
  queueSize: number;
  /** Wall-clock limit of one run; the engine stops itself, and its worker is terminated if it does not. */
  runTimeoutMs: number;
  /** Simulated events allowed per scenario run. */
  eventBudget: number;
  /** Heap (old generation) of each worker thread; a run beyond it fails with MODEL_RUN_OUT_OF_MEMORY. */
  workerHeapMb?: number;
  /** Largest result stored, in bytes of JSON; a larger one fails with MODEL_RESULT_TOO_LARGE. */
  maxResultBytes?: number;
}

export interface ClosableExecutor extends ModelExecutor {
  room(): number;
  close(): Promise<void>;
}

/** The engine's bounded worker-thread pool, with this installation's budgets on every run. */
export function runnerExecutor(options: ExecutorOptions): ClosableExecutor {
  const runner = new ModelRunner({
    concurrency: options.workers,
    maxQueue: options.queueSize,
    wallTimeMs: options.runTimeoutMs + 1_000,
    ...(options.workerHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: options.workerHeapMb } } : {}),
    ...(options.maxResultBytes ? { maxResultBytes: options.maxResultBytes } : {}),
  });
  return {
    execute: (input) => runner.runJson({ ...input, budget: { maxEvents: options.eventBudget, maxWallMs: options.runTimeoutMs, ...input.budget } }),
    room: () => runner.room,
    stats: () => ({ active: runner.active, queued: runner.queued }),
    close: () => runner.close(),
  };
}
