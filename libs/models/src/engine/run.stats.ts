import { Counter, LatencyHistogram, Level, type TimeGrid } from './probe.recorder';

/** Accumulators kept per block during a run; the metric reader turns them into series. */

export class StationStats {
  readonly offered: Counter;
  readonly admitted: Counter;
  readonly rejected: Counter;
  readonly throughput: Counter;
  readonly goodput: Counter;
  readonly errors: Counter;
  readonly dropped: Counter;
  readonly emitted: Counter;
  readonly abandonedDone: Counter;
  readonly waitSum: Counter;
  readonly waitMass: Counter;
  /** Admitted mass that waited for its slot at all. */
  readonly waited: Counter;
  readonly queue: Level;
  readonly holding: Level;
  readonly working: Level;
  readonly capacity: Level;
  readonly latency: LatencyHistogram;
  readonly waitTimes: LatencyHistogram;
  offeredBy: Array<Counter | null> = [];
  throughputBy: Array<Counter | null> = [];
  goodputBy: Array<Counter | null> = [];
  holdingBy: Array<Level | null> = [];
  // Little's law bookkeeping: arrivals, departures, summed sojourns, and what is still inside.
  arrivals = 0;
  departed = 0;
  sojournSum = 0;
  insideMass = 0;
  insideArrivalSum = 0;

  /** `latencyBins` / `waitBins`: some probe or check reads percentiles of that metric. */
  constructor(grid: TimeGrid, latencyBins: boolean, waitBins = false) {
    this.offered = new Counter(grid);
    this.admitted = new Counter(grid);
    this.rejected = new Counter(grid);
    this.throughput = new Counter(grid);
    this.goodput = new Counter(grid);
    this.errors = new Counter(grid);
    this.dropped = new Counter(grid);
    this.emitted = new Counter(grid);
    this.abandonedDone = new Counter(grid);
    this.waitSum = new Counter(grid);
    this.waitMass = new Counter(grid);
    this.waited = new Counter(grid);
    this.queue = new Level(grid);
    this.holding = new Level(grid);
    this.working = new Level(grid);
    this.capacity = new Level(grid);
    this.latency = new LatencyHistogram(grid, latencyBins);
    this.waitTimes = new LatencyHistogram(grid, waitBins);
  }

  /** Mass `m` got its slot at `now` after waiting `wait` seconds. */
  recordWait(now: number, wait: number, m: number): void {
    if (this.waitSum.on) this.waitSum.add(now, m * wait);
    if (this.waitMass.on) this.waitMass.add(now, m);
    if (wait > 0 && this.waited.on) this.waited.add(now, m);
    if (this.waitTimes.on) this.waitTimes.add(now, wait, m);
  }
}

export class EdgeStats {
  readonly attempts: Counter;
  readonly retries: Counter;
  readonly timeouts: Counter;
  /** Attempts that ended (answered or timed out), booked when they end: what a timeout is a share of. */
  readonly resolved: Counter;
  readonly failures: Counter;
  constructor(
    grid: TimeGrid,
    readonly scale: number,
  ) {
    this.attempts = new Counter(grid);
    this.retries = new Counter(grid);
    this.timeouts = new Counter(grid);
    this.resolved = new Counter(grid);
    this.failures = new Counter(grid);
  }
}

export class SourceStats {
  readonly offered: Counter;
  readonly attempts: Counter;
  readonly retries: Counter;
  readonly success: Counter;
  readonly failures: Counter;
  readonly timeouts: Counter;
  /** Attempts on the source's own edge that ended (answered or timed out), when they ended. */
  readonly resolved: Counter;
  readonly latency: LatencyHistogram;
  constructor(grid: TimeGrid, percentiles: boolean) {
    this.offered = new Counter(grid);
    this.attempts = new Counter(grid);
    this.retries = new Counter(grid);
    this.success = new Counter(grid);
    this.failures = new Counter(grid);
    this.timeouts = new Counter(grid);
    this.resolved = new Counter(grid);
    this.latency = new LatencyHistogram(grid, percentiles);
  }
}

export class CacheStats {
  readonly lookups: Counter;
  readonly hits: Counter;
  readonly fills: Counter;
  readonly warm: Level;
  constructor(grid: TimeGrid) {
    this.lookups = new Counter(grid);
    this.hits = new Counter(grid);
    this.fills = new Counter(grid);
    this.warm = new Level(grid);
  }
}

export class PoolStats {
  readonly holding: Level;
  readonly queue: Level;
  readonly capacity: Level;
  constructor(grid: TimeGrid) {
    this.holding = new Level(grid);
    this.queue = new Level(grid);
    this.capacity = new Level(grid);
  }
}
