import type { RunModelInput } from '../engine/model.engine';
import { ModelError, ModelErrorCode, ModelParameterError, type SpecIssue } from '../errors/model.error';
import { aggregateEnsemble, ensembleSeeds, type EnsembleRun, type ModelEnsembleResult } from '../output/ensemble';
import type { FixOutcome, ModelRunResult } from '../output/model-run.types';
import { DECIMAL, formatQuantity } from '../output/number.format';
import type { FailureCriterionSpec, ModelSpec, ParameterSpec } from '../spec/model-spec.types';
import { describeValue, KEY_PATTERN, SCENARIO_AS_HAPPENED, validateSpec } from '../spec/model-spec.validator';
import { SpecLimits } from '../spec/spec.limits';

/*
 * Questions asked of a model with many runs: seed ensembles, parameter sweeps and the search
 * for the value where the failure criterion flips. Each takes the function that performs one
 * run, so the same code runs them on the calling thread (`runModel`), in worker threads
 * (`ModelRunner.run`) or as stored, cached runs spread over queue workers (libs/model-runs).
 */

/** Performs one run; must be deterministic for the same input. A stored run serves as well as a fresh one. */
export type RunOne = (input: RunModelInput) => Promise<EnsembleRun>;

/** Runs `fn` over `items` with at most `limit` at once, keeping the order of the results. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return out;
}

function specOf(input: RunModelInput): ModelSpec {
  return validateSpec(input.spec);
}

// ---- seed ensembles --------------------------------------------------------------------------

export interface EnsembleOptions {
  /** Runs: seeds input.seed (default 1), +1, … (1..SpecLimits.ensembleSeeds). */
  seeds: number;
  /** Runs in flight at once (default 2). */
  concurrency?: number;
}

/** The scenario run once per seed, then summarised (bands, failure probability, ensemble checks). */
export async function runEnsemble(input: RunModelInput, options: EnsembleOptions, run: RunOne): Promise<ModelEnsembleResult> {
  const spec = specOf(input);
  const seeds = ensembleSeeds(input.seed ?? 1, options.seeds);
  const runs = await mapBounded(seeds, options.concurrency ?? 2, (seed) => run({ ...input, spec, seed, checks: input.checks ?? true }));
  return aggregateEnsemble(spec, runs);
}

// ---- parameter sweeps ------------------------------------------------------------------------

export interface SweepAxis {
  parameter: string;
  from: number;
  to: number;
  /** Values from `from` to `to`, evenly spaced (integer parameters rounded, repeats dropped). */
  count: number;
}

export interface SweepPoint {
  /** The swept parameters' values at this point. */
  values: Record<string, number>;
  inputHash: string | null;
  failureMet: boolean | null;
  onset: number | null;
  /** Seconds the criterion holds. */
  duration: number | null;
  worst: number | null;
  verdict: FixOutcome | null;
  /** Every figure of the model at this point. */
  figures: Record<string, number | null>;
  /** A run that could not complete (e.g. its event budget ran out): its code and message. */
  error: { code: string; message: string } | null;
}

export interface ModelSweepResult {
  model: ModelRunResult['model'];
  scenario: { key: string; title: string };
  seed: number;
  axes: Array<{ parameter: string; unit: string; values: number[] }>;
  figures: Array<{ name: string; label: string; unit: string }>;
  failureCriterion: string | null;
  points: SweepPoint[];
  /** The sweep in words: where the failure criterion is met. */
  text: string;
}

function declared(spec: ModelSpec, name: string, path: string): ParameterSpec {
  const p = spec.parameters.find((x) => x.name === name);
  if (!p) throw new ModelParameterError(name, path, `unknown parameter "${name}" (declared: ${spec.parameters.map((x) => x.name).join(', ')})`);
  return p;
}

/** A swept or searched parameter must be one the scenario does not fix itself (its own value would win). */
function checkNotFixed(spec: ModelSpec, scenarioKey: string, p: ParameterSpec, path: string): void {
  const own = spec.scenarios.find((s) => s.key === scenarioKey)?.parameters ?? {};
  if (p.name in own) {
    throw new ModelParameterError(p.name, path, `scenario "${scenarioKey}" sets ${p.name} itself (${own[p.name]} ${p.unit}), so its runs would all use that value; vary it on another scenario`);
  }
}

function checkRange(p: ParameterSpec, from: number, to: number, path: string): void {
  const allowed = { min: p.min, max: p.max, unit: p.unit };
  for (const [k, v] of [['from', from], ['to', to]] as const) {
    if (!Number.isFinite(v) || v < p.min || v > p.max) {
      throw new ModelParameterError(p.name, `${path}.${k}`, `expected a number between ${p.min} and ${p.max} ${p.unit}, got ${String(v)}`, allowed);
    }
  }
  if (!(from < to)) throw new ModelParameterError(p.name, `${path}.to`, `expected a value above from (${from}), got ${to}`, allowed);
}

export function sweepValues(p: ParameterSpec, axis: SweepAxis): number[] {
  const out: number[] = [];
  for (let i = 0; i < axis.count; i++) {
    let v = axis.count === 1 ? axis.from : axis.from + ((axis.to - axis.from) * i) / (axis.count - 1);
    v = p.integer ? Math.round(v) : Number(v.toPrecision(12));
    if (out[out.length - 1] !== v) out.push(v);
  }
  return out;
}

export interface SweepOptions {
  /** One or two parameters. */
  axes: SweepAxis[];
  concurrency?: number;
}

/** Runs the scenario at every point of a grid over one or two parameters (at most SpecLimits.sweepPoints runs). */
export async function runSweep(input: RunModelInput, options: SweepOptions, run: RunOne): Promise<ModelSweepResult> {
  const spec = specOf(input);
  const scenarioKey = input.scenarioKey ?? SCENARIO_AS_HAPPENED;
  const scenario = spec.scenarios.find((s) => s.key === scenarioKey);
  if (!scenario) throw new ModelError(ModelErrorCode.UnknownScenario, `unknown scenario "${scenarioKey}" (known: ${spec.scenarios.map((s) => s.key).join(', ')})`);
  if (options.axes.length < 1 || options.axes.length > 2) {
    throw new ModelParameterError('', 'sweep', `expected one or two parameters to sweep, got ${options.axes.length}`);
  }
  if (options.axes.length === 2 && options.axes[0]!.parameter === options.axes[1]!.parameter) {
    throw new ModelParameterError(options.axes[1]!.parameter, 'sweep[1].parameter', 'expected a second parameter, got the first one again');
  }
  const axes = options.axes.map((a, i) => {
    const path = `sweep[${i}]`;
    const p = declared(spec, a.parameter, `${path}.parameter`);
    checkNotFixed(spec, scenarioKey, p, `${path}.parameter`);
    checkRange(p, a.from, a.to, path);
    if (!Number.isInteger(a.count) || a.count < 2) throw new ModelParameterError(p.name, `${path}.count`, `expected a whole number of values >= 2, got ${String(a.count)}`);
    return { p, values: sweepValues(p, a) };
  });
  const total = axes.reduce((n, a) => n * a.values.length, 1);
  if (total > SpecLimits.sweepPoints) {
    throw new ModelParameterError(axes[0]!.p.name, 'sweep', `expected at most ${SpecLimits.sweepPoints} runs in one sweep (engine limit), got ${total} (${axes.map((a) => a.values.length).join(' × ')})`);
  }
  const grid: Array<Record<string, number>> = [];
  for (const x of axes[0]!.values) {
    if (axes.length === 1) grid.push({ [axes[0]!.p.name]: x });
    else for (const y of axes[1]!.values) grid.push({ [axes[0]!.p.name]: x, [axes[1]!.p.name]: y });
  }
  const points = await mapBounded(grid, options.concurrency ?? 2, async (values) => {
    try {
      const r = await run({ ...input, spec, scenarioKey, parameters: { ...(input.parameters ?? {}), ...values }, checks: false });
      return pointOf(values, r);
    } catch (e) {
      // A point whose run cannot complete is part of the answer; a bad request is not.
      if (e instanceof ModelError && (e.code === ModelErrorCode.EventBudgetExceeded || e.code === ModelErrorCode.WallTimeExceeded || e.code === ModelErrorCode.ResultTooLarge || e.code === ModelErrorCode.OutOfMemory)) {
        return errorPoint(values, e);
      }
      throw e;
    }
  });
  const result: ModelSweepResult = {
    model: { slug: spec.slug, version: spec.version, title: spec.title },
    scenario: { key: scenario.key, title: scenario.title },
    seed: (input.seed ?? 1) >>> 0,
    axes: axes.map((a) => ({ parameter: a.p.name, unit: a.p.unit, values: a.values })),
    figures: (spec.figures ?? []).map((f) => ({ name: f.name, label: f.label, unit: f.unit })),
    failureCriterion: spec.failure?.description ?? null,
    points,
    text: '',
  };
  result.text = describeSweep(result);
  return result;
}

function pointOf(values: Record<string, number>, r: EnsembleRun): SweepPoint {
  return {
    values,
    inputHash: r.inputHash,
    failureMet: r.failure ? r.failure.met : null,
    onset: r.failure?.onset ?? null,
    duration: r.failure ? r.failure.duration : null,
    worst: r.failure?.worst ?? null,
    verdict: r.verdict?.outcome ?? null,
    figures: Object.fromEntries(r.summary.map((f) => [f.name, f.value])),
    error: null,
  };
}

function errorPoint(values: Record<string, number>, e: ModelError): SweepPoint {
  return { values, inputHash: null, failureMet: null, onset: null, duration: null, worst: null, verdict: null, figures: {}, error: { code: e.code, message: e.message } };
}

/** Where along the sweep the failure criterion is met, in words. */
export function describeSweep(s: ModelSweepResult): string {
  if (s.failureCriterion === null) return `${s.points.length} runs; the model states no failure criterion.`;
  const q = (name: string, v: number): string => `${name} = ${formatQuantity(v, s.axes.find((a) => a.parameter === name)!.unit)}`;
  const met = s.points.filter((p) => p.failureMet === true).length;
  const failed = s.points.filter((p) => p.error).length;
  const parts = [`The failure criterion (${s.failureCriterion}) is met at ${met} of ${s.points.length} points.`];
  if (s.axes.length === 1) {
    const name = s.axes[0]!.parameter;
    const flips: string[] = [];
    for (let i = 1; i < s.points.length; i++) {
      const a = s.points[i - 1]!;
      const b = s.points[i]!;
      if (a.failureMet !== null && b.failureMet !== null && a.failureMet !== b.failureMet) {
        flips.push(`between ${q(name, a.values[name]!)} and ${q(name, b.values[name]!)} it ${b.failureMet ? 'starts' : 'stops'} being met`);
      }
    }
    if (flips.length > 0) parts.push(`${flips.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()));
  }
  if (failed > 0) parts.push(`${failed} points could not complete their run (shown as gaps).`);
  return parts.join(' ');
}

// ---- boundary search -------------------------------------------------------------------------

export interface BoundaryOptions {
  parameter: string;
  from: number;
  to: number;
  /** Stop when the bracket is this narrow (default (to − from) / 1000; 1 for integer parameters). */
  tolerance?: number;
  /**
   * Bisect on whether this named check of the scenario passes instead of on the failure
   * criterion (e.g. "a relapse follows the first relaxation").
   */
  check?: string;
  /**
   * Bisect on a summary figure of the run (a `figures[]` entry, by name) being above or below
   * a value, in the figure's unit (e.g. "peak queue above 500"). Not with `check`.
   */
  figure?: BoundaryFigure;
}

/** A figure crossing a value: what a boundary search may bisect on. */
export interface BoundaryFigure {
  name: string;
  /** Which side of `value` the figure must be on (strictly), as in a failure criterion. */
  op: FailureCriterionSpec['op'];
  /** In the figure's unit (a ratio as a share: 0.05 for 5 %). */
  value: number;
}

/**
 * Reads `name:above:value` or `name:below:value` (the CLI's `--figure` and the page's field):
 * a figure's name as the spec writes names, `above` or `below` (any case), and a number in the
 * one decimal grammar (DECIMAL). `problem` says why the text is not a target: `form` when it is
 * not of that shape, `not finite` when the number is beyond a double (`1e400`). Whether the
 * figure exists is the search's to check (`boundaryTarget`).
 */
export function parseBoundaryFigure(text: string): { figure: BoundaryFigure; problem: null } | { figure: null; problem: 'form' | 'not finite' } {
  const parts = text.trim().split(':');
  const [name = '', op = '', number = ''] = parts;
  if (parts.length !== 3 || !KEY_PATTERN.test(name) || !/^(above|below)$/i.test(op) || !DECIMAL.test(number)) return { figure: null, problem: 'form' };
  const value = Number(number);
  if (!Number.isFinite(value)) return { figure: null, problem: 'not finite' };
  return { figure: { name, op: op.toLowerCase() as BoundaryFigure['op'], value }, problem: null };
}

export interface BoundaryProbe {
  value: number;
  /** The failure criterion on this run (false when the model states none). */
  failureMet: boolean;
  /** With a check target: whether the check passed on this run; otherwise null. */
  checkPassed: boolean | null;
  /** With a figure target: the figure's value on this run (null when undefined); otherwise null. */
  figureValue: number | null;
  verdict: FixOutcome | null;
  inputHash: string;
}

export interface ModelBoundaryResult {
  model: ModelRunResult['model'];
  scenario: { key: string; title: string };
  seed: number;
  parameter: string;
  unit: string;
  /** The model's failure criterion in words ('' when it states none and a check or a figure is the target). */
  failureCriterion: string;
  /** What is bisected on: the failure criterion, a named check passing, or a figure beyond a value. */
  target: BoundaryTarget;
  /**
   * Whether the target holds at `from` and at `to`: the criterion is met, the check passes, or
   * the figure is beyond the value (an undefined figure is not; the text then says it is undefined).
   */
  metAtFrom: boolean;
  metAtTo: boolean;
  /** Null when both ends agree (no flip in the range). */
  boundary: { below: number; above: number; estimate: number } | null;
  /** Every run of the search, in the order made. */
  probes: BoundaryProbe[];
  /** The answer in words, e.g. "below a keep-alive of 7.3 s the failure criterion is never met". */
  text: string;
}

/**
 * Bisection on the failure criterion: finds, within [from, to], the value of one parameter
 * where the scenario's run stops (or starts) meeting the model's failure criterion. Assumes one
 * flip in the range; a sweep shows whether there are more. At most SpecLimits.boundaryRuns runs.
 */
export async function findBoundary(input: RunModelInput, options: BoundaryOptions, run: RunOne): Promise<ModelBoundaryResult> {
  const spec = specOf(input);
  const scenarioKey = input.scenarioKey ?? SCENARIO_AS_HAPPENED;
  const scenario = spec.scenarios.find((s) => s.key === scenarioKey);
  if (!scenario) throw new ModelError(ModelErrorCode.UnknownScenario, `unknown scenario "${scenarioKey}" (known: ${spec.scenarios.map((s) => s.key).join(', ')})`);
  const t = boundaryTarget(spec, scenarioKey, options);
  if (t.issue) throw new ModelError(ModelErrorCode.InvalidSpec, `${t.issue.path}: ${t.issue.reason}`);
  const { check, figure } = t.target;
  if (!check && !figure && !spec.failure) {
    throw new ModelError(ModelErrorCode.InvalidSpec, `boundary: model "${spec.slug}" states no failure criterion to search on; name a check or a figure to search on instead`);
  }
  const p = declared(spec, options.parameter, 'boundary.parameter');
  checkNotFixed(spec, scenarioKey, p, 'boundary.parameter');
  checkRange(p, options.from, options.to, 'boundary');
  const minWidth = p.integer ? 1 : (options.to - options.from) / 1000;
  const tolerance = options.tolerance ?? minWidth;
  if (!(tolerance > 0) || !Number.isFinite(tolerance)) throw new ModelParameterError(p.name, 'boundary.tolerance', `expected a positive width, got ${String(tolerance)}`);
  const probes: BoundaryProbe[] = [];
  const probe = async (value: number): Promise<boolean> => {
    if (probes.length >= SpecLimits.boundaryRuns) {
      throw new ModelParameterError(p.name, 'boundary', `the search needs more than ${SpecLimits.boundaryRuns} runs (engine limit); give a wider tolerance`);
    }
    const r = await run({ ...input, spec, scenarioKey, parameters: { ...(input.parameters ?? {}), [p.name]: value }, checks: check !== null });
    const met = r.failure?.met === true;
    let passed: boolean | null = null;
    if (check) {
      const result = r.checks?.find((c) => c.name === check.name && c.scenario === scenarioKey);
      if (!result) throw new ModelError(ModelErrorCode.InvalidSpec, `boundary.check: the run of scenario "${scenarioKey}" at ${p.name} = ${value} has no result for check "${check.name}"`);
      passed = result.pass;
    }
    let figureValue: number | null = null;
    if (figure) {
      const f = r.summary.find((x) => x.name === figure.name);
      if (!f) throw new ModelError(ModelErrorCode.InvalidSpec, `boundary.figure: the run of scenario "${scenarioKey}" at ${p.name} = ${value} has no figure "${figure.name}"`);
      figureValue = f.value;
    }
    probes.push({ value, failureMet: met, checkPassed: passed, figureValue, verdict: r.verdict?.outcome ?? null, inputHash: r.inputHash });
    if (figure) return figureBeyond(figure, figureValue);
    return passed ?? met;
  };
  let lo = options.from;
  let hi = options.to;
  const metAtFrom = await probe(lo);
  const metAtTo = await probe(hi);
  let boundary: ModelBoundaryResult['boundary'] = null;
  if (metAtFrom !== metAtTo) {
    while (hi - lo > tolerance) {
      let mid = lo + (hi - lo) / 2;
      if (p.integer) mid = Math.floor(mid);
      if (mid <= lo || mid >= hi) break;
      if ((await probe(mid)) === metAtFrom) lo = mid;
      else hi = mid;
    }
    boundary = { below: lo, above: hi, estimate: p.integer ? hi : Number(((lo + hi) / 2).toPrecision(6)) };
  }
  const result: ModelBoundaryResult = {
    model: { slug: spec.slug, version: spec.version, title: spec.title },
    scenario: { key: scenario.key, title: scenario.title },
    seed: (input.seed ?? 1) >>> 0,
    parameter: p.name,
    unit: p.unit,
    failureCriterion: spec.failure?.description ?? '',
    target: t.target,
    metAtFrom,
    metAtTo,
    boundary,
    probes,
    text: '',
  };
  result.text = describeBoundary(result, p);
  return result;
}

/** What a boundary search bisects on: the failure criterion, a named check passing, or a figure beyond a value. */
export interface BoundaryTarget {
  kind: 'failure' | 'check' | 'figure';
  check: { name: string; description: string } | null;
  figure: (BoundaryFigure & { label: string; unit: string }) | null;
}

/**
 * The target of a boundary search, checked against the model: a check evaluated on the scenario
 * searched, or a declared figure with "above" or "below" and a finite value, not both; neither
 * is the failure criterion. Each is checked on its own first, in that order, then the two
 * together. This is the one check of a search's target: findBoundary, GraphQL and the page all
 * refuse with its `issue`, whose `path` names the option (`boundary.check`, `boundary.figure`,
 * `boundary.figure.name`, `boundary.figure.op`, `boundary.figure.value`). Whether the model
 * states a failure criterion is findBoundary's to check.
 */
export function boundaryTarget(
  spec: ModelSpec,
  scenarioKey: string,
  options: { check?: string | null; figure?: BoundaryFigure | null },
): { target: BoundaryTarget; issue: null } | { target: null; issue: SpecIssue } {
  const refuse = (path: string, reason: string) => ({ target: null, issue: { path, reason } });
  // Each value on its own first (so a bad one is named by its own field), then the two together.
  let check: BoundaryTarget['check'] = null;
  if (options.check != null) {
    const c = (spec.checks ?? []).find((x) => x.name === options.check);
    if (!c) return refuse('boundary.check', `unknown check ${describeValue(options.check)} (known: ${(spec.checks ?? []).map((x) => x.name).join(', ') || 'none'})`);
    if (c.scenarios !== '*' && !c.scenarios.includes(scenarioKey)) {
      return refuse('boundary.check', `check "${c.name}" is evaluated on ${c.scenarios.join(', ')}, not on scenario "${scenarioKey}"`);
    }
    check = { name: c.name, description: c.description };
  }
  const wanted = options.figure ?? null;
  if (wanted === null) return { target: { kind: check ? 'check' : 'failure', check, figure: null }, issue: null };
  const figures = spec.figures ?? [];
  const f = figures.find((x) => x.name === wanted.name);
  if (!f) return refuse('boundary.figure.name', `unknown figure ${describeValue(wanted.name)} (known: ${figures.map((x) => x.name).join(', ') || 'none'})`);
  if (wanted.op !== 'above' && wanted.op !== 'below') return refuse('boundary.figure.op', `expected "above" or "below", got ${describeValue(wanted.op)}`);
  if (typeof wanted.value !== 'number' || !Number.isFinite(wanted.value)) {
    return refuse('boundary.figure.value', `expected a finite number in the figure's unit (${f.unit}), got ${describeValue(wanted.value)}`);
  }
  if (check) return refuse('boundary.figure', 'search on a check or on a figure, not both');
  return { target: { kind: 'figure', check: null, figure: { name: f.name, op: wanted.op, value: wanted.value, label: f.label, unit: f.unit } }, issue: null };
}

/**
 * Whether a figure's value is beyond the target's (strictly). An undefined figure is not, so a
 * search between runs where it is undefined and runs where it is beyond finds where it gets a
 * value; describeBoundary says so rather than calling it "not above".
 */
function figureBeyond(target: BoundaryFigure, value: number | null): boolean {
  if (value === null) return false;
  return target.op === 'above' ? value > target.value : value < target.value;
}

/** What a figure target's text says of runs where the figure has no value. */
const UNDEFINED_FIGURE = 'is undefined (it has no value, e.g. the event it times never happens)';

/** The boundary in words. */
export function describeBoundary(b: ModelBoundaryResult, p?: Pick<ParameterSpec, 'description'>): string {
  const q = (v: number): string => formatQuantity(v, b.unit);
  const check = b.target.check;
  const figure = b.target.figure;
  const what = p?.description ? ` (${b.parameter}: ${p.description.replace(/\.$/, '')})` : '';
  const subject = check
    ? `the check "${check.name}" (${check.description.replace(/\.$/, '')})`
    : figure
      ? `the figure "${figure.name}" (${figure.label.replace(/\.$/, '')})`
      : `the failure criterion (${b.failureCriterion})`;
  const limit = figure ? `${figure.op} ${formatQuantity(figure.value, figure.unit)}` : '';
  /**
   * The target on some runs. A figure that is not beyond the value may be undefined on some of
   * them: never "not above" then, but undefined, with how many of the runs when they are mixed.
   */
  const state = (holds: boolean, always: boolean, runs: readonly BoundaryProbe[]): string => {
    if (check) return holds ? 'passes' : 'fails';
    if (figure) {
      if (holds) return `is ${limit}`;
      const undefinedRuns = runs.filter((r) => r.figureValue === null).length;
      if (undefinedRuns === 0) return `is not ${limit}`;
      if (undefinedRuns === runs.length) return UNDEFINED_FIGURE;
      return `is not ${limit} where it has a value (it is undefined on ${undefinedRuns} of those ${runs.length} runs, e.g. the event it times never happens)`;
    }
    return holds ? 'is met' : always ? 'is never met' : 'is not met';
  };
  if (!b.boundary) {
    const [first, last] = [b.probes[0]!, b.probes[1]!];
    const ends = `${q(first.value)} and ${q(last.value)}`;
    if (figure && (first.figureValue === null) !== (last.figureValue === null)) {
      // Neither end is beyond the value, for different reasons: say which end is which.
      return `No flip between ${ends}: ${subject} ${state(b.metAtFrom, false, [first])} at ${q(first.value)} and ${state(b.metAtTo, false, [last])} at ${q(last.value)}, so it is beyond the value at neither end of the range of ${b.parameter}. Bisection looks for one change, so a flip back and forth inside the range would go unseen; a sweep shows it.${what}`;
    }
    return `No flip between ${ends}: ${subject} ${state(b.metAtFrom, false, [first, last])} at both ends of the range of ${b.parameter}. Bisection looks for one change, so a flip back and forth inside the range would go unseen; a sweep shows it.${what}`;
  }
  const { below, above } = b.boundary;
  const fromSide = b.probes.filter((x) => x.value <= below);
  const toSide = b.probes.filter((x) => x.value >= above);
  // Next to the flip the figure is undefined on one side: the search found where it gets a value.
  const edges = [fromSide.find((x) => x.value === below), toSide.find((x) => x.value === above)];
  const defined =
    figure && edges.some((x) => x !== undefined && x.figureValue === null)
      ? ` So this is where the figure gets a value (one already ${limit}), not where a value of it crosses ${formatQuantity(figure.value, figure.unit)}.`
      : '';
  return `Below ${b.parameter} = ${q(below)} ${subject} ${state(b.metAtFrom, true, fromSide)}; from ${q(above)} on it ${state(b.metAtTo, true, toSide)} (the flip lies between ${q(below)} and ${q(above)}; ${b.probes.length} runs with seed ${b.seed}, assuming one flip in the range).${defined}${what}`;
}
