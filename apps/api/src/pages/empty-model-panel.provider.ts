import { Injectable } from '@nestjs/common';
import type { IncidentModelPanel, ModelPanelOutput } from './incident-model-panel.token';

/** Until an incident has an executable model, the aside says so plainly rather than hiding. */
@Injectable()
export class EmptyModelPanel implements IncidentModelPanel {
  async render(): Promise<ModelPanelOutput> {
    return { html: '<p class="model-empty">No model is attached to this incident yet.</p>', verdicts: [] };
  }
}
