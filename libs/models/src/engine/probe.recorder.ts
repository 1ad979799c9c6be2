// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

/**
 * Accumulators behind every probe. Simulated time [0, horizon] is cut into fine windows
 * (`fine` per output point); counts are summed per window and levels (queue length,
 * slots held) are integrated exactly over time, so a window's value is an exact average,
 * not a sample. Output series are built by merging fine windows, and check statistics
 * read the fine windows directly.
 *
 * Recording is lazy: an accumulator records per-window data only once something has asked
 * for its `data` (the engine asks, before the run, for every metric a probe, figure or check
 * reads). Until then `add` returns at once, so unread statistics cost a call and a branch.
 */

export class TimeGrid {
  readonly fineCount: number;
  readonly width: number;
  /** Fine windows per simulated second. */
  readonly perSecond: number;

  constructor(
    readonly horizon: number,
    readonly points: number,
    readonly fine: number,
  ) {
    this.fineCount = points * fine;
    this.width = horizon / this.fineCount;
    this.perSecond = this.fineCount / horizon;
  }

  index(t: number): number {
    const i = Math.floor(t * this.perSecond);
    return i < this.fineCount ? (i < 0 ? 0 : i) : this.fineCount - 1;
  }
}

/** Mass per fine window (arrivals, completions, retries, ...). */
export class Counter {
  private readonly buf: Float64Array;
  /** Recording (something reads the windows); hot paths test it before calling `add`. */
  on = false;

  constructor(private readonly grid: TimeGrid) {
    this.buf = new Float64Array(grid.fineCount);
  }

  /** The windows; reading them switches recording on. */
  get data(): Float64Array {
    this.on = true;
    return this.buf;
  }

  add(t: number, x: number): void {
    if (!this.on || t > this.grid.horizon) return;
    this.buf[this.grid.index(t)] += x;
  }
}

/**
 * Time integral of a piecewise-constant level (queue length, slots held). The total over the
 * run is always kept (Little's-law bookkeeping); the windows only once `data` was read.
 */
export class Level {
  private readonly buf: Float64Array;
  /** The windows are recorded (something reads them); the total is kept either way. */
  on = false;
  value = 0;
  total = 0;
  private last = 0;
  /** The window of the time `lastEnd` (the end of the previous integration: usually the next start). */
  private lastEnd = -1;
  private lastEndIndex = 0;

  constructor(private readonly grid: TimeGrid) {
    this.buf = new Float64Array(grid.fineCount);
  }

  /** The windows; reading them switches recording on. */
  get data(): Float64Array {
    this.on = true;
    return this.buf;
  }

  change(t: number, delta: number): void {
    if (t > this.last) {
      const v = this.value;
      if (v !== 0) {
        const t0 = this.last;
        const g = this.grid;
        if (!this.on) {
          // Only the total is kept (the arithmetic of integrate without windows).
          const a = t0 < 0 ? 0 : t0;
          const b = t > g.horizon ? g.horizon : t;
          if (b > a) this.total += v * (b - a);
        } else if (t0 === this.lastEnd && t <= g.horizon && t * g.perSecond < this.lastEndIndex + 1) {
          // The common case, inlined: [t0, t] lies inside the window the previous
          // integration ended in (the same arithmetic as integrate, without the lookups).
          this.total += v * (t - t0);
          this.buf[this.lastEndIndex] += v * (t - t0);
          this.lastEnd = t;
        } else {
          this.integrate(t0, t, v);
        }
      }
      this.last = t;
    }
    this.value += delta;
  }

  set(t: number, v: number): void {
    this.change(t, v - this.value);
  }

  /** Adds `mass` over [t0, t1] without touching the current level (precomputed occupancy). */
  addInterval(t0: number, t1: number, mass: number): void {
    this.integrate(t0, t1, mass);
  }

  finish(t: number): void {
    this.change(t, 0);
  }

  private integrate(t0: number, t1: number, v: number): void {
    const g = this.grid;
    if (t0 < 0) t0 = 0;
    if (t1 > g.horizon) t1 = g.horizon;
    if (!(t1 > t0)) return;
    this.total += v * (t1 - t0);
    if (!this.on) return;
    const w = g.width;
    const i0 = t0 === this.lastEnd ? this.lastEndIndex : g.index(t0);
    const i1 = g.index(t1);
    this.lastEnd = t1;
    this.lastEndIndex = i1;
    const d = this.buf;
    if (i0 === i1) {
      d[i0] += v * (t1 - t0);
      return;
    }
    d[i0] += v * ((i0 + 1) * w - t0);
    for (let i = i0 + 1; i < i1; i++) d[i] += v * w;
    d[i1] += v * (t1 - i1 * w);
  }
}

/** Log-spaced histogram per output point, for latency percentiles. */
export class LatencyHistogram {
  static readonly LOW = 1e-4;
  static readonly PER_DECADE = 12;
  static readonly BINS = 9 * 12 + 2;

  private readonly sums: Float64Array;
  private readonly masses: Float64Array;
  /** Recording (something reads the sums or the bins); hot paths test it before calling `add`. */
  on = false;
  /** Empty unless some probe or check reads a percentile: the bins cost a logarithm per sample. */
  readonly bins: Float64Array;
  private readonly fine: number;

  constructor(
    private readonly grid: TimeGrid,
    readonly withBins: boolean,
  ) {
    this.fine = grid.fine;
    this.sums = new Float64Array(grid.fineCount);
    this.masses = new Float64Array(grid.fineCount);
    this.bins = new Float64Array(withBins ? grid.points * LatencyHistogram.BINS : 0);
    this.on = withBins;
  }

  /** Summed latency × mass per window; reading it switches recording on. */
  get sum(): Float64Array {
    this.on = true;
    return this.sums;
  }

  /** Mass per window; reading it switches recording on. */
  get mass(): Float64Array {
    this.on = true;
    return this.masses;
  }

  add(t: number, latency: number, mass: number): void {
    if (!this.on || t > this.grid.horizon) return;
    const i = this.grid.index(t);
    this.sums[i] += latency * mass;
    this.masses[i] += mass;
    if (!this.withBins) return;
    const p = Math.floor(i / this.fine);
    this.bins[p * LatencyHistogram.BINS + LatencyHistogram.binOf(latency)] += mass;
  }

  static binOf(x: number): number {
    if (!(x >= LatencyHistogram.LOW)) return 0;
    const k = Math.floor(Math.log10(x / LatencyHistogram.LOW) * LatencyHistogram.PER_DECADE) + 1;
    return k < LatencyHistogram.BINS - 1 ? k : LatencyHistogram.BINS - 1;
  }

  static binLow(k: number): number {
    return k === 0 ? 0 : LatencyHistogram.LOW * Math.pow(10, (k - 1) / LatencyHistogram.PER_DECADE);
  }

  /** Quantile q over output points [p0, p1) with weights for partial points; NaN when empty. */
  quantile(q: number, p0: number, p1: number, weights?: (p: number) => number): number {
    const B = LatencyHistogram.BINS;
    if (!this.withBins) return NaN;
    const merged = new Float64Array(B);
    let total = 0;
    for (let p = p0; p < p1; p++) {
      const w = weights ? weights(p) : 1;
      if (w <= 0) continue;
      for (let k = 0; k < B; k++) {
        const m = this.bins[p * B + k] * w;
        merged[k] += m;
        total += m;
      }
    }
    if (total <= 0) return NaN;
    const target = q * total;
    let acc = 0;
    for (let k = 0; k < B; k++) {
      const m = merged[k];
      if (m > 0 && acc + m >= target) {
        const f = (target - acc) / m;
        if (k === 0) return LatencyHistogram.LOW * f;
        if (k === B - 1) return LatencyHistogram.binLow(k);
        const lo = LatencyHistogram.binLow(k);
        const hi = LatencyHistogram.binLow(k + 1);
        return lo * Math.pow(hi / lo, f);
      }
      acc += m;
    }
    return LatencyHistogram.binLow(B - 1);
  }
}
