import type { CheckSpec, ControllerEventSpec, FailureCriterionSpec, ModelSpec, ParameterProvenance, ScenarioSpec } from '@hindsight/models';
import type { FigureKind } from './figures';
import type { RemedyKind } from './remedy';

export type Values = Record<string, number>;

/** How a parameter may be read from an incident's text. */
export interface FigureRule {
  kind: FigureKind;
  /** Words that must stand in the figure's sentence, near the figure, for it to fill this parameter. */
  cues: RegExp;
  /** For counts: the counted thing must match ("retries", "sessions"). */
  nouns?: RegExp;
  /** Canonical figure value → this parameter's unit (e.g. a ratio kept as a ratio, 1 − ratio for a hit rate). */
  convert?: (value: number, sentence: string) => number;
  /**
   * The parameter sets a fix (an alert threshold, a bake time, a retention): it may also be read
   * from the actionables, whose figures say how the fix is meant ("alert at 75 %"). Other
   * parameters never read actionables, which describe what is to change, not what happened.
   * `only`: read from the actionables alone, for values whose figures elsewhere in the text would
   * describe what happened instead (a detection time, a retention as it was).
   */
  fromActionables?: boolean | 'only';
}

/** Parameters read from the timeline rather than from a figure. */
export type TimelineRule = 'failure-duration';

export interface TemplateParameter {
  name: string;
  unit: string;
  description: string;
  min: number;
  max: number;
  integer?: boolean;
  /** The template's default, with the reason for that value. */
  default: number;
  defaultWhy: string;
  /**
   * When the text gives no value: one worked out from the values resolved before this one
   * (parameters resolve in declaration order), with why. Used where the incident's own report
   * (the failure happened) constrains an unknown, e.g. a load assumed above the stated cap.
   */
  assume?: (v: Values) => { value: number; why: string };
  figure?: FigureRule;
  timeline?: TimelineRule;
}

/** One fix a template can express: which remedy it models, and the change that switches it on. */
export interface FixTemplate {
  key: string;
  remedy: RemedyKind;
  title: string;
  description: string;
  parameters?: (v: Values) => Values;
  events?: (v: Values) => ControllerEventSpec[];
  omitEvents?: string[];
}

/** The blocks of a spec a template generates; the builder adds identity, parameters, scenarios and checks. */
export type TemplateBody = Pick<ModelSpec, 'engine' | 'horizon' | 'stations' | 'sources' | 'probes'> &
  Partial<Pick<ModelSpec, 'pools' | 'caches' | 'events' | 'figures' | 'points'>> & {
    checks?: CheckSpec[];
    /** What-if scenarios the checks read (no actionable). */
    whatIfs?: ScenarioSpec[];
  };

export interface ModelTemplate {
  key: string;
  title: string;
  /** One line: the failure class it models. */
  failureClass: string;
  /** Markdown: what the model is, what it leaves out, which closed form it is checked against. */
  docs: string;
  /** Taxonomy patterns (seeds/patterns.json) that point to this template, with a weight each. */
  patterns: Record<string, number>;
  /** Plain-word rules over the incident's text and factors, with a weight each and a reason. */
  keywords: { re: RegExp; weight: number; reason: string }[];
  parameters: TemplateParameter[];
  fixes: FixTemplate[];
  /** The failure criterion; `source` is filled from the incident (or the template's own words). */
  failure: Omit<FailureCriterionSpec, 'source' | 'kind' | 'fittedParameter'>;
  /** When the failure follows from the inputs alone (a demand over a cap): `construction`. */
  failureKind: 'construction' | 'reproduces';
  build(v: Values): TemplateBody;
}

export type FilledFrom = 'text' | 'timeline' | 'assumption' | 'default' | 'person';

/** One parameter's value in a draft, and where it comes from. */
export interface ParameterFill {
  name: string;
  value: number;
  unit: string;
  min: number;
  max: number;
  description: string;
  from: FilledFrom;
  provenance: ParameterProvenance;
  /** For values read from the text: the figure as written, its sentence and where it stands. */
  figure: { raw: string; quote: string; place: string; anchor: string } | null;
  /** Figures that looked like this parameter but were refused (out of range), with why. */
  refused: string[];
}
