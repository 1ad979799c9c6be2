/**
 * The seam for the "Model" aside of an incident page. The page owns the aside and its heading;
 * a panel fills it: charts of the runs, the summary figures, the checks, the what-if form. The
 * page renders whatever the bound implementation returns, so a real panel replaces the empty
 * one through `PagesModule.register({ modelPanel, imports })` without touching page code.
 */
export interface ModelPanelRequest {
  incidentId: string;
  slug: string;
  /**
   * Fields of a what-if form submitted without JavaScript: the query parameters of
   * `GET /incidents/:slug?…` (first value per name), or null when there are none. A what-if
   * changes nothing, so the form uses `method="get"`: repeatable, open to readers, linkable from
   * a runbook. The panel picks out its own field names, validates them and shows errors next to
   * its fields.
   */
  form: Readonly<Record<string, string>> | null;
  /** Who asks (client address), counted against the quota of stored model runs; absent: not counted. */
  client?: string;
}

/** What the model says of one actionable's fix, shown beside the actionable. */
export interface ActionableVerdict {
  actionableKey: string;
  /** PREVENTED, DELAYED, REDUCED, NOT_PREVENTED or NO_FAILURE. */
  outcome: string;
  reason: string;
  /** The scenario that models the fix. */
  scenarioTitle: string;
}

export interface IncidentModelPanel {
  /**
   * HTML for the inside of the aside. It is inserted as is, so the implementation escapes what
   * it interpolates. Pages send `Content-Security-Policy: script-src 'self'`: behaviour goes in a
   * script file served by the app, never in inline scripts, `on*` attributes or `style=""`.
   */
  render(request: ModelPanelRequest): Promise<ModelPanelOutput>;
}

export interface ModelPanelOutput {
  html: string;
  /**
   * The verdict on each actionable the model can express, from its default runs (not from a
   * reader's what-if), for the page to show beside the actionables. Empty without a model.
   */
  verdicts: ActionableVerdict[];
}

export const INCIDENT_MODEL_PANEL = Symbol('INCIDENT_MODEL_PANEL');
