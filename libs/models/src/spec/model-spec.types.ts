/**
 * The JSON form of an executable failure model. A model is data: every block below is
 * interpreted by the engine, so a new incident needs a new spec, not new code.
 *
 * Numeric fields take a {@link NumberValue}: a literal, a reference to a declared
 * parameter (`{"param": "keepAliveSeconds"}`) or an arithmetic expression over
 * parameters (`{"expr": "rate * share"}`). References are re-read while the model runs,
 * so a `setParameter` event (a config change) reaches every field that uses the parameter.
 */

export type NumberValue = number | { param: string } | { expr: string };

/** A point in simulated time: seconds, a parameter/expression, or relative to a scenario event. */
export type TimeValue = NumberValue | { event: string; offset?: number };

export interface ParameterSpec {
  name: string;
  /** What a reader calls it ("HAProxy session cap"); pages fall back to the name read as words. */
  label?: string;
  unit: string;
  default: number;
  min: number;
  max: number;
  description: string;
  /** Only whole numbers are accepted (slot counts, retry counts). */
  integer?: boolean;
  /** Where the default comes from: a figure of the source, a derivation, or an assumption. */
  provenance?: ParameterProvenance;
}

/** A passage of the incident's source document: its words, and where they stand in it. */
export interface SourceQuote {
  quote: string;
  /** Where in the source, e.g. "timeline, 31 March, 13:46:13" or "third paragraph". */
  place: string;
}

/**
 * Where a parameter's value comes from. Only `source` values are facts of the incident;
 * `derived` values are as good as the figures they are computed from; `assumption`s are the
 * modeller's choice and say why.
 */
export type ParameterProvenance =
  | ({ kind: 'source' } & SourceQuote)
  | { kind: 'derived'; formula: string; from?: SourceQuote[] }
  | { kind: 'assumption'; why: string };

export type CheckKind = 'reproduces' | 'fitted' | 'construction';

/**
 * The condition that makes a run an outage: `metric` beyond `threshold` for at least `sustain`
 * seconds, read on the run's output series (the values the charts draw).
 */
export interface FailureCriterionSpec {
  /** In words, e.g. "page connection success below 90 % for more than 30 s". */
  description: string;
  metric: string;
  op: 'below' | 'above';
  threshold: NumberValue;
  /** Seconds the condition must hold without a break to count (default 0: one output point). */
  sustain?: number;
  /** Window searched (default the whole run). */
  from?: TimeValue;
  to?: TimeValue;
  /** The source's own statement that the failure happened. */
  source: SourceQuote;
  /**
   * What the as-happened run meeting the criterion shows (see CheckSpec.kind). Default
   * `reproduces`; say `construction` when the inputs' arithmetic already implies the failure
   * (demand over a cap), `fitted` when a parameter was chosen to bring it about.
   */
  kind?: CheckKind;
  fittedParameter?: string;
  /**
   * How much later (seconds) or smaller (relative) a fix's failure must be to count as delayed
   * or reduced rather than not prevented. Defaults: two output points, 10 %.
   */
  tolerance?: { seconds?: number; relative?: number };
}

export type DistributionKind = 'deterministic' | 'exponential' | 'lognormal' | 'uniform' | 'erlang';

export interface DistributionSpec {
  dist: DistributionKind;
  /** Mean in seconds (all kinds but uniform). */
  mean?: NumberValue;
  /** Coefficient of variation (lognormal). */
  cv?: NumberValue;
  /** Bounds (uniform). */
  min?: NumberValue;
  max?: NumberValue;
  /** Number of phases (erlang). */
  k?: number;
}

/** A bare number or parameter means a deterministic duration. */
export type DurationSpec = NumberValue | DistributionSpec;

export type SlowdownSpec =
  | { kind: 'utilisation'; threshold: NumberValue; factor: NumberValue }
  | { kind: 'concurrency'; knee: NumberValue; factor: NumberValue };

export interface BackoffSpec {
  kind: 'none' | 'constant' | 'exponential';
  base?: NumberValue;
  multiplier?: NumberValue;
  max?: NumberValue;
  jitter?: 'none' | 'full' | 'equal';
}

/** Token bucket: each first attempt earns `ratio` tokens, each retry spends one. */
export interface RetryBudgetSpec {
  ratio: NumberValue;
  /** Tokens earned per second regardless of traffic. */
  minPerSecond?: NumberValue;
  /** Bucket size. */
  burst?: NumberValue;
}

export type RetryCondition = '5xx' | '4xx' | 'timeout' | 'shed' | number;

export interface ClientPolicySpec {
  /** Per-attempt timeout in seconds; 0 or absent means the caller waits forever. */
  timeout?: NumberValue;
  retries?: NumberValue;
  backoff?: BackoffSpec;
  retryOn?: RetryCondition[];
  retryBudget?: RetryBudgetSpec;
  /** At most this many attempts in flight on this edge; the rest wait their turn. */
  concurrencyLimit?: NumberValue;
}

export interface CallSpec {
  to: string;
  /** Share of visits that make this call at all. */
  probability?: NumberValue;
  /** Number of calls made per visit (redirect repeats, N+1 queries). */
  multiplicity?: NumberValue;
  /** Sequential calls wait for each other; parallel calls are issued together and joined. */
  mode?: 'sequential' | 'parallel';
  /**
   * For a replicated target: one replica per call, every replica (a scatter that waits for
   * all of them), or a number of replicas (1 = one, the replica count = all).
   */
  fanOut?: 'one' | 'all' | NumberValue;
  policy?: ClientPolicySpec;
  /** Status seen by the caller for a given child status, e.g. {"400": 500}. */
  errorMap?: Record<string, number>;
  /** A failed call fails the visit (default) or is ignored (the page renders without it). */
  onError?: 'fail' | 'ignore';
  /** Work units carried by the child request (scales the child's per-unit service time). */
  work?: NumberValue;
}

/**
 * An exclusive branch: at this point of the visit exactly one of the calls is made, branch k
 * with its `probability` (the shares add up to at most 1; the rest makes none of them).
 */
export interface ExclusiveCallSpec {
  oneOf: Array<CallSpec & { probability: NumberValue }>;
}

export interface EmitSpec {
  to: string;
  probability?: NumberValue;
  on?: 'success' | 'failure' | 'any';
  /** Seconds between the completion and the new arrival (event bus latency). */
  delay?: NumberValue;
  /** Emitted arrivals deeper than this in the emit chain are discarded (a loop guard). */
  maxDepth?: NumberValue;
}

export interface LookasideSpec {
  cache: string;
  /** Keys looked up per visit. */
  keys: NumberValue;
  /** Made when at least one key misses; fills the missing keys only if it succeeds. */
  onMiss: CallSpec;
  /**
   * Work units of the miss call: the number of missing keys, or every key of the visit; a
   * number picks between them (1 = all keys, 0 = missing keys only).
   */
  missWork?: 'missing' | 'all' | NumberValue;
}

export interface QueueSpec {
  /** Maximum waiting requests; beyond it arrivals are shed (503). Absent: unbounded. */
  limit?: NumberValue;
  /** Drop a waiting request whose caller has already given up, instead of serving it. */
  dropAbandoned?: boolean;
  /** Shed a request that waited longer than this many seconds. */
  maxWait?: NumberValue;
}

export interface StationSpec {
  key: string;
  title?: string;
  description?: string;
  /** Concurrent slots (threads, processes, sessions); null means unlimited; or a shared pool. */
  slots?: NumberValue | null | { pool: string };
  /** Identical instances (shards); calls reach one of them or all of them (fanOut). */
  replicas?: number;
  queue?: QueueSpec;
  service?: DurationSpec;
  /** Extra service seconds per work unit carried by the request. */
  serviceWork?: NumberValue;
  slowdown?: SlowdownSpec;
  /** The slot stays held this long after the response (keep-alive). */
  linger?: DurationSpec;
  /** When false, a request whose caller timed out stops at the next step instead of making its calls. */
  continueAfterTimeout?: boolean;
  /** Share of visits that fail on their own after their calls, with `errorStatus`. */
  errorRate?: NumberValue;
  errorStatus?: number;
  /** Share of arrivals admitted (a throttle); the rest are rejected with 429. */
  admit?: NumberValue;
  lookaside?: LookasideSpec;
  /** Made in order; an entry with `oneOf` makes one of its calls (an exclusive branch). */
  calls?: Array<CallSpec | ExclusiveCallSpec>;
  emits?: EmitSpec[];
}

export interface PoolSpec {
  key: string;
  title?: string;
  slots: NumberValue | null;
  queue?: QueueSpec;
}

export interface CacheSpec {
  key: string;
  title?: string;
  /** Nodes the key space is partitioned across (consistent hashing). */
  nodes: number;
  keysPerNode: NumberValue;
  /** Warm fraction of every node at t = 0. */
  initialWarm?: NumberValue;
  /** Hit probability of a warm key (the rest are misses no fill can prevent). */
  hitCeiling?: NumberValue;
}

export interface SourceSpec {
  key: string;
  title?: string;
  kind: 'open' | 'closed';
  target: string;
  /** Open sources: Poisson or evenly spaced arrivals. */
  arrivals?: 'poisson' | 'constant';
  rate?: NumberValue;
  /** Piecewise-constant rate: each entry holds from `at` until the next one. */
  profile?: Array<{ at: NumberValue; rate: NumberValue }>;
  /** Explicit arrival times in seconds. */
  trace?: number[];
  /** Closed sources: a population that waits for each answer, then thinks. */
  users?: NumberValue;
  thinkTime?: DurationSpec;
  policy?: ClientPolicySpec;
  work?: NumberValue;
}

export type ControllerEventSpec = {
  key: string;
  at: NumberValue;
  label: string;
} & (
  | { kind: 'setParameter'; parameter: string; value: NumberValue; ramp?: NumberValue }
  | { kind: 'scaleSource'; source: string; factor: NumberValue; ramp?: NumberValue }
  | { kind: 'setSlots'; station: string; slots: NumberValue; ramp?: NumberValue }
  | { kind: 'setErrorRate'; station: string; value: NumberValue }
  | { kind: 'blackhole'; station: string }
  | { kind: 'restore'; station: string }
  | { kind: 'cacheFlush'; cache: string; fraction: NumberValue; over?: NumberValue }
  | { kind: 'throttle'; station: string; admit: NumberValue; ramp?: NumberValue }
  | { kind: 'stop'; station: string }
  | { kind: 'start'; station: string }
  | { kind: 'cancelEvents'; keys: string[] }
);

export type ControllerEventKind = ControllerEventSpec['kind'];

export interface ProbeSpec {
  key: string;
  /** Metric name, e.g. `haproxy.concurrency`, `boots.successRatio`, `gdm.hitRatio`. */
  metric: string;
  label: string;
  /** Overrides the metric's natural unit (e.g. "sessions" instead of "slots"). */
  unit?: string;
}

export type StatName =
  | 'mean'
  | 'max'
  | 'min'
  | 'first'
  | 'last'
  | 'at'
  | 'integral'
  | 'logSlope'
  | 'firstTimeAbove'
  | 'firstTimeBelow'
  | 'p50'
  | 'p90'
  | 'p95'
  | 'p99';

export type MeasureSpec =
  | {
      metric: string;
      stat: StatName;
      from?: TimeValue;
      to?: TimeValue;
      threshold?: NumberValue;
      /** For firstTime*: the condition must hold this many seconds. */
      sustain?: number;
      /**
       * For firstTime*: seconds of the moving window the metric is averaged over before it
       * is compared with the threshold (default: one output point, horizon / points).
       */
      window?: number;
      scenario?: string;
    }
  | { eventTime: string; scenario?: string }
  | { figure: string; scenario?: string };

export interface ExpectSpec {
  op: 'approx' | '>=' | '<=' | '>' | '<' | 'between';
  /** Number, parameter, or an expression over parameters and measures. */
  value?: NumberValue | string;
  min?: NumberValue | string;
  max?: NumberValue | string;
  /** For approx: allowed deviation, relative (0.05 = 5 %) unless `absolute` is set. */
  tolerance?: number;
  absolute?: boolean;
}

export interface FigureSpec {
  name: string;
  label: string;
  unit: string;
  measure?: MeasureSpec;
  measures?: Record<string, MeasureSpec>;
  /** Expression over measure names and parameters. */
  value?: string;
}

export interface CheckSpec {
  name: string;
  description: string;
  /** Scenario keys the check is evaluated on, or "*" for all. */
  scenarios: string[] | '*';
  measure?: MeasureSpec;
  measures?: Record<string, MeasureSpec>;
  value?: string;
  expect: ExpectSpec;
  unit: string;
  /** Shown when the check fails: what the model leaves out, in plain words. */
  ifFails?: string;
  /**
   * What passing means: `reproduces` a figure of the source the model was not fitted to (the
   * only kind that is evidence), `fitted` (a parameter was chosen so that it passes), or
   * `construction` (it follows from the inputs' arithmetic). Unlabelled checks are not evidence.
   */
  kind?: CheckKind;
  /** The source figure reproduced (required for `reproduces`), or the one fitted to. */
  source?: SourceQuote;
  /** For `fitted`: the parameter chosen so the check passes. */
  fittedParameter?: string;
}

/** A statistic over the runs of a seed ensemble. */
export type EnsembleStat = 'mean' | 'sd' | 'min' | 'max' | 'p10' | 'p50' | 'p90';

/**
 * A check over a seed ensemble: the same scenario run with `seeds` consecutive seeds, e.g.
 * "mean goodput over 20 runs" (`figure` + `stat: "mean"`) or "the failure criterion is met in
 * at least 60 % of runs" (`stat: "failureProbability"`, `expect: { op: ">=", value: 0.6 }`).
 * Evaluated by an ensemble of at least `seeds` runs, over its first `seeds` runs.
 */
export interface EnsembleCheckSpec {
  name: string;
  description: string;
  scenarios: string[] | '*';
  /** Runs the check is about (2..SpecLimits.ensembleSeeds). */
  seeds: number;
  /** A figure of the spec, taken in every run (required unless `stat` is failureProbability). */
  figure?: string;
  /** The statistic of the figure over the runs, or the share of runs meeting the failure criterion. */
  stat: EnsembleStat | 'failureProbability';
  /** Bounds are numbers, parameters or expressions over parameters. */
  expect: ExpectSpec;
  unit: string;
  ifFails?: string;
  kind?: CheckKind;
  source?: SourceQuote;
  fittedParameter?: string;
}

export interface ScenarioSpec {
  key: string;
  title: string;
  description: string;
  /** Stable key of the actionable this scenario switches on; null for the as-happened run and what-ifs. */
  actionableKey: string | null;
  parameters?: Record<string, number>;
  events?: ControllerEventSpec[];
  /** Keys of base events this scenario leaves out. */
  omitEvents?: string[];
  /**
   * The scenario whose failure this one's change is judged against (default "as-happened"),
   * for a fix of a failure the as-happened run does not show, e.g. a fix tried in a what-if.
   */
  baseline?: string;
  /** This scenario's own engine mode, fluid step or event budget (a run's own settings win). */
  engine?: Partial<EngineSpec>;
}

export interface EngineSpec {
  mode: 'des' | 'fluid';
  /** Fluid mode: seconds per arrival batch and per admission tick. */
  fluidStep?: number;
  /** Event budget of one run (at most the caller's budget when it gives one). */
  maxEvents?: number;
}

export interface ModelSpec {
  schemaVersion: 1;
  slug: string;
  version: string;
  title: string;
  description: string;
  /** Wall-clock instant of t = 0, for display only. */
  timeOrigin?: string;
  engine: EngineSpec;
  horizon: NumberValue;
  /** Points per series (at most 500). */
  points?: number;
  parameters: ParameterSpec[];
  pools?: PoolSpec[];
  caches?: CacheSpec[];
  stations: StationSpec[];
  sources: SourceSpec[];
  events?: ControllerEventSpec[];
  probes: ProbeSpec[];
  figures?: FigureSpec[];
  checks?: CheckSpec[];
  /** Checks over seed ensembles (see EnsembleCheckSpec). */
  ensembleChecks?: EnsembleCheckSpec[];
  /** What makes a run an outage; fix scenarios are judged against it. */
  failure?: FailureCriterionSpec;
  scenarios: ScenarioSpec[];
}
