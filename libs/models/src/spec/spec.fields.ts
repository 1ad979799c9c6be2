import type {
  BackoffSpec,
  CacheSpec,
  CallSpec,
  CheckSpec,
  ClientPolicySpec,
  ControllerEventKind,
  ControllerEventSpec,
  DistributionSpec,
  EmitSpec,
  EngineSpec,
  EnsembleCheckSpec,
  ExclusiveCallSpec,
  FailureCriterionSpec,
  ParameterProvenance,
  ParameterSpec,
  SourceQuote,
  TimeValue,
  ExpectSpec,
  FigureSpec,
  LookasideSpec,
  ModelSpec,
  MeasureSpec,
  PoolSpec,
  ProbeSpec,
  QueueSpec,
  RetryBudgetSpec,
  ScenarioSpec,
  SlowdownSpec,
  SourceSpec,
  StationSpec,
} from './model-spec.types';

/*
 * The field names the validator accepts, per block, derived from the spec's TypeScript
 * types: each list is written as a record over exactly the type's keys, so a field added to
 * (or removed from) a type without its list, or the other way round, fails to compile. The
 * order of the keys is the order the validator names them in its messages.
 */

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type Exactly<T> = { readonly [K in KeysOfUnion<T>]-?: true };

function fields<T>(record: Exactly<T>): readonly string[] {
  return Object.keys(record);
}

export const TOP_FIELDS = fields<ModelSpec>({
  schemaVersion: true,
  slug: true,
  version: true,
  title: true,
  description: true,
  timeOrigin: true,
  engine: true,
  horizon: true,
  points: true,
  parameters: true,
  pools: true,
  caches: true,
  stations: true,
  sources: true,
  events: true,
  probes: true,
  figures: true,
  checks: true,
  ensembleChecks: true,
  failure: true,
  scenarios: true,
});

export const ENGINE_FIELDS = fields<EngineSpec>({ mode: true, fluidStep: true, maxEvents: true });
export const POOL_FIELDS = fields<PoolSpec>({ key: true, title: true, slots: true, queue: true });
export const CACHE_FIELDS = fields<CacheSpec>({ key: true, title: true, nodes: true, keysPerNode: true, initialWarm: true, hitCeiling: true });
export const QUEUE_FIELDS = fields<QueueSpec>({ limit: true, dropAbandoned: true, maxWait: true });

export const STATION_FIELDS = fields<StationSpec>({
  key: true,
  title: true,
  description: true,
  slots: true,
  replicas: true,
  queue: true,
  service: true,
  serviceWork: true,
  slowdown: true,
  linger: true,
  continueAfterTimeout: true,
  errorRate: true,
  errorStatus: true,
  admit: true,
  lookaside: true,
  calls: true,
  emits: true,
});

export const DISTRIBUTION_FIELDS = fields<DistributionSpec>({ dist: true, mean: true, cv: true, min: true, max: true, k: true });
export const SLOWDOWN_FIELDS = fields<SlowdownSpec>({ kind: true, threshold: true, knee: true, factor: true });
export const LOOKASIDE_FIELDS = fields<LookasideSpec>({ cache: true, keys: true, onMiss: true, missWork: true });
export const EMIT_FIELDS = fields<EmitSpec>({ to: true, probability: true, on: true, delay: true, maxDepth: true });
export const CALL_FIELDS = fields<CallSpec>({
  to: true,
  probability: true,
  multiplicity: true,
  mode: true,
  fanOut: true,
  policy: true,
  errorMap: true,
  onError: true,
  work: true,
});
export const EXCLUSIVE_CALL_FIELDS = fields<ExclusiveCallSpec>({ oneOf: true });
export const POLICY_FIELDS = fields<ClientPolicySpec>({ timeout: true, retries: true, backoff: true, retryOn: true, retryBudget: true, concurrencyLimit: true });
export const BACKOFF_FIELDS = fields<BackoffSpec>({ kind: true, base: true, multiplier: true, max: true, jitter: true });
export const RETRY_BUDGET_FIELDS = fields<RetryBudgetSpec>({ ratio: true, minPerSecond: true, burst: true });

export const SOURCE_FIELDS = fields<SourceSpec>({
  key: true,
  title: true,
  kind: true,
  target: true,
  arrivals: true,
  rate: true,
  profile: true,
  trace: true,
  users: true,
  thinkTime: true,
  policy: true,
  work: true,
});
export const PROFILE_ENTRY_FIELDS = fields<NonNullable<SourceSpec['profile']>[number]>({ at: true, rate: true });

type EventOf<K extends ControllerEventKind> = Extract<ControllerEventSpec, { kind: K }>;
type OwnFields<K extends ControllerEventKind> = Exactly<Omit<EventOf<K>, 'key' | 'at' | 'label' | 'kind'>>;

/** Fields every controller event has, then each kind's own. */
export const EVENT_COMMON_FIELDS = ['key', 'at', 'label', 'kind'] as const satisfies ReadonlyArray<keyof ControllerEventSpec>;
export const EVENT_FIELDS: { readonly [K in ControllerEventKind]: readonly string[] } = (() => {
  const own: { [K in ControllerEventKind]: OwnFields<K> } = {
    setParameter: { parameter: true, value: true, ramp: true },
    scaleSource: { source: true, factor: true, ramp: true },
    setSlots: { station: true, slots: true, ramp: true },
    setErrorRate: { station: true, value: true },
    blackhole: { station: true },
    restore: { station: true },
    cacheFlush: { cache: true, fraction: true, over: true },
    throttle: { station: true, admit: true, ramp: true },
    stop: { station: true },
    start: { station: true },
    cancelEvents: { keys: true },
  };
  return Object.fromEntries(Object.entries(own).map(([k, v]) => [k, Object.keys(v)])) as unknown as { [K in ControllerEventKind]: readonly string[] };
})();

export const SCENARIO_FIELDS = fields<ScenarioSpec>({
  key: true,
  title: true,
  description: true,
  actionableKey: true,
  parameters: true,
  events: true,
  omitEvents: true,
  baseline: true,
  engine: true,
});
export const PROBE_FIELDS = fields<ProbeSpec>({ key: true, metric: true, label: true, unit: true });
export const FIGURE_FIELDS = fields<FigureSpec>({ name: true, label: true, unit: true, measure: true, measures: true, value: true });
export const EXPECT_FIELDS = fields<ExpectSpec>({ op: true, value: true, min: true, max: true, tolerance: true, absolute: true });

type MetricMeasure = Extract<MeasureSpec, { metric: string }>;
export const METRIC_MEASURE_FIELDS = fields<MetricMeasure>({ metric: true, stat: true, from: true, to: true, threshold: true, sustain: true, window: true, scenario: true });
export const EVENT_TIME_MEASURE_FIELDS = fields<Extract<MeasureSpec, { eventTime: string }>>({ eventTime: true, scenario: true });
export const FIGURE_MEASURE_FIELDS = fields<Extract<MeasureSpec, { figure: string }>>({ figure: true, scenario: true });

export const PARAMETER_FIELDS = fields<ParameterSpec>({ name: true, label: true, unit: true, default: true, min: true, max: true, description: true, integer: true, provenance: true });
export const SOURCE_QUOTE_FIELDS = fields<SourceQuote>({ quote: true, place: true });
/** Fields of each kind of parameter provenance ("source" adds the quote's fields). */
export const PROVENANCE_FIELDS: { readonly [K in ParameterProvenance['kind']]: readonly string[] } = {
  source: fields<Extract<ParameterProvenance, { kind: 'source' }>>({ kind: true, quote: true, place: true }),
  derived: fields<Extract<ParameterProvenance, { kind: 'derived' }>>({ kind: true, formula: true, from: true }),
  assumption: fields<Extract<ParameterProvenance, { kind: 'assumption' }>>({ kind: true, why: true }),
};
export const CHECK_FIELDS = fields<CheckSpec>({
  name: true,
  description: true,
  scenarios: true,
  measure: true,
  measures: true,
  value: true,
  expect: true,
  unit: true,
  ifFails: true,
  kind: true,
  source: true,
  fittedParameter: true,
});
export const ENSEMBLE_CHECK_FIELDS = fields<EnsembleCheckSpec>({
  name: true,
  description: true,
  scenarios: true,
  seeds: true,
  figure: true,
  stat: true,
  expect: true,
  unit: true,
  ifFails: true,
  kind: true,
  source: true,
  fittedParameter: true,
});
export const FAILURE_FIELDS = fields<FailureCriterionSpec>({
  description: true,
  metric: true,
  op: true,
  threshold: true,
  sustain: true,
  from: true,
  to: true,
  source: true,
  tolerance: true,
  kind: true,
  fittedParameter: true,
});
export const FAILURE_TOLERANCE_FIELDS = fields<NonNullable<FailureCriterionSpec['tolerance']>>({ seconds: true, relative: true });
export const EVENT_TIME_FIELDS = fields<Extract<TimeValue, { event: string }>>({ event: true, offset: true });
