import { performance } from 'node:perf_hooks';
import { ModelErrorCode, ModelRunError } from '../errors/model.error';
import { EventQueue } from './event.queue';

export interface RunBudget {
  /** Hard cap on processed events; a run that needs more is abandoned, not truncated. */
  maxEvents: number;
  /** Hard cap on wall-clock milliseconds spent in the event loop. */
  maxWallMs: number;
}

export const DEFAULT_RUN_BUDGET: RunBudget = { maxEvents: 20_000_000, maxWallMs: 10_000 };

/** Reading the clock is costly next to an event; look every this many events. */
const WALL_CHECK_MASK = 4095;

/**
 * Discrete-event loop over simulated seconds. Simulated time only moves when an event is
 * taken from the queue, so a run's result never depends on how fast the machine is; the
 * wall clock is consulted only to enforce the budget.
 */
export class SimulationKernel {
  readonly queue: EventQueue;
  now = 0;
  processed = 0;

  constructor(initialCapacity = 1024) {
    this.queue = new EventQueue(initialCapacity);
  }

  /** Schedules `kind` on `target` at `time`; a time in the past is clamped to now. */
  schedule(time: number, kind: number, target: unknown): void {
    this.queue.push(time > this.now ? time : this.now, kind, target);
  }

  /**
   * Dispatches events in (time, scheduling order) up to and including `until`.
   * Throws ModelRunError EVENT_BUDGET_EXCEEDED / WALL_TIME_EXCEEDED when the budget runs out.
   */
  run(until: number, dispatch: (kind: number, target: unknown) => void, budget: RunBudget = DEFAULT_RUN_BUDGET): void {
    const queue = this.queue;
    const maxEvents = budget.maxEvents;
    const deadline = performance.now() + budget.maxWallMs;
    let processed = this.processed;
    while (queue.popUntil(until)) {
      this.now = queue.poppedTime;
      processed++;
      if (processed > maxEvents) {
        this.processed = processed;
        throw new ModelRunError(
          ModelErrorCode.EventBudgetExceeded,
          `the run needed more than ${maxEvents} events (simulated time reached ${round3(this.now)} s of ${round3(until)} s)`,
          { maxEvents, simulatedSeconds: round3(this.now) },
        );
      }
      if ((processed & WALL_CHECK_MASK) === 0 && performance.now() > deadline) {
        this.processed = processed;
        throw new ModelRunError(
          ModelErrorCode.WallTimeExceeded,
          `the run took longer than ${budget.maxWallMs} ms of wall time (simulated time reached ${round3(this.now)} s of ${round3(until)} s)`,
          { maxWallMs: budget.maxWallMs, simulatedSeconds: round3(this.now) },
        );
      }
      dispatch(queue.poppedKind, queue.poppedTarget);
    }
    this.processed = processed;
    if (this.now < until) this.now = until;
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
