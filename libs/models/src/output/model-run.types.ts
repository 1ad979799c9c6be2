import type { ExpectSpec } from '../spec/model-spec.types';

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
  events: RunEvent[];
  stats: RunStats;
}
