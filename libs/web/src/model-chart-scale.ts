/**
 * Scales and ticks for model charts. Pure functions, so the tick rules can be tested without
 * drawing. Numbers are printed by the model engine's formatter (`@hindsight/models`), the same
 * one the CLI and the check explanations use, so a figure reads alike everywhere.
 */
import { durationUnit, formatNumber, formatTickNumber } from '@hindsight/models';

/** The 1-2-2.5-5 × 10ⁿ step (or another set of multipliers) giving at most `maxTicks` intervals over `span`. */
export function niceStep(span: number, maxTicks: number, multipliers: readonly number[] = [1, 2, 2.5, 5, 10]): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, maxTicks);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const m of multipliers) if (m * magnitude >= raw * (1 - 1e-9)) return m * magnitude;
  return 10 * magnitude;
}

export interface ValueAxis {
  min: number;
  max: number;
  ticks: number[];
  /** The axis starts above zero to show the change (see `valueAxis`'s `fit`). */
  fitted?: boolean;
}

/**
 * The value axis: from zero (or the lowest value, when below zero) to a round number at or above
 * the highest. With `fit`, an axis whose values all lie well above zero (zero would squash their
 * whole change into under half the height) starts at a round number at or below the lowest value
 * instead, so the change shows; `fitted` then says so, and charts say it in words. A flat or empty
 * series still gets a usable axis.
 */
export function valueAxis(values: Iterable<number | null>, maxTicks = 4, options: { fit?: boolean } = {}): ValueAxis {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) return { min: 0, max: 1, ticks: [0, 0.5, 1] };
  if (options.fit && lo > 0 && hi - lo < lo) {
    const step = niceStep(hi - lo, maxTicks);
    const min = Math.floor(lo / step + 1e-9) * step;
    const max = Math.ceil(hi / step - 1e-9) * step;
    if (min > 0 && max > min) {
      const ticks: number[] = [];
      for (let v = min; v <= max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
      return { min, max, ticks, fitted: true };
    }
  }
  let min = Math.min(0, lo);
  let max = Math.max(0, hi);
  if (max === min) max = min + 1;
  const step = niceStep(max - min, maxTicks);
  min = Math.floor(min / step + 1e-9) * step;
  max = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = min; v <= max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { min, max, ticks };
}

export interface TimeTick {
  at: number;
  label: string;
}

export interface TimeAxis {
  /** Axis title, with its unit: "Simulated time (min)" or "Time, UTC (2015-03-31)". */
  title: string;
  ticks: TimeTick[];
  /** A time in words for summaries: "13:41:30 UTC" or "1.5 min". */
  describe(seconds: number): string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Wall-clock steps a reader expects on a clock axis: whole seconds, minutes and hours. */
const CLOCK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * The time axis over [0, horizon] seconds. With a `timeOrigin` (the wall-clock instant of t = 0)
 * ticks fall on round UTC times; without one they count simulated minutes (or seconds, or hours,
 * whichever keeps the numbers short).
 */
export function timeAxis(horizon: number, timeOrigin: string | null | undefined, maxTicks = 5): TimeAxis {
  const span = horizon > 0 && Number.isFinite(horizon) ? horizon : 1;
  const origin = timeOrigin ? Date.parse(timeOrigin) : NaN;
  if (Number.isFinite(origin)) {
    const step = CLOCK_STEPS.find((s) => span / s <= maxTicks) ?? 86400;
    const withSeconds = step < 60;
    const clock = (seconds: number, showSeconds: boolean) => {
      const d = new Date(origin + seconds * 1000);
      return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${showSeconds ? `:${pad(d.getUTCSeconds())}` : ''}`;
    };
    const originSeconds = origin / 1000;
    const first = Math.ceil(originSeconds / step - 1e-9) * step - originSeconds;
    const ticks: TimeTick[] = [];
    for (let t = first; t <= span + 1e-9; t += step) ticks.push({ at: t, label: clock(t, withSeconds) });
    const day = new Date(origin).toISOString().slice(0, 10);
    return { title: `Time, UTC (${day})`, ticks, describe: (s) => `${clock(s, true)} UTC` };
  }
  const unit = durationUnit(span);
  // No 2.5 steps on a time axis: "7.5 min" reads worse than 6 or 8.
  const step = niceStep(span / unit.seconds, maxTicks, [1, 2, 5, 10]) * unit.seconds;
  const ticks: TimeTick[] = [];
  for (let t = 0; t <= span + 1e-9; t += step) ticks.push({ at: t, label: formatTickNumber(Number((t / unit.seconds).toPrecision(10))) });
  return {
    title: `Simulated time (${unit.unit})`,
    ticks,
    describe: (s) => `${formatNumber(s / unit.seconds)} ${unit.unit}`,
  };
}

/**
 * The runs of consecutive defined values: a null (a ratio over nothing, a gap in the data) breaks
 * the line instead of dropping it to zero.
 */
export function segments(time: readonly number[], values: ReadonlyArray<number | null>): Array<Array<{ t: number; v: number }>> {
  const out: Array<Array<{ t: number; v: number }>> = [];
  let current: Array<{ t: number; v: number }> = [];
  const n = Math.min(time.length, values.length);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    const t = time[i]!;
    if (v === null || v === undefined || !Number.isFinite(v) || !Number.isFinite(t)) {
      if (current.length > 0) out.push(current);
      current = [];
      continue;
    }
    current.push({ t, v });
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * At most `maxPoints` points per segment: the segment is cut into equal time buckets and each
 * keeps its lowest and highest point, in time order. Peaks survive (a plain stride would skip a
 * one-point spike), and a 500-point run costs a phone the same as a 90-point one.
 */
export function downsample(points: ReadonlyArray<{ t: number; v: number }>, maxPoints: number): Array<{ t: number; v: number }> {
  if (points.length <= maxPoints || maxPoints < 4) return [...points];
  const buckets = Math.floor(maxPoints / 2);
  const t0 = points[0]!.t;
  const span = points[points.length - 1]!.t - t0 || 1;
  const out: Array<{ t: number; v: number }> = [];
  let i = 0;
  for (let b = 0; b < buckets && i < points.length; b++) {
    const end = t0 + (span * (b + 1)) / buckets;
    let lo: { t: number; v: number } | null = null;
    let hi: { t: number; v: number } | null = null;
    for (; i < points.length && (points[i]!.t <= end || b === buckets - 1); i++) {
      const p = points[i]!;
      if (!lo || p.v < lo.v) lo = p;
      if (!hi || p.v > hi.v) hi = p;
    }
    if (!lo || !hi) continue;
    if (lo === hi) out.push(lo);
    else if (lo.t < hi.t) out.push(lo, hi);
    else out.push(hi, lo);
  }
  return out;
}
