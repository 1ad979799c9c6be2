import { createHash } from 'node:crypto';
import { ENGINE_VERSION } from '../engine-version';
import { ModelError, ModelErrorCode } from '../errors/model.error';
import { compileExpression } from '../spec/expression.parser';
import type { EnsembleCheckSpec, EnsembleStat, ModelSpec, NumberValue } from '../spec/model-spec.types';
import { SpecLimits } from '../spec/spec.limits';
import type { CheckResult, FixOutcome, ModelRunResult } from './model-run.types';
import { formatDuration, formatPercent, formatQuantity, round6 } from './number.format';
import { canonicalJson } from './run-input.hash';

/*
 * Seed ensembles: the same scenario run with N consecutive seeds, summarised per output point
 * (mean and p10/p50/p90 bands of every series), per figure, and as the share of runs that meet
 * the failure criterion. Aggregation is a pure function of the runs, so the same runs give the
 * same bytes whether they ran in worker threads of one process or as queued jobs on several.
 */

export interface Quantiles {
  mean: number | null;
  sd: number | null;
  min: number | null;
  max: number | null;
  p10: number | null;
  p50: number | null;
  p90: number | null;
  /** Runs in which the value is defined. */
  n: number;
}

export interface EnsembleSeries {
  key: string;
  label: string;
  metric: string;
  unit: string;
  mean: Array<number | null>;
  p10: Array<number | null>;
  p50: Array<number | null>;
  p90: Array<number | null>;
}

export interface EnsembleFigure extends Quantiles {
  name: string;
  label: string;
  unit: string;
}

export interface EnsembleFailure {
  criterion: string;
  /** Runs meeting the criterion. */
  met: number;
  runs: number;
  /** met / runs. */
  probability: number;
  /** Onset over the runs that meet it (seconds). */
  onset: Quantiles;
  /** Seconds the criterion holds, over all runs (0 where not met). */
  duration: Quantiles;
}

export interface EnsembleRunRow {
  seed: number;
  inputHash: string;
  failureMet: boolean | null;
  onset: number | null;
  verdict: FixOutcome | null;
}

export interface EnsembleCheckNotEvaluated {
  name: string;
  reason: string;
}

export interface ModelEnsembleResult {
  engineVersion: string;
  /** Hash of the runs' own input hashes, in seed order: the ensemble's cache key. */
  inputHash: string;
  model: ModelRunResult['model'];
  scenario: ModelRunResult['scenario'];
  mode: 'des' | 'fluid';
  fluidStep: number;
  horizon: number;
  timeOrigin: string | null;
  parameters: Record<string, number>;
  seeds: number[];
  time: number[];
  series: EnsembleSeries[];
  summary: EnsembleFigure[];
  /** Null when the model states no failure criterion. */
  failure: EnsembleFailure | null;
  /** For a fix scenario: how many runs got each verdict (each judged against the baseline with its own seed). */
  verdicts: Array<{ outcome: FixOutcome; runs: number }> | null;
  checks: CheckResult[];
  notEvaluated: EnsembleCheckNotEvaluated[];
  runs: EnsembleRunRow[];
  /** The ensemble in words: the failure probability and the headline bands. */
  text: string;
}

/** What an ensemble reads of each run (a stored run carries these too). */
export type EnsembleRun = Pick<ModelRunResult, 'seed' | 'inputHash' | 'model' | 'scenario' | 'mode' | 'fluidStep' | 'horizon' | 'timeOrigin' | 'parameters' | 'time' | 'series' | 'summary' | 'failure' | 'verdict'> &
  Partial<Pick<ModelRunResult, 'checks'>>;

/** The seeds of an ensemble of `count` runs starting at `first`: first, first + 1, … */
export function ensembleSeeds(first: number, count: number): number[] {
  if (!Number.isInteger(count) || count < 1 || count > SpecLimits.ensembleSeeds) {
    throw new ModelError(ModelErrorCode.InvalidSpec, `seeds: expected a whole number of runs between 1 and ${SpecLimits.ensembleSeeds} (engine limit), got ${String(count)}`);
  }
  if (!Number.isInteger(first) || first < 0) throw new ModelError(ModelErrorCode.InvalidSpec, `seed: expected a whole number >= 0, got ${String(first)}`);
  return Array.from({ length: count }, (_, i) => (first + i) >>> 0);
}

/** Linear-interpolation quantile (type 7) of sorted values. */
function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Mean, spread and quantiles of the finite values; nulls (undefined in a run) are left out. */
export function quantiles(values: ReadonlyArray<number | null>): Quantiles {
  const xs = values.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return { mean: null, sd: null, min: null, max: null, p10: null, p50: null, p90: null, n: 0 };
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / n;
  let ss = 0;
  for (const x of xs) ss += (x - mean) * (x - mean);
  return {
    mean: round6(mean),
    sd: n > 1 ? round6(Math.sqrt(ss / (n - 1))) : 0,
    min: round6(xs[0]!),
    max: round6(xs[n - 1]!),
    p10: round6(quantile(xs, 0.1)),
    p50: round6(quantile(xs, 0.5)),
    p90: round6(quantile(xs, 0.9)),
    n,
  };
}

function paramValue(v: NumberValue | string | undefined, params: Record<string, number>): number | null {
  if (v === undefined) return null;
  if (typeof v === 'number') return v;
  const expr = typeof v === 'string' ? v : 'param' in v ? v.param : v.expr;
  return compileExpression(expr, (name) => {
    const x = params[name] ?? NaN;
    return () => x;
  })();
}

const STAT_WORDS: Record<EnsembleStat | 'failureProbability', string> = {
  mean: 'mean',
  sd: 'standard deviation',
  min: 'lowest',
  max: 'highest',
  p10: '10th percentile',
  p50: 'median',
  p90: '90th percentile',
  failureProbability: 'share of runs meeting the failure criterion',
};

function evaluateEnsembleCheck(check: EnsembleCheckSpec, runs: EnsembleRun[], scenarioKey: string, params: Record<string, number>): CheckResult {
  let observed: number | null;
  let unit = check.unit;
  if (check.stat === 'failureProbability') {
    const met = runs.filter((r) => r.failure?.met === true).length;
    observed = met / runs.length;
    unit = check.unit || 'ratio';
  } else {
    const q = quantiles(runs.map((r) => r.summary.find((f) => f.name === check.figure)?.value ?? null));
    observed = q[check.stat];
  }
  const e = check.expect;
  const v = paramValue(e.value, params);
  const min = paramValue(e.min, params);
  const max = paramValue(e.max, params);
  const tol = e.tolerance ?? null;
  const q = (x: number | null): string => formatQuantity(x, unit);
  let expectedText: string;
  let pass = false;
  if (e.op === 'between') {
    expectedText = `between ${q(min)} and ${q(max)}`;
    pass = observed !== null && min !== null && max !== null && observed >= min && observed <= max;
  } else if (e.op === 'approx') {
    expectedText = e.absolute ? `≈ ${q(v)} (± ${q(tol)})` : `≈ ${q(v)} (± ${formatPercent(tol ?? 0)})`;
    const allowed = e.absolute ? (tol ?? 0) : (tol ?? 0) * Math.abs(v ?? NaN);
    pass = observed !== null && v !== null && Math.abs(observed - v) <= allowed;
  } else {
    expectedText = `${e.op === '>=' ? '≥' : e.op === '<=' ? '≤' : e.op} ${q(v)}`;
    const t = v ?? NaN;
    pass = observed !== null && (e.op === '>=' ? observed >= t : e.op === '<=' ? observed <= t : e.op === '>' ? observed > t : observed < t);
  }
  const what = `${STAT_WORDS[check.stat]}${check.figure ? ` of “${check.figure}”` : ''} over ${runs.length} runs`;
  const why = observed === null ? `the ${what} has no value (the figure is undefined in every run)` : `${what}: ${q(observed)}, ${pass ? 'as expected' : 'not'} ${expectedText}`;
  return {
    name: check.name,
    description: check.description,
    scenario: scenarioKey,
    expected: { op: e.op, value: v, min, max, tolerance: tol, absolute: e.absolute === true },
    expectedText,
    observed: observed === null ? null : round6(observed),
    unit,
    tolerance: tol,
    pass,
    explanation: pass || !check.ifFails ? why : `${why}. ${check.ifFails}`,
    kind: check.kind ?? null,
    source: check.source ?? null,
  };
}

/** The ensemble in words, for the page, the CLI and the chart's text. */
export function describeEnsemble(e: Pick<ModelEnsembleResult, 'failure' | 'seeds' | 'summary' | 'verdicts'> & Partial<Pick<ModelEnsembleResult, 'mode' | 'checks' | 'notEvaluated'>>): string {
  const n = e.seeds.length;
  const parts: string[] = [];
  if (e.mode === 'fluid' && n > 1) {
    // A fluid run draws no random numbers: the runs are copies, and the bands have no width.
    parts.push('These runs are in fluid mode, which draws no random numbers: every seed gives the same run.');
  }
  if (e.failure) {
    const f = e.failure;
    const onset = f.met > 0 && f.onset.p50 !== null ? ` (median onset ${formatDuration(f.onset.p50)}, from ${formatDuration(f.onset.min ?? 0)} to ${formatDuration(f.onset.max ?? 0)})` : '';
    parts.push(`The failure criterion (${f.criterion}) is met in ${f.met} of ${n} runs, ${formatPercent(f.probability)}${onset}.`);
  }
  if (e.verdicts && e.verdicts.length > 0) {
    parts.push(`Verdicts over the runs: ${e.verdicts.map((v) => `${v.outcome.toLowerCase().replace('_', ' ')} in ${v.runs}`).join(', ')}.`);
  }
  for (const f of e.summary.slice(0, 3)) {
    if (f.mean === null) continue;
    parts.push(`${f.label}: mean ${formatQuantity(f.mean, f.unit)}, 80 % of runs between ${formatQuantity(f.p10, f.unit)} and ${formatQuantity(f.p90, f.unit)}.`);
  }
  const checks = e.checks ?? [];
  if (checks.length > 0) {
    const passed = checks.filter((c) => c.pass).length;
    parts.push(`Ensemble checks: ${passed} of ${checks.length} ${checks.length === 1 ? 'passes' : 'pass'} (${checks.map((c) => `${c.name}: ${c.pass ? 'passes' : 'fails'}, ${c.explanation}`).join('; ')}).`);
  }
  const skipped = e.notEvaluated ?? [];
  if (skipped.length > 0) parts.push(`Not evaluated: ${skipped.map((c) => `${c.name} (${c.reason})`).join('; ')}.`);
  return parts.join(' ');
}

/**
 * Summarises runs of one scenario that differ only in their seed. The runs must come from
 * the same spec, scenario, parameters, mode and resolution (checked: same model, scenario,
 * parameters and point count).
 */
export function aggregateEnsemble(spec: ModelSpec, runs: EnsembleRun[]): ModelEnsembleResult {
  if (runs.length === 0) throw new ModelError(ModelErrorCode.InvalidSpec, 'seeds: an ensemble needs at least one run');
  const first = runs[0]!;
  const sorted = [...runs].sort((a, b) => a.seed - b.seed);
  for (const r of sorted) {
    if (r.scenario.key !== first.scenario.key || r.model.slug !== first.model.slug || r.time.length !== first.time.length || canonicalJson(r.parameters) !== canonicalJson(first.parameters)) {
      throw new ModelError(ModelErrorCode.InvalidSpec, `runs of an ensemble must differ only in their seed (seed ${r.seed} differs in scenario, parameters or resolution)`);
    }
  }
  const points = first.time.length;
  const series: EnsembleSeries[] = first.series.map((s, k) => {
    const out: EnsembleSeries = { key: s.key, label: s.label, metric: s.metric, unit: s.unit, mean: [], p10: [], p50: [], p90: [] };
    const column: Array<number | null> = new Array(sorted.length);
    for (let p = 0; p < points; p++) {
      for (let i = 0; i < sorted.length; i++) column[i] = sorted[i]!.series[k]?.values[p] ?? null;
      const q = quantiles(column);
      out.mean.push(q.mean);
      out.p10.push(q.p10);
      out.p50.push(q.p50);
      out.p90.push(q.p90);
    }
    return out;
  });
  const summary: EnsembleFigure[] = first.summary.map((f) => ({
    name: f.name,
    label: f.label,
    unit: f.unit,
    ...quantiles(sorted.map((r) => r.summary.find((x) => x.name === f.name)?.value ?? null)),
  }));
  let failure: EnsembleFailure | null = null;
  if (first.failure) {
    const met = sorted.filter((r) => r.failure?.met).length;
    failure = {
      criterion: first.failure.criterion,
      met,
      runs: sorted.length,
      probability: round6(met / sorted.length) ?? 0,
      onset: quantiles(sorted.map((r) => (r.failure?.met ? r.failure.onset : null))),
      duration: quantiles(sorted.map((r) => r.failure?.duration ?? 0)),
    };
  }
  let verdicts: ModelEnsembleResult['verdicts'] = null;
  if (sorted.some((r) => r.verdict)) {
    const counts = new Map<FixOutcome, number>();
    for (const r of sorted) if (r.verdict) counts.set(r.verdict.outcome, (counts.get(r.verdict.outcome) ?? 0) + 1);
    const order: FixOutcome[] = ['PREVENTED', 'DELAYED', 'REDUCED', 'NOT_PREVENTED', 'NO_FAILURE'];
    verdicts = order.filter((o) => counts.has(o)).map((o) => ({ outcome: o, runs: counts.get(o)! }));
  }
  const checks: CheckResult[] = [];
  const notEvaluated: EnsembleCheckNotEvaluated[] = [];
  for (const c of spec.ensembleChecks ?? []) {
    if (c.scenarios !== '*' && !c.scenarios.includes(first.scenario.key)) continue;
    if (sorted.length < c.seeds) {
      notEvaluated.push({ name: c.name, reason: `needs an ensemble of ${c.seeds} runs; this one has ${sorted.length}` });
      continue;
    }
    checks.push(evaluateEnsembleCheck(c, sorted.slice(0, c.seeds), first.scenario.key, first.parameters));
  }
  const seeds = sorted.map((r) => r.seed);
  const inputHash = createHash('sha256')
    .update(canonicalJson({ kind: 'ensemble', engineVersion: ENGINE_VERSION, runs: sorted.map((r) => r.inputHash) }))
    .digest('hex');
  const result: ModelEnsembleResult = {
    engineVersion: ENGINE_VERSION,
    inputHash,
    model: first.model,
    scenario: first.scenario,
    mode: first.mode,
    fluidStep: first.fluidStep,
    horizon: first.horizon,
    timeOrigin: first.timeOrigin,
    parameters: first.parameters,
    seeds,
    time: first.time,
    series,
    summary,
    failure,
    verdicts,
    checks,
    notEvaluated,
    runs: sorted.map((r) => ({ seed: r.seed, inputHash: r.inputHash, failureMet: r.failure ? r.failure.met : null, onset: r.failure?.onset ?? null, verdict: r.verdict?.outcome ?? null })),
    text: '',
  };
  result.text = describeEnsemble(result);
  return result;
}
