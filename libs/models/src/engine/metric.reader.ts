import type { StatName } from '../spec/model-spec.types';
import type { FlowSimulation, Station } from './flow.runtime';
import { parseMetricName, type MetricKind, type MetricNamespace, type ParsedMetric } from './metric.catalog';
import { LatencyHistogram, type TimeGrid } from './probe.recorder';

// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
const Number = globalThis.Number;

/** A metric as numerator/denominator per fine window: a window's value is num/den × scale. */
interface MetricArrays {
  kind: MetricKind;
  unit: string;
  num: Float64Array;
  /** Null: divide by the window's duration (rates and levels). */
  den: Float64Array | null;
  scale: number;
  hist: LatencyHistogram | null;
  /** For `latency.pNN` series: the quantile read from the histogram per output point. */
  quantile: number | null;
}

function sum(...arrays: Float64Array[]): Float64Array {
  const out = new Float64Array(arrays[0].length);
  for (const a of arrays) for (let i = 0; i < a.length; i++) out[i] += a[i];
  return out;
}

const QUANTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

export class MetricReader {
  private readonly grid: TimeGrid;
  private readonly cache = new Map<string, MetricArrays>();

  constructor(
    private readonly rt: FlowSimulation,
    private readonly ns: MetricNamespace,
  ) {
    this.grid = rt.grid;
  }

  info(name: string): ParsedMetric {
    const parsed = parseMetricName(name, this.ns);
    if (typeof parsed === 'string') throw new Error(`metric "${name}": ${parsed}`);
    return parsed;
  }

  /**
   * Before the run: switches on the recording of everything `name` reads (accumulators
   * record lazily). Builds the metric once and throws the result away.
   */
  demand(name: string): void {
    this.build(this.info(name));
  }

  private arrays(name: string): MetricArrays {
    const hit = this.cache.get(name);
    if (hit) return hit;
    const p = this.info(name);
    const a = this.build(p);
    this.cache.set(name, a);
    return a;
  }

  private build(p: ParsedMetric): MetricArrays {
    const rt = this.rt;
    const base = { kind: p.info.kind, unit: p.info.unit, hist: null as LatencyHistogram | null, quantile: null as number | null };
    const latency = (h: LatencyHistogram, metric: string): MetricArrays => {
      const dot = metric.indexOf('.');
      const q = dot > 0 ? QUANTILES[metric.slice(dot + 1)] : null;
      return { ...base, num: h.sum, den: h.mass, scale: 1, hist: h, quantile: q ?? null };
    };
    switch (p.owner) {
      case 'station': {
        const st = rt.stationByKey.get(p.key) as Station;
        const s = st.stats;
        const src = p.bySource ? (rt.sourceByKey.get(p.bySource)?.index ?? -1) : -1;
        const by = (list: Array<{ data: Float64Array } | null>, fallback: { data: Float64Array }): Float64Array =>
          src >= 0 ? (list[src]?.data ?? new Float64Array(this.grid.fineCount)) : fallback.data;
        const k = st.scale;
        switch (p.metric) {
          case 'offered':
            return { ...base, num: by(s.offeredBy, s.offered), den: null, scale: k };
          case 'admitted':
            return { ...base, num: s.admitted.data, den: null, scale: k };
          case 'rejected':
            return { ...base, num: s.rejected.data, den: null, scale: k };
          case 'throughput':
            return { ...base, num: by(s.throughputBy, s.throughput), den: null, scale: k };
          case 'goodput':
            return { ...base, num: by(s.goodputBy, s.goodput), den: null, scale: k };
          case 'errors':
            return { ...base, num: s.errors.data, den: null, scale: k };
          case 'dropped':
            return { ...base, num: s.dropped.data, den: null, scale: k };
          case 'emitted':
            return { ...base, num: s.emitted.data, den: null, scale: k };
          case 'queue':
            return { ...base, num: s.queue.data, den: null, scale: k };
          case 'concurrency':
            return { ...base, num: by(s.holdingBy, s.holding), den: null, scale: k };
          case 'working':
            return { ...base, num: s.working.data, den: null, scale: k };
          case 'utilisation': {
            const cap = st.pool ? (this.poolOf(st)?.capacity.data ?? s.capacity.data) : s.capacity.data;
            return { ...base, num: s.holding.data, den: cap, scale: 1 };
          }
          case 'wait':
          case 'wait.p50':
          case 'wait.p90':
          case 'wait.p95':
          case 'wait.p99':
            return { ...latency(s.waitTimes, p.metric), num: s.waitSum.data, den: s.waitMass.data };
          case 'waitedRatio':
            return { ...base, num: s.waited.data, den: s.waitMass.data, scale: 1 };
          case 'errorRatio':
            // A share of the visits that ended in the window (answered, turned away or dropped):
            // errors are booked when a visit ends, so arrivals would be the wrong denominator.
            return { ...base, num: sum(s.errors.data, s.rejected.data, s.dropped.data), den: sum(s.throughput.data, s.rejected.data, s.dropped.data), scale: 1 };
          case 'abandonedRatio':
            return { ...base, num: s.abandonedDone.data, den: s.throughput.data, scale: 1 };
          case 'amplification': {
            // Per user action: new requests of every source (their client retries and the
            // events emitted downstream are what the ratio measures).
            const actions = new Float64Array(s.offered.data.length);
            for (const src of rt.sources) {
              const d = src.stats.offered.data;
              for (let i = 0; i < actions.length; i++) actions[i] += d[i];
            }
            return { ...base, num: s.offered.data, den: actions, scale: k };
          }
          default:
            return latency(s.latency, p.metric);
        }
      }
      case 'pool': {
        const pool = rt.pools.get(p.key) as { stats: { holding: { data: Float64Array }; queue: { data: Float64Array }; capacity: { data: Float64Array } } };
        const s = pool.stats;
        if (p.metric === 'concurrency') return { ...base, num: s.holding.data, den: null, scale: 1 };
        if (p.metric === 'queue') return { ...base, num: s.queue.data, den: null, scale: 1 };
        return { ...base, num: s.holding.data, den: s.capacity.data, scale: 1 };
      }
      case 'source': {
        const src = rt.sourceByKey.get(p.key);
        if (!src) throw new Error(`unknown source ${p.key}`);
        const s = src.stats;
        switch (p.metric) {
          case 'offered':
            return { ...base, num: s.offered.data, den: null, scale: 1 };
          case 'attempts':
            return { ...base, num: s.attempts.data, den: null, scale: 1 };
          case 'retries':
            return { ...base, num: s.retries.data, den: null, scale: 1 };
          case 'success':
            return { ...base, num: s.success.data, den: null, scale: 1 };
          case 'failures':
            return { ...base, num: s.failures.data, den: null, scale: 1 };
          case 'successRatio':
            return { ...base, num: s.success.data, den: sum(s.success.data, s.failures.data), scale: 1 };
          case 'retryRatio':
            return { ...base, num: s.retries.data, den: s.attempts.data, scale: 1 };
          case 'timeoutRatio':
            return { ...base, num: s.timeouts.data, den: s.resolved.data, scale: 1 };
          default:
            return latency(s.latency, p.metric);
        }
      }
      case 'edge': {
        const e = rt.edges.get(p.key);
        if (!e) throw new Error(`unknown edge ${p.key}`);
        switch (p.metric) {
          case 'attempts':
            return { ...base, num: e.attempts.data, den: null, scale: e.scale };
          case 'retries':
            return { ...base, num: e.retries.data, den: null, scale: e.scale };
          case 'timeouts':
            return { ...base, num: e.timeouts.data, den: null, scale: e.scale };
          case 'failures':
            return { ...base, num: e.failures.data, den: null, scale: e.scale };
          case 'retryRatio':
            return { ...base, num: e.retries.data, den: e.attempts.data, scale: 1 };
          default:
            // Timeouts are booked when they fire, so they are a share of the attempts that
            // ended in the same window (every timeout ends its attempt), never above 1.
            return { ...base, num: e.timeouts.data, den: e.resolved.data, scale: 1 };
        }
      }
      case 'cache': {
        const c = rt.caches.get(p.key);
        if (!c) throw new Error(`unknown cache ${p.key}`);
        const s = c.stats;
        switch (p.metric) {
          case 'hitRatio':
            return { ...base, num: s.hits.data, den: s.lookups.data, scale: 1 };
          case 'warm':
            return { ...base, num: s.warm.data, den: null, scale: 1 };
          case 'lookups':
            return { ...base, num: s.lookups.data, den: null, scale: 1 };
          default:
            return { ...base, num: s.fills.data, den: null, scale: 1 };
        }
      }
    }
  }

  private poolOf(st: Station): { capacity: { data: Float64Array } } | null {
    for (const p of this.rt.pools.values()) if (p.gate === st.pool) return p.stats;
    return null;
  }

  unit(name: string): string {
    return this.arrays(name).unit;
  }

  /** Values per output point (NaN where undefined, e.g. a ratio over an empty window). */
  series(name: string): Float64Array {
    const a = this.arrays(name);
    const g = this.grid;
    const out = new Float64Array(g.points);
    for (let p = 0; p < g.points; p++) out[p] = this.pointValue(a, p);
    return out;
  }

  /** The value of one output point, exactly as {@link series} gives it. */
  private pointValue(a: MetricArrays, p: number): number {
    const g = this.grid;
    if (a.quantile !== null && a.hist) return a.hist.quantile(a.quantile, p, p + 1);
    const R = g.fine;
    let n = 0;
    let d = 0;
    for (let i = p * R; i < (p + 1) * R; i++) {
      n += a.num[i];
      d += a.den ? a.den[i] : g.width;
    }
    return d > 0 ? (n / d) * a.scale : NaN;
  }

  /**
   * max, min, first and last read the output points the charts draw, not the finer windows
   * behind them: a summary's "peak" or "worst" is then the chart's peak or lowest point, and
   * not a one-window spike no reader can see.
   */
  private extreme(a: MetricArrays, stat: 'max' | 'min' | 'first' | 'last', lo: number, hi: number): number {
    const g = this.grid;
    const pw = g.width * g.fine;
    const p0 = Math.min(g.points - 1, Math.floor(lo / pw));
    const p1 = Math.min(g.points - 1, Math.max(p0, Math.ceil(hi / pw) - 1));
    let best = NaN;
    for (let p = p0; p <= p1; p++) {
      const v = this.pointValue(a, p);
      if (Number.isNaN(v)) continue;
      if (stat === 'first') return v;
      if (stat === 'last' || Number.isNaN(best) || (stat === 'max' ? v > best : v < best)) best = v;
    }
    return best;
  }

  private fineValue(a: MetricArrays, i: number): number {
    const d = a.den ? a.den[i] : this.grid.width;
    return d > 0 ? (a.num[i] / d) * a.scale : NaN;
  }

  /**
   * A statistic of the metric over [from, to] seconds. NaN when undefined. `window`: for
   * firstTime*, seconds of the moving average compared with the threshold (default: one
   * output point).
   */
  stat(name: string, stat: StatName, from: number, to: number, threshold = NaN, sustain = 0, window?: number): number {
    const a = this.arrays(name);
    const g = this.grid;
    const w = g.width;
    const lo = Math.max(0, Math.min(from, g.horizon));
    const hi = Math.max(lo, Math.min(to, g.horizon));
    const i0 = Math.min(g.fineCount - 1, Math.floor(lo / w));
    const i1 = Math.min(g.fineCount - 1, Math.max(i0, Math.ceil(hi / w) - 1));
    const overlap = (i: number): number => {
      const s = Math.max(lo, i * w);
      const e = Math.min(hi, (i + 1) * w);
      return e > s ? (e - s) / w : 0;
    };
    if (stat in QUANTILES || (a.kind === 'latency' && a.quantile !== null && stat === 'mean')) {
      const q = stat in QUANTILES ? QUANTILES[stat] : (a.quantile as number);
      if (!a.hist) return NaN;
      const R = g.fine;
      const pw = w * R;
      const p0 = Math.floor(lo / pw);
      const p1 = Math.min(g.points, Math.max(p0 + 1, Math.ceil(hi / pw)));
      return a.hist.quantile(q, p0, p1, (p) => {
        const s = Math.max(lo, p * pw);
        const e = Math.min(hi, (p + 1) * pw);
        return e > s ? (e - s) / pw : hi === lo ? 1 : 0;
      });
    }
    switch (stat) {
      case 'mean':
      case 'integral': {
        if (hi <= lo) return this.fineValue(a, i0);
        let n = 0;
        let d = 0;
        for (let i = i0; i <= i1; i++) {
          const f = overlap(i);
          n += a.num[i] * f;
          d += (a.den ? a.den[i] : w) * f;
        }
        if (stat === 'integral') return n * a.scale;
        return d > 0 ? (n / d) * a.scale : NaN;
      }
      case 'at':
        return this.fineValue(a, g.index(from));
      case 'max':
      case 'min':
      case 'first':
      case 'last':
        return this.extreme(a, stat, lo, hi);
      case 'logSlope': {
        let n = 0;
        let sx = 0;
        let sy = 0;
        let sxx = 0;
        let sxy = 0;
        for (let i = i0; i <= i1; i++) {
          const v = this.fineValue(a, i);
          if (!(v > 0)) continue;
          const x = (i + 0.5) * w;
          const y = Math.log(v);
          n++;
          sx += x;
          sy += y;
          sxx += x * x;
          sxy += x * y;
        }
        const den = n * sxx - sx * sx;
        return n >= 2 && den > 0 ? (n * sxy - sx * sy) / den : NaN;
      }
      case 'firstTimeAbove':
      case 'firstTimeBelow': {
        const above = stat === 'firstTimeAbove';
        // Fine windows are short (a few per output point) and, in DES, noisy: the metric is
        // averaged over a moving window of `span` fine windows before the comparison.
        const span = Math.max(1, Math.round((window ?? w * g.fine) / w));
        const last = g.fineCount - span;
        const value = (j: number): number => {
          if (span === 1) return this.fineValue(a, j);
          let n = 0;
          let d = 0;
          for (let k = j; k < j + span; k++) {
            n += a.num[k];
            d += a.den ? a.den[k] : w;
          }
          return d > 0 ? (n / d) * a.scale : NaN;
        };
        const hold = Math.max(0, Math.ceil(sustain / w) - 1);
        for (let i = i0; i <= Math.min(i1, last); i++) {
          let ok = true;
          for (let j = i; j <= Math.min(last, i + hold); j++) {
            const v = value(j);
            if (Number.isNaN(v) || (above ? !(v > threshold) : !(v < threshold))) {
              ok = false;
              break;
            }
          }
          if (ok) return (i + span / 2) * w;
        }
        return NaN;
      }
      default:
        return NaN;
    }
  }
}
