/**
 * The seam between tracking and the executable models. An actionable can be tied to a model
 * scenario that reproduces its incident; the scenario's latest run tells a reviewer whether the
 * fix would have prevented the failure. The models library owns scenarios and runs, so tracking
 * only asks, through this interface, and never imports the models' code or tables.
 *
 * Until an implementation is bound under `SCENARIO_LINK`, `NoScenarioLink` answers "no scenario"
 * for every actionable, and the GraphQL fields are null.
 */
export interface LinkedScenario {
  id: string;
  key: string;
  name: string;
}

export interface LinkedScenarioRun {
  id: string;
  scenarioId: string;
  /** Null while the run is queued or running. */
  finishedAt: Date | null;
  /** The models library's run status, e.g. `succeeded` or `failed`. */
  status: string;
  /**
   * True when the verdict is PREVENTED, false when DELAYED, REDUCED or NOT_PREVENTED; null
   * while the run has no verdict (queued, failed, a model without a failure criterion) or when
   * there was nothing to prevent. Derived from `verdict`.
   */
  failurePrevented: boolean | null;
  /** The models library's verdict on the fix; null when the run has none. */
  verdict: LinkedVerdict | null;
  summary: string | null;
}

/** A run against its model's failure criterion (the models library's FailureEvaluation, structurally). */
export interface LinkedFailure {
  criterion: string;
  metric: string;
  unit: string;
  met: boolean;
  onset: number | null;
  duration: number;
  worst: number | null;
  magnitude: number;
}

export interface LinkedVerdict {
  /** PREVENTED, DELAYED, REDUCED, NOT_PREVENTED or NO_FAILURE. */
  outcome: string;
  reason: string;
  delaySeconds: number | null;
  run: LinkedFailure;
  baseline: LinkedFailure;
  baselineScenario: string;
}

export interface ScenarioLink {
  /** Same length and order as `actionableIds`; null where an actionable has no scenario. */
  scenariosFor(actionableIds: readonly string[]): Promise<(LinkedScenario | null)[]>;
  /** Same length and order as `actionableIds`; null where there is no scenario or no run yet. */
  latestRunsFor(actionableIds: readonly string[]): Promise<(LinkedScenarioRun | null)[]>;
}

export const SCENARIO_LINK = Symbol('SCENARIO_LINK');

export class NoScenarioLink implements ScenarioLink {
  async scenariosFor(actionableIds: readonly string[]): Promise<(LinkedScenario | null)[]> {
    return actionableIds.map(() => null);
  }

  async latestRunsFor(actionableIds: readonly string[]): Promise<(LinkedScenarioRun | null)[]> {
    return actionableIds.map(() => null);
  }
}
