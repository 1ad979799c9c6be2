import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { runModel, type RunModelInput } from '../engine/model.engine';
import type { EnsembleRun } from '../output/ensemble';
import type { RunOne } from './model.exploration';
import { ModelRunner } from './model.runner';

/*
 * Where the runs of an ensemble, sweep or boundary search execute: on the calling thread, one
 * after another, or in worker threads side by side. Threads cost something of their own: each
 * loads the engine and warms its compiled code from cold, and each result crosses back as JSON.
 * Measured (bench/model-exploration-bench.js, docs/benchmarks.md), that cost outweighs the gain
 * for runs of a few tens of milliseconds, and no thread helps when the cores are already busy.
 * So threads are used only when one run is long next to that cost and at least two cores are idle.
 */

/** A run shorter than this (on the calling thread) is not worth a worker thread. */
export const MIN_PARALLEL_RUN_MS = 250;

export interface LaneInputs {
  /** Milliseconds the first run took on the calling thread. */
  firstRunMs: number;
  /** Runs still to do after the first. */
  remaining: number;
  /** Worker threads the caller allows at most. */
  maxWorkers: number;
  /** Cores of the machine (os.availableParallelism()). */
  cores: number;
  /** Runnable processes, averaged over the last minute (os.loadavg()[0]). */
  loadAverage: number;
}

/**
 * Worker threads worth using for the remaining runs; 0 means the calling thread, one run after
 * another. Threads only when a run takes at least MIN_PARALLEL_RUN_MS, at least two cores are
 * idle (cores minus the load average), and at least two runs remain.
 */
export function parallelLanes(x: LaneInputs): number {
  const idle = Math.floor(x.cores - x.loadAverage);
  const lanes = Math.min(x.maxWorkers, idle, x.remaining);
  if (lanes < 2 || !(x.firstRunMs >= MIN_PARALLEL_RUN_MS)) return 0;
  return lanes;
}

export interface AdaptiveRunOne {
  /** Runs the first input on the calling thread, then the others where parallelLanes says. */
  runOne: RunOne;
  /** Worker threads in use (0: the calling thread), once the first run has decided it; null before. */
  lanes(): number | null;
  close(): Promise<void>;
}

/**
 * A RunOne that decides for itself: the first run is timed on the calling thread, and the rest
 * go to `parallelLanes(...)` worker threads, or stay on the calling thread when that is 0.
 * `machine` overrides what the decision reads of the machine (tests).
 */
export function adaptiveRunOne(total: number, maxWorkers: number, machine?: { cores: number; loadAverage: number }): AdaptiveRunOne {
  let decided: number | null = null;
  let runner: ModelRunner | null = null;
  const inline = (input: RunModelInput): EnsembleRun => runModel(input);
  const runOne: RunOne = async (input) => {
    if (decided === null) {
      const t0 = performance.now();
      const first = inline(input);
      const m = machine ?? { cores: os.availableParallelism(), loadAverage: os.loadavg()[0] ?? 0 };
      decided = parallelLanes({ firstRunMs: performance.now() - t0, remaining: total - 1, maxWorkers, cores: m.cores, loadAverage: m.loadAverage });
      if (decided > 0) runner = new ModelRunner({ concurrency: decided, maxQueue: Math.max(1, total) });
      return first;
    }
    return runner ? runner.run(input) : inline(input);
  };
  return {
    runOne,
    lanes: () => decided,
    close: async () => {
      if (runner) await runner.close();
    },
  };
}
