import DataLoader from 'dataloader';
import type { IncidentModelView, ModelRunsService } from './model-runs.service';
import type { ModelRunRecord } from './model-runs.types';

/** Per-request batching for `Incident.model` and each scenario's latest run. */
export class ModelLoaders {
  constructor(private readonly models: ModelRunsService) {}

  readonly model = new DataLoader<string, IncidentModelView | null>(async (incidentIds) => this.models.modelsOf(incidentIds));

  /** Keyed `incidentId:scenarioKey`. */
  readonly latestRun = new DataLoader<string, ModelRunRecord | null>(async (keys) => {
    const incidentIds = [...new Set(keys.map((k) => k.slice(0, k.indexOf(':'))))];
    const runs = await this.models.latestRuns(incidentIds);
    return keys.map((k) => runs.get(k) ?? null);
  });
}
