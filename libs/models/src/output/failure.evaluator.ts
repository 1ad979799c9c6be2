import type { FailureCriterionSpec } from '../spec/model-spec.types';
import { evalNumber, evalTime, type MeasureContext } from './check.evaluator';
import type { FailureEvaluation, FixVerdict } from './model-run.types';
import { formatDuration, formatPercent, formatQuantity, round6 } from './number.format';

/** Default tolerances of a verdict: later by two output points, smaller by 10 %. */
const DEFAULT_RELATIVE = 0.1;
const DEFAULT_POINTS_LATER = 2;

/**
 * The run against the failure criterion, read on the output series of the criterion's metric:
 * the values the charts draw, so the verdict, the chart and its text describe one curve.
 * A stretch of consecutive points beyond the threshold counts when it lasts at least `sustain`
 * seconds; an undefined point (a ratio over nothing) breaks a stretch.
 */
export function evaluateFailure(
  criterion: FailureCriterionSpec,
  ctx: MeasureContext,
  series: { values: ArrayLike<number>; pointWidth: number; unit: string },
): FailureEvaluation {
  const threshold = evalNumber(criterion.threshold, ctx.params);
  const from = evalTime(criterion.from, 0, ctx);
  const to = evalTime(criterion.to, ctx.horizon, ctx);
  const sustain = criterion.sustain ?? 0;
  const below = criterion.op === 'below';
  const w = series.pointWidth;
  const acc: { onset: number | null; duration: number; worst: number | null } = { onset: null, duration: 0, worst: null };
  let start = -1;
  let stretchWorst = NaN;
  const close = (end: number): void => {
    if (start < 0) return;
    const length = (end - start) * w;
    if (length >= sustain - 1e-9) {
      if (acc.onset === null) acc.onset = start * w;
      acc.duration += length;
      if (acc.worst === null || (below ? stretchWorst < acc.worst : stretchWorst > acc.worst)) acc.worst = stretchWorst;
    }
    start = -1;
  };
  for (let p = 0; p < series.values.length; p++) {
    const mid = (p + 0.5) * w;
    const v = series.values[p]!;
    const inWindow = mid >= from && mid <= to;
    const beyond = inWindow && Number.isFinite(v) && (below ? v < threshold : v > threshold);
    if (!beyond) {
      close(p);
      continue;
    }
    if (start < 0) {
      start = p;
      stretchWorst = v;
    } else if (below ? v < stretchWorst : v > stretchWorst) {
      stretchWorst = v;
    }
  }
  close(series.values.length);
  const { onset, duration, worst } = acc;
  const met = onset !== null;
  return {
    criterion: criterion.description,
    metric: criterion.metric,
    unit: series.unit,
    met,
    onset: onset === null ? null : round6(onset),
    duration: round6(duration) ?? 0,
    worst: worst === null ? null : round6(worst),
    magnitude: worst === null ? 0 : (round6(Math.abs(worst - threshold)) ?? 0),
  };
}

function describe(e: FailureEvaluation): string {
  if (!e.met) return 'never meets it';
  return `meets it from ${formatDuration(e.onset!)} for ${formatDuration(e.duration)}, at worst ${formatQuantity(e.worst, e.unit)}`;
}

/**
 * The verdict on a scenario's change: the failure criterion on its run against the as-happened
 * run (or the scenario's own baseline) with the same parameters and seed. `pointWidth` is the seconds per output point; a fix
 * counts as delaying the failure when it starts more than `tolerance.seconds` (default two
 * points) later, and as reducing it when its duration or its depth past the threshold is at
 * least `tolerance.relative` (default 10 %) smaller.
 */
export function judgeFix(
  run: FailureEvaluation,
  asHappened: FailureEvaluation,
  pointWidth: number,
  tolerance: FailureCriterionSpec['tolerance'] = {},
  baseline: { key: string; title: string } = { key: 'as-happened', title: 'as it happened' },
): FixVerdict {
  const seconds = tolerance.seconds ?? DEFAULT_POINTS_LATER * pointWidth;
  const relative = tolerance.relative ?? DEFAULT_RELATIVE;
  const base = { delay: null, run, baseline: asHappened, baselineScenario: baseline.key };
  const than = baseline.key === 'as-happened' ? 'as it happened' : `in “${baseline.title}”`;
  const both = `With the fix the run ${describe(run)}; ${than} the run ${describe(asHappened)}.`;
  if (!asHappened.met) {
    return {
      ...base,
      outcome: 'NO_FAILURE',
      reason: `Nothing to prevent: with these values the run ${than} does not meet the failure criterion (${run.criterion}) either. With the fix the run ${describe(run)}.`,
    };
  }
  if (!run.met) {
    return { ...base, outcome: 'PREVENTED', reason: `Prevented: the run never meets the failure criterion (${run.criterion}); ${than} the run ${describe(asHappened)}.` };
  }
  const delay = run.onset! - asHappened.onset!;
  if (delay > seconds) {
    return {
      ...base,
      delay: round6(delay),
      outcome: 'DELAYED',
      reason: `Delayed, not prevented: the failure criterion (${run.criterion}) is met ${formatDuration(delay)} later than ${than}. ${both}`,
    };
  }
  // Rounded so that exactly the tolerance (200 s → 180 s at 10 %) counts despite binary fractions.
  const shorter = asHappened.duration > 0 ? Number((1 - run.duration / asHappened.duration).toFixed(9)) : 0;
  const shallower = asHappened.magnitude > 0 ? Number((1 - run.magnitude / asHappened.magnitude).toFixed(9)) : 0;
  if (shorter >= relative || shallower >= relative) {
    const what = [
      shorter >= relative ? `${formatPercent(shorter)} shorter` : null,
      shallower >= relative ? `${formatPercent(shallower)} less far past the threshold` : null,
    ].filter((x) => x !== null);
    return { ...base, outcome: 'REDUCED', reason: `Reduced, not prevented: the failure criterion (${run.criterion}) is still met, ${what.join(' and ')}. ${both}` };
  }
  return { ...base, outcome: 'NOT_PREVENTED', reason: `Not prevented: the failure criterion (${run.criterion}) is met as early, and no shorter or shallower. ${both}` };
}
