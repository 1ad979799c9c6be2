import { performance } from 'node:perf_hooks';
import { ENGINE_VERSION } from '../engine-version';
import { ModelError, ModelErrorCode } from '../errors/model.error';
import { DEFAULT_RUN_BUDGET, type RunBudget } from '../kernel/simulation.kernel';
import { evaluateCheck, evaluateFigures, type MeasureContext } from '../output/check.evaluator';
import { evaluateFailure, judgeFix } from '../output/failure.evaluator';
import type { CheckResult, FailureEvaluation, FixVerdict, ModelRunResult, ModelSeries, StationRunStats } from '../output/model-run.types';
import { formatDuration, round6 } from '../output/number.format';
import { hashRunInputs } from '../output/run-input.hash';
import type { ControllerEventSpec, MeasureSpec, ModelSpec, ScenarioSpec } from '../spec/model-spec.types';
import { parameterConflicts, resolveParameters } from '../spec/parameter.resolver';
import { Domains, fluidStepsIssue, SCENARIO_AS_HAPPENED, validateSpec } from '../spec/model-spec.validator';
import { DEFAULT_FLUID_STEP } from '../spec/spec.limits';
import { FlowSimulation } from './flow.runtime';
import type { MetricNamespace } from './metric.catalog';
import { MetricReader } from './metric.reader';
import { checkedNow, compileValue, ParameterStore } from './value.compiler';

export interface RunModelInput {
  /** A spec object (validated here if it has not been already). */
  spec: unknown;
  /** Defaults to "as-happened". */
  scenarioKey?: string;
  /** Overrides applied on top of the scenario's own parameter values. */
  parameters?: Record<string, number>;
  seed?: number;
  /** Overrides the engine mode of the spec and of every scenario. */
  mode?: 'des' | 'fluid';
  /** Overrides the fluid step of the spec and of every scenario. */
  fluidStep?: number;
  /** Points per output series (10..500). */
  points?: number;
  /**
   * Event budget per scenario run (a ceiling: a scenario's own `engine.maxEvents` may only
   * lower it); the wall budget covers this call as a whole.
   */
  budget?: Partial<RunBudget>;
  /** Evaluate the spec's checks (may run the other scenarios they compare with). Default true. */
  checks?: boolean;
}

export { DEFAULT_FLUID_STEP } from '../spec/spec.limits';
export const DEFAULT_POINTS = 300;
/** Fine windows per output point, capped so checks read at most this many windows. */
const MAX_FINE_WINDOWS = 4000;

const validatedSpecs = new WeakSet<object>();

function ensureValid(spec: unknown): ModelSpec {
  if (typeof spec === 'object' && spec !== null && validatedSpecs.has(spec)) return spec as ModelSpec;
  const valid = validateSpec(spec);
  validatedSpecs.add(valid);
  return valid;
}

export function specNamespace(spec: ModelSpec): MetricNamespace {
  const ns: MetricNamespace = {
    stations: new Set(spec.stations.map((s) => s.key)),
    pools: new Set((spec.pools ?? []).map((p) => p.key)),
    sources: new Set(spec.sources.map((s) => s.key)),
    caches: new Set((spec.caches ?? []).map((c) => c.key)),
    edges: new Set(),
  };
  for (const s of spec.stations) {
    for (const c of s.calls ?? []) {
      if ('oneOf' in c) for (const b of c.oneOf) ns.edges.add(`${s.key}->${b.to}`);
      else ns.edges.add(`${s.key}->${c.to}`);
    }
    if (s.lookaside) ns.edges.add(`${s.key}->${s.lookaside.onMiss.to}`);
  }
  for (const s of spec.sources) ns.edges.add(`${s.key}->${s.target}`);
  return ns;
}

/** Base events minus the scenario's omissions, plus the scenario's own. */
export function scenarioEvents(spec: ModelSpec, scenario: ScenarioSpec): ControllerEventSpec[] {
  const omit = new Set(scenario.omitEvents ?? []);
  return [...(spec.events ?? []).filter((e) => !omit.has(e.key)), ...(scenario.events ?? [])];
}

function findScenario(spec: ModelSpec, key: string): ScenarioSpec {
  const s = spec.scenarios.find((x) => x.key === key);
  if (!s) {
    throw new ModelError(ModelErrorCode.UnknownScenario, `unknown scenario "${key}" (known: ${spec.scenarios.map((x) => x.key).join(', ')})`);
  }
  return s;
}

function metricNamesOf(spec: ModelSpec): string[] {
  const names: string[] = spec.probes.map((p) => p.metric);
  const add = (m: MeasureSpec | undefined): void => {
    if (m && 'metric' in m) names.push(m.metric);
  };
  for (const f of spec.figures ?? []) {
    add(f.measure);
    Object.values(f.measures ?? {}).forEach(add);
  }
  for (const c of spec.checks ?? []) {
    add(c.measure);
    Object.values(c.measures ?? {}).forEach(add);
  }
  if (spec.failure) names.push(spec.failure.metric);
  return names;
}

/** Every metric read by a probe, figure or check, with the statistic taken of it. */
function metricUses(spec: ModelSpec): Array<[string, string]> {
  const uses: Array<[string, string]> = spec.probes.map((p) => [p.metric, 'series']);
  const add = (m: MeasureSpec | undefined): void => {
    if (m && 'metric' in m) uses.push([m.metric, m.stat]);
  };
  for (const x of [...(spec.figures ?? []), ...(spec.checks ?? [])]) {
    add(x.measure);
    Object.values(x.measures ?? {}).forEach(add);
  }
  if (spec.failure) uses.push([spec.failure.metric, 'series']);
  return uses;
}

interface Settings {
  seed: number;
  mode: 'des' | 'fluid';
  fluidStep: number;
  points: number;
}

interface ScenarioRun {
  sim: FlowSimulation;
  ctx: MeasureContext;
  params: Record<string, number>;
}

function simulate(
  spec: ModelSpec,
  scenario: ScenarioSpec,
  overrides: Record<string, number>,
  settings: Settings,
  budget: RunBudget,
  ns: MetricNamespace,
  lookupFigures: (run: ScenarioRun) => Map<string, number>,
): ScenarioRun {
  const params = resolveParameters(spec, overrides, scenario.key);
  const store = new ParameterStore(spec.parameters, params);
  const horizon = checkedNow(compileValue(spec.horizon, 1, store), Domains.positive, 'horizon');
  if (settings.mode === 'fluid') {
    const issue = fluidStepsIssue(horizon, settings.fluidStep);
    if (issue) throw new ModelError(ModelErrorCode.InvalidSpec, `fluidStep: ${issue}`);
  }
  const events = scenarioEvents(spec, scenario);
  const eventTimes = new Map<string, number>();
  for (const e of events) eventTimes.set(e.key, compileValue(e.at, 0, store)());
  const stoppable = new Set<string>();
  const blackholable = new Set<string>();
  for (const e of events) {
    if (e.kind === 'stop' || e.kind === 'start') stoppable.add(e.station);
    if (e.kind === 'blackhole' || e.kind === 'restore') blackholable.add(e.station);
  }
  const bySource = new Set<string>();
  for (const name of metricNamesOf(spec)) {
    const at = name.indexOf('@');
    if (at > 0) bySource.add(`${name.slice(0, name.indexOf('.'))}@${name.slice(at + 1)}`);
  }
  const percentiles = new Set<string>();
  for (const [name, stat] of metricUses(spec)) {
    const m = /^([^.@]+)\.(latency|wait)(\.p\d+)?(@.*)?$/.exec(name);
    if (m && (m[3] !== undefined || /^p\d+$/.test(stat))) percentiles.add(`${m[1]}.${m[2]}`);
  }
  const fine = Math.max(1, Math.min(8, Math.floor(MAX_FINE_WINDOWS / settings.points)));
  const sim = new FlowSimulation({
    spec,
    params: store,
    events,
    seed: settings.seed,
    mode: settings.mode,
    step: settings.fluidStep,
    horizon,
    points: settings.points,
    fine,
    stoppable,
    blackholable,
    bySource,
    percentiles,
  });
  const reader = new MetricReader(sim, ns);
  // Only what some probe, figure or check reads is recorded (any scenario's checks may read
  // this run, so every use in the spec counts).
  for (const [name] of metricUses(spec)) reader.demand(name);
  sim.run(budget);
  let figures: Map<string, number> | null = null;
  const run: ScenarioRun = {
    sim,
    params,
    ctx: {
      scenarioKey: scenario.key,
      params,
      reader,
      eventTimes,
      horizon,
      figures: () => (figures ??= lookupFigures(run)),
    },
  };
  return run;
}

function stationStats(sim: FlowSimulation): StationRunStats[] {
  const h = sim.grid.horizon;
  const out: StationRunStats[] = [];
  for (const st of sim.stations) {
    if (st.key.includes('#')) continue;
    const s = st.stats;
    const k = st.scale;
    const timeInSystem = (s.queue.total + s.holding.total) * k;
    const openAge = (s.insideMass * h - s.insideArrivalSum) * k;
    out.push({
      key: st.key,
      arrivals: round6(s.arrivals * k) ?? 0,
      departures: round6(s.departed * k) ?? 0,
      meanInSystem: round6(timeInSystem / h) ?? 0,
      arrivalRate: round6((s.arrivals * k) / h) ?? 0,
      meanSojourn: round6(s.departed > 0 ? s.sojournSum / s.departed : 0) ?? 0,
      timeInSystem: round6(timeInSystem) ?? 0,
      sojournTotal: round6(s.sojournSum * k + openAge) ?? 0,
      inSystemAtEnd: round6(s.insideMass * k) ?? 0,
    });
  }
  return out;
}

/**
 * Runs one scenario of a model and evaluates its figures and checks. Deterministic: the
 * same spec, scenario, parameters, seed and resolution give byte-identical JSON.
 * Throws ModelSpecError, ModelParameterError, ModelError(UNKNOWN_SCENARIO) or
 * ModelRunError(EVENT_BUDGET_EXCEEDED | WALL_TIME_EXCEEDED).
 */
/** Everything that determines a run, resolved from a RunModelInput and its spec. */
function resolveRun(input: RunModelInput): {
  spec: ModelSpec;
  scenario: ScenarioSpec;
  settings: Settings;
  params: Record<string, number>;
  callerParameters: Record<string, number>;
} {
  const spec = ensureValid(input.spec);
  const scenario = findScenario(spec, input.scenarioKey ?? SCENARIO_AS_HAPPENED);
  if (input.mode !== undefined && input.mode !== 'des' && input.mode !== 'fluid') {
    throw new ModelError(ModelErrorCode.InvalidSpec, `mode: expected "des" or "fluid", got ${String(input.mode)}`);
  }
  if (input.fluidStep !== undefined && !(input.fluidStep > 0)) {
    throw new ModelError(ModelErrorCode.InvalidSpec, `fluidStep: expected a positive number of seconds, got ${String(input.fluidStep)}`);
  }
  const maxEvents = input.budget?.maxEvents;
  if (maxEvents !== undefined && !(maxEvents >= 1)) throw new ModelError(ModelErrorCode.InvalidSpec, `budget.maxEvents: expected a positive number of events, got ${String(maxEvents)}`);
  const settings = settingsFor(spec, scenario, input);
  const params = resolveParameters(spec, input.parameters ?? {}, scenario.key);
  const callerParameters = resolveParameters(spec, input.parameters ?? {});
  return { spec, scenario, settings, params, callerParameters };
}

/** Mode, step and resolution of one scenario's run: the run's own settings, then the scenario's, then the spec's. */
function settingsFor(spec: ModelSpec, scenario: ScenarioSpec, input: RunModelInput): Settings {
  const own = scenario.engine ?? {};
  return {
    seed: (input.seed ?? 1) >>> 0,
    mode: input.mode ?? own.mode ?? spec.engine.mode,
    fluidStep: input.fluidStep ?? own.fluidStep ?? spec.engine.fluidStep ?? DEFAULT_FLUID_STEP,
    points: Math.max(10, Math.min(500, Math.round(input.points ?? spec.points ?? DEFAULT_POINTS))),
  };
}

/** Event budget of one scenario's run: the scenario's or spec's own, capped by the caller's. */
function maxEventsFor(spec: ModelSpec, scenario: ScenarioSpec, input: RunModelInput): number {
  const own = scenario.engine?.maxEvents ?? spec.engine.maxEvents;
  const caller = input.budget?.maxEvents;
  if (own === undefined) return caller ?? DEFAULT_RUN_BUDGET.maxEvents;
  return caller === undefined ? own : Math.min(own, caller);
}

/**
 * The cache key of a run given a RunModelInput: resolves defaults like runModel and equals
 * the `inputHash` of its result. Validates like runModel.
 */
export function hashRunModelInput(input: RunModelInput): string {
  const { spec, scenario, settings, params, callerParameters } = resolveRun(input);
  return hashRunInputs({ spec, scenarioKey: scenario.key, parameters: params, callerParameters, ...settings });
}

export function runModel(input: RunModelInput): ModelRunResult {
  const { spec, scenario, settings, params, callerParameters } = resolveRun(input);
  const scenarioKey = scenario.key;
  const overrides = input.parameters ?? {};
  const budget: RunBudget = { ...DEFAULT_RUN_BUDGET, ...(input.budget ?? {}) };
  const deadline = performance.now() + budget.maxWallMs;
  const ns = specNamespace(spec);
  const runs = new Map<string, ScenarioRun>();

  const figuresOf = (run: ScenarioRun): Map<string, number> => {
    const list = evaluateFigures(spec.figures ?? [], run.ctx, lookup);
    return new Map(list.map((f) => [f.name, f.value ?? NaN]));
  };
  const get = (key: string): ScenarioRun => {
    const hit = runs.get(key);
    if (hit) return hit;
    const remaining = Math.max(1, deadline - performance.now());
    const sc = findScenario(spec, key);
    // Another scenario read by a check runs in its own mode unless this run forces one.
    const own = key === scenarioKey ? settings : settingsFor(spec, sc, input);
    const run = simulate(spec, sc, overrides, own, { maxEvents: maxEventsFor(spec, sc, input), maxWallMs: remaining }, ns, figuresOf);
    runs.set(key, run);
    return run;
  };
  const lookup = (key: string): MeasureContext => get(key).ctx;

  const main = get(scenarioKey);
  const sim = main.sim;
  const summary = evaluateFigures(spec.figures ?? [], main.ctx, lookup).map((f) => ({ ...f, value: f.value === null ? null : round6(f.value) }));
  const checks: CheckResult[] =
    input.checks === false
      ? []
      : (spec.checks ?? [])
          .filter((c) => c.scenarios === '*' || c.scenarios.includes(scenarioKey))
          .map((c) => {
            const r = evaluateCheck(c, main.ctx, lookup);
            return {
              ...r,
              observed: r.observed === null ? null : round6(r.observed),
              expected: {
                ...r.expected,
                value: r.expected.value === null ? null : round6(r.expected.value),
                min: r.expected.min === null ? null : round6(r.expected.min),
                max: r.expected.max === null ? null : round6(r.expected.max),
              },
            };
          });

  const g = sim.grid;
  const pointWidth = g.horizon / g.points;
  const failureOf = (run: ScenarioRun): FailureEvaluation | null => {
    if (!spec.failure) return null;
    const metric = spec.failure.metric;
    return evaluateFailure(spec.failure, run.ctx, { values: run.ctx.reader.series(metric), pointWidth: run.sim.grid.horizon / run.sim.grid.points, unit: run.ctx.reader.unit(metric) });
  };
  const failure = failureOf(main);
  let verdict: FixVerdict | null = null;
  if (failure && spec.failure && scenarioKey !== SCENARIO_AS_HAPPENED) {
    const baseline = findScenario(spec, scenario.baseline ?? SCENARIO_AS_HAPPENED);
    verdict = judgeFix(failure, failureOf(get(baseline.key))!, pointWidth, spec.failure.tolerance, { key: baseline.key, title: baseline.title });
  }
  if (failure && spec.failure && scenarioKey === SCENARIO_AS_HAPPENED && input.checks !== false) checks.push(failureCheck(spec, failure));
  const time = Array.from({ length: g.points }, (_, p) => round6((p + 0.5) * pointWidth) ?? 0);
  const series: ModelSeries[] = spec.probes.map((p) => {
    const values = main.ctx.reader.series(p.metric);
    return {
      key: p.key,
      label: p.label,
      metric: p.metric,
      unit: p.unit ?? main.ctx.reader.unit(p.metric),
      values: Array.from(values, (x) => round6(Math.abs(x) < 1e-9 ? 0 : x)),
    };
  });
  let totalEvents = 0;
  for (const r of runs.values()) totalEvents += r.sim.kernel.processed;

  return {
    engineVersion: ENGINE_VERSION,
    inputHash: hashRunInputs({ spec, scenarioKey, parameters: params, callerParameters, ...settings }),
    model: { slug: spec.slug, version: spec.version, title: spec.title },
    scenario: { key: scenario.key, title: scenario.title, description: scenario.description, actionableKey: scenario.actionableKey },
    mode: settings.mode,
    seed: settings.seed,
    fluidStep: settings.fluidStep,
    horizon: g.horizon,
    timeOrigin: spec.timeOrigin ?? null,
    parameters: params,
    time,
    series,
    summary,
    checks,
    failure,
    verdict,
    conflicts: parameterConflicts(spec, overrides, scenarioKey),
    events: sim.fired.map((e) => ({ ...e, at: round6(e.at) ?? 0 })),
    stats: {
      events: sim.kernel.processed,
      totalEvents,
      simulatedSeconds: g.horizon,
      runs: runs.size,
      stations: stationStats(sim),
    },
  };
}

/** The check every model has: its run as it happened meets its own failure criterion, as the source reports. */
export const FAILURE_CHECK = 'as-happened-meets-failure-criterion';

function failureCheck(spec: ModelSpec, failure: FailureEvaluation): CheckResult {
  const f = spec.failure!;
  const op = f.op === 'below' ? '<' : '>';
  const detail = failure.met ? `met from ${formatDuration(failure.onset!)} for ${formatDuration(failure.duration)}` : 'never met in this run';
  return {
    name: FAILURE_CHECK,
    description: `As it happened, the run meets the failure criterion: ${f.description}.`,
    scenario: SCENARIO_AS_HAPPENED,
    expected: { op, value: null, min: null, max: null, tolerance: null, absolute: false },
    expectedText: f.description,
    observed: failure.worst,
    unit: failure.unit,
    tolerance: null,
    pass: failure.met,
    explanation: failure.met ? `The criterion is ${detail}.` : `The criterion is ${detail}: the model does not reproduce the outage the source reports.`,
    kind: f.kind ?? 'reproduces',
    source: { quote: f.source.quote, place: f.source.place },
  };
}
