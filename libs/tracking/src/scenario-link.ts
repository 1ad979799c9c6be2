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
  /** True when, with the fix modelled, the failure did not occur; null when the run does not say. */
  failurePrevented: boolean | null;
  summary: string | null;
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
