import type { CheckResult, FailureEvaluation, FixVerdict, ModelSeries, RunEvent, SummaryFigure } from '@hindsight/models';

export type ModelRunStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A stored run, as services return it. */
export interface ModelRunRecord {
  id: string;
  incidentId: string;
  specId: string;
  scenarioKey: string;
  inputHash: string;
  parameters: Record<string, number>;
  seed: number;
  engineVersion: string;
  specVersion: string;
  status: ModelRunStatus;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  simulatedEvents: number | null;
  summary: SummaryFigure[] | null;
  series: StoredSeries | null;
  checks: CheckResult[] | null;
  failure: FailureEvaluation | null;
  verdict: FixVerdict | null;
  error: string | null;
  /** The failure's code, e.g. `EVENT_BUDGET_EXCEEDED` (a cached answer) or `MODEL_RUN_OUT_OF_MEMORY` (run again when asked). */
  errorCode: string | null;
  /** Times the run was claimed (a lost run is reclaimed while attempts remain). */
  attempts: number;
  leaseExpiresAt: Date | null;
}

/** Series as stored: the shared time axis with every probe's values, and the scenario's events. */
export interface StoredSeries {
  time: number[];
  series: ModelSeries[];
  events: RunEvent[];
  timeOrigin: string | null;
  horizon: number;
}

export interface ModelSpecRecord {
  id: string;
  key: string;
  version: string;
  title: string;
  checksum: string;
  createdAt: Date;
}

export interface ScenarioRecord {
  id: string;
  incidentId: string;
  key: string;
  position: number;
  title: string;
  description: string;
  actionableKey: string | null;
}
