import type { ModelRunRecord } from '@hindsight/model-runs';
import type { WhatIfForm, WhatIfParameter } from './what-if-form.parser';

/** The parts of a stored run the panel shows. */
export type PanelRun = Pick<ModelRunRecord, 'status' | 'error' | 'summary' | 'checks' | 'series' | 'parameters'> & Partial<Pick<ModelRunRecord, 'verdict' | 'failure'>>;

export interface PanelScenario {
  key: string;
  title: string;
  description: string;
  /** The run as it happened, drawn first and solid. */
  asHappened: boolean;
  /** The actionable this scenario switches on; `title` is null when the incident has no such actionable. */
  actionable: { key: string; title: string | null } | null;
  /** Null when there is no run to show; `problem` then says why. */
  run: PanelRun | null;
  problem: string | null;
  /** What-if values this scenario did not apply because it sets the parameter itself (`value`, its fix). */
  keeps: { name: string; value: number; requested: number; unit: string }[];
}

export interface PanelProbe {
  key: string;
  label: string;
  unit: string;
}

export type PanelMode =
  /** The stored runs with the incident's default values. */
  | 'default'
  /** Runs with the reader's values. */
  | 'what-if'
  /** The reader's values were refused: stored default runs only, errors next to the fields. */
  | 'refused';

export interface ModelPanelModel {
  slug: string;
  title: string;
  description: string;
  mode: PanelMode;
  parameters: WhatIfParameter[];
  form: WhatIfForm;
  /** The scenarios other than the run as it happened, for the form's choice of what to draw. */
  choices: { key: string; title: string }[];
  /** The scenarios drawn, the run as it happened first. */
  scenarios: PanelScenario[];
  /** The measures charted, in the model's order. */
  probes: PanelProbe[];
  horizon: number;
  timeOrigin: string | null;
  /** Set when the model workers refused work: said plainly instead of an error page. */
  busy: string | null;
  /** What makes a run an outage, in words; null when the model states none. */
  failureCriterion?: string | null;
  /** A seed ensemble around the run as it happened, when the reader asked for one (`seeds`). */
  ensemble?: { runs: number; text: string; bands: Record<string, { low: Array<number | null>; high: Array<number | null> }> } | { pending: string } | null;
  /** A sweep of one parameter, when the reader asked for one (`sweep`). */
  sweep?: { parameter: string; unit: string; figureLabel: string; figureUnit: string; text: string; points: Array<{ x: number; y: number | null; failureMet: boolean | null }> } | { pending: string } | null;
  /** A sweep over a grid of two parameters (`sweep` and `sweep2`): the failure criterion per cell. */
  grid?: SweepGrid | { pending: string } | null;
  /** A boundary search on one parameter, when the reader asked for one (`boundary`). */
  boundary?:
    | {
        parameter: string;
        unit: string;
        text: string;
        /** The chart's heading: what flips (the failure criterion, the check, or a figure crossing a value) along which parameter. */
        heading: string;
        figureLabel: string;
        figureUnit: string;
        points: Array<{ x: number; y: number | null; failureMet: boolean | null }>;
        /** On a figure: the value it must cross, drawn as a line across the chart. */
        reference?: { value: number; label: string };
      }
    | { pending: string }
    | null;
  /** Checks of the run as it happened that a boundary search may bisect on instead of the failure criterion. */
  boundaryChecks?: Array<{ name: string; description: string }>;
  /** The model's summary figures, which a boundary search may bisect on crossing a value. */
  boundaryFigures?: Array<{ name: string; label: string; unit: string }>;
  /** The model's checks by kind; only `reproduces` (which includes the failure-criterion check) is evidence. */
  evidence?: { reproduces: number; fitted: number; construction: number; unlabelled: number };
}

/** A two-parameter sweep: rows are the values of `y`, columns those of `x`. */
export interface SweepGrid {
  x: { parameter: string; label: string; unit: string; values: number[] };
  y: { parameter: string; label: string; unit: string; values: number[] };
  /** The failure criterion in words; null when the model states none. */
  criterion: string | null;
  /** `cells[row][column]`: whether the run meets the failure criterion (null: not judged), when it starts, or why it has no result. */
  cells: Array<Array<{ met: boolean | null; onset: number | null; error: string | null }>>;
  text: string;
}
