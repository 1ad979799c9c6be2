import type { CheckKind, ExpectSpec, SourceQuote } from '../spec/model-spec.types';

export interface ModelSeries {
  key: string;
  label: string;
  metric: string;
  unit: string;
  /** One value per entry of `ModelRunResult.time`; null where undefined (a ratio over nothing). */
  values: Array<number | null>;
}

export interface SummaryFigure {
  name: string;
  label: string;
  value: number | null;
  unit: string;
}

export interface CheckResult {
  name: string;
  description: string;
  /** Scenario the check was evaluated on. */
  scenario: string;
  expected: {
    op: ExpectSpec['op'];
    value: number | null;
    min: number | null;
    max: number | null;
    tolerance: number | null;
    absolute: boolean;
  };
  /** The expectation in words, e.g. "≈ 51,660 sessions (±2 %)". */
  expectedText: string;
  observed: number | null;
  unit: string;
  tolerance: number | null;
  pass: boolean;
  /** Why it passed, or what was observed instead and what the model leaves out. */
  explanation: string;
  /** What passing means (see CheckSpec.kind); null when the spec does not say. */
  kind: CheckKind | null;
  source: SourceQuote | null;
}

/** How one run stands against the model's failure criterion. */
export interface FailureEvaluation {
  /** The criterion in words. */
  criterion: string;
  metric: string;
  unit: string;
  met: boolean;
  /** Seconds: start of the first stretch that meets the criterion; null when not met. */
  onset: number | null;
  /** Seconds the criterion holds, summed over every qualifying stretch. */
  duration: number;
  /** The worst value of the metric while it holds (lowest for "below"); null when not met. */
  worst: number | null;
  /** How far past the threshold the worst value is, in the metric's unit (0 when not met). */
  magnitude: number;
}

/**
 * PREVENTED: the run never meets the criterion. DELAYED: it meets it later than as it happened.
 * REDUCED: it meets it as early, but shorter or less deep. NOT_PREVENTED: as early, as long and
 * as deep. NO_FAILURE: the as-happened run with the same values does not meet it either, so
 * there is nothing to prevent (a what-if that removed the failure from both).
 */
export type FixOutcome = 'PREVENTED' | 'DELAYED' | 'REDUCED' | 'NOT_PREVENTED' | 'NO_FAILURE';

/**
 * Whether a scenario's change would have prevented the failure, judged by the failure
 * criterion on its run against the as-happened run (or the scenario's baseline; same
 * parameters and seed), never by whether the scenario's own checks pass.
 */
export interface FixVerdict {
  outcome: FixOutcome;
  /** In words, with the figures it rests on. */
  reason: string;
  /** DELAYED: seconds later than as it happened. */
  delay: number | null;
  run: FailureEvaluation;
  /** The run judged against: as-happened, or the scenario's declared baseline. */
  baseline: FailureEvaluation;
  baselineScenario: string;
}

/** A requested parameter value the scenario did not apply because the scenario sets it itself. */
export interface ParameterConflict {
  parameter: string;
  requested: number;
  /** The scenario's own value, which was used. */
  applied: number;
}

export interface RunEvent {
  key: string;
  at: number;
  kind: string;
  label: string;
}

/** Per-station bookkeeping, enough to verify Little's law L = λW on any run. */
export interface StationRunStats {
  key: string;
  arrivals: number;
  departures: number;
  /** L: time-average number in the station (waiting + holding a slot). */
  meanInSystem: number;
  /** λ: arrivals per second over the run. */
  arrivalRate: number;
  /** W: mean time from arrival to departure of the requests that left. */
  meanSojourn: number;
  /** Integral of the number in the station over the run (L × horizon). */
  timeInSystem: number;
  /** Summed sojourn of the requests that left, plus the age of those still inside at the end. */
  sojournTotal: number;
  inSystemAtEnd: number;
}

export interface RunStats {
  /** Events processed by the main run. */
  events: number;
  /** Events processed including the other scenarios the checks compare with. */
  totalEvents: number;
  simulatedSeconds: number;
  /** Scenario runs performed (the main one plus those the checks compare with). */
  runs: number;
  stations: StationRunStats[];
}

export interface ModelRunResult {
  engineVersion: string;
  inputHash: string;
  model: { slug: string; version: string; title: string };
  scenario: { key: string; title: string; description: string; actionableKey: string | null };
  mode: 'des' | 'fluid';
  seed: number;
  fluidStep: number;
  horizon: number;
  timeOrigin: string | null;
  parameters: Record<string, number>;
  /** Midpoints (seconds) of the output points shared by all series. */
  time: number[];
  series: ModelSeries[];
  summary: SummaryFigure[];
  checks: CheckResult[];
  /** The run against the failure criterion; null when the model states none. */
  failure: FailureEvaluation | null;
  /** For every scenario but as-happened, when the model states a failure criterion. */
  verdict: FixVerdict | null;
  /** Requested values this scenario kept its own value for (its fix wins). */
  conflicts: ParameterConflict[];
  events: RunEvent[];
  stats: RunStats;
}
