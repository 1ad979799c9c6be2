import { DECIMAL, formatNumber, parseBoundaryFigure, type BoundaryFigure, type FigureSpec, type ParameterSpec } from '@hindsight/models';
/**
 * The what-if form as a GET query: one `p.<parameter>` field per model parameter and a `scenario`
 * field choosing which runs to draw beside the one as it happened. The prefix keeps the panel's
 * fields apart from any other query parameter a page might grow.
 */
export const PARAMETER_PREFIX = 'p.';
export const SCENARIO_FIELD = 'scenario';
/** Runs of a seed ensemble drawn as bands around the run as it happened (`seeds=20`). */
export const SEEDS_FIELD = 'seeds';
/** A sweep of one parameter, `name:from:to:count`, drawn as a chart of the failure against it. */
export const SWEEP_FIELD = 'sweep';
/** The second parameter of a sweep over a grid, `name:from:to:count` (with {@link SWEEP_FIELD}). */
export const SWEEP2_FIELD = 'sweep2';
/** At most this many runs for a grid of two parameters on one page view. */
export const PAGE_MAX_GRID_RUNS = 36;
/** A boundary search on one parameter, `name:from:to`: where between the two the failure criterion flips. */
export const BOUNDARY_FIELD = 'boundary';
/** What the boundary search bisects on: empty for the failure criterion, or a check's name. */
export const BOUNDARY_CHECK_FIELD = 'boundary-check';
/** Or a summary figure crossing a value, `figure:above|below:value`: what the boundary search bisects on instead. */
export const BOUNDARY_FIGURE_FIELD = 'boundary-figure';
/** Bounds of what one page view may ask for (the engine's own limits are higher). */
export const PAGE_MAX_SEEDS = 20;
export const PAGE_MAX_SWEEP_POINTS = 12;

/** The `scenario` value that draws every scenario of the model. */
export const ALL_SCENARIOS = 'all';

/** What the form needs to know about a parameter: the model's own description of it. */
export type WhatIfParameter = Pick<ParameterSpec, 'name' | 'label' | 'unit' | 'default' | 'min' | 'max' | 'description' | 'integer' | 'provenance'>;

/** A problem with one field, shown next to it; `field` is the form field name. */
export interface WhatIfFieldError {
  field: string;
  message: string;
}

export interface WhatIfForm {
  /** The text of each parameter field as it will be shown again (the reader's own text when refused). */
  values: Record<string, string>;
  /** Parameters whose value differs from the default; empty for the default runs. */
  overrides: Record<string, number>;
  /** A scenario key, or {@link ALL_SCENARIOS}. */
  scenario: string;
  errors: WhatIfFieldError[];
  /** Seeds of the ensemble to draw around the run as it happened; null for none. */
  seeds: number | null;
  /** The sweep asked for; null for none. */
  sweep: { parameter: string; from: number; to: number; count: number } | null;
  /** The second parameter of a grid sweep; null for a sweep of one parameter (or none). */
  sweep2: { parameter: string; from: number; to: number; count: number } | null;
  /** The boundary search asked for; null for none. */
  boundary: { parameter: string; from: number; to: number; check: string | null; figure: BoundaryFigure | null } | null;
  /** The text of each exploration field sent (seeds, sweeps, boundary, its figure), shown again as typed when that field is refused. */
  texts: Record<string, string>;
}

export const parameterField = (name: string): string => `${PARAMETER_PREFIX}${name}`;

/** What the form needs to know about a figure: its name, and its unit for an example value. */
export type WhatIfFigure = Pick<FigureSpec, 'name' | 'unit'>;

/**
 * An example target on a model's figure, for the field's hint and its refusals: the first
 * figure above a value that fits its unit (a ratio is a share, so half rather than 100).
 */
export function figureTargetExample(figures: readonly WhatIfFigure[]): string {
  const f = figures[0];
  if (!f) return 'name:above:100';
  return `${f.name}:above:${f.unit === 'ratio' ? '0.5' : '100'}`;
}

/** "from 0 to 120 s", "a whole number from 1 to 1,000,000 sessions" */
export function allowedRange(p: WhatIfParameter): string {
  // Large whole numbers grouped by the one number formatter; others exactly as a reader types them.
  const n = (x: number) => (Math.abs(x) >= 10000 && Number.isInteger(x) ? formatNumber(x) : String(x));
  return `${p.integer ? 'a whole number' : 'a number'} from ${n(p.min)} to ${n(p.max)}${p.unit ? ` ${p.unit}` : ''}`;
}

/**
 * Reads the panel's fields from the query. A parameter that is absent keeps its default (so a
 * runbook can link a what-if naming one parameter); one that is present must be a plain number
 * in the parameter's range, whole when the parameter counts things. Nothing is run while any field
 * is refused.
 */
export function parseWhatIfForm(
  parameters: readonly WhatIfParameter[],
  scenarioKeys: readonly string[],
  form: Readonly<Record<string, string>> | null,
  /** Checks of the run as it happened, which a boundary search may bisect on. */
  checkNames: readonly string[] = [],
  /** The model's summary figures, which a boundary search may bisect on crossing a value. */
  figures: readonly WhatIfFigure[] = [],
): WhatIfForm {
  const values: Record<string, string> = {};
  const overrides: Record<string, number> = {};
  const errors: WhatIfFieldError[] = [];
  const fields = form ?? {};
  for (const p of parameters) {
    const field = parameterField(p.name);
    const raw = fields[field];
    if (raw === undefined) {
      values[p.name] = String(p.default);
      continue;
    }
    const text = raw.trim();
    values[p.name] = raw;
    if (text === '') {
      errors.push({ field, message: `Enter ${allowedRange(p)}; the default is ${p.default}.` });
      continue;
    }
    const value = Number(text);
    if (!DECIMAL.test(text) || !Number.isFinite(value)) {
      errors.push({ field, message: `“${truncate(text)}” is not a number. Enter ${allowedRange(p)}.` });
    } else if (value < p.min || value > p.max) {
      errors.push({ field, message: `${text} is out of range. Enter ${allowedRange(p)}.` });
    } else if (p.integer && !Number.isInteger(value)) {
      errors.push({ field, message: `${text} is not a whole number. Enter ${allowedRange(p)}.` });
    } else {
      values[p.name] = text;
      if (value !== p.default) overrides[p.name] = value;
    }
  }
  const known = new Set(parameters.map((p) => parameterField(p.name)));
  const unknown = Object.keys(fields).filter((name) => name.startsWith(PARAMETER_PREFIX) && !known.has(name));
  if (unknown.length > 0) {
    const names = unknown.map((n) => truncate(n.slice(PARAMETER_PREFIX.length))).join(', ');
    errors.push({ field: 'form', message: `This model has no parameter named ${names}. Its parameters are ${parameters.map((p) => p.name).join(', ')}.` });
  }
  const chosen = fields[SCENARIO_FIELD]?.trim() || ALL_SCENARIOS;
  let scenario = ALL_SCENARIOS;
  if (chosen === ALL_SCENARIOS || scenarioKeys.includes(chosen)) scenario = chosen;
  else errors.push({ field: SCENARIO_FIELD, message: 'Choose one of the listed scenarios.' });
  const seeds = parseSeeds(fields[SEEDS_FIELD], errors);
  const sweep = parseSweep(fields[SWEEP_FIELD], parameters, errors);
  const sweep2 = parseSweep2(fields[SWEEP2_FIELD], sweep, fields[SWEEP_FIELD], parameters, errors);
  const boundary = parseBoundary(fields, parameters, checkNames, figures, errors);
  const texts: Record<string, string> = {};
  for (const name of [SEEDS_FIELD, SWEEP_FIELD, SWEEP2_FIELD, BOUNDARY_FIELD, BOUNDARY_FIGURE_FIELD]) if (fields[name] !== undefined) texts[name] = fields[name]!.trim();
  return { values, overrides, scenario, errors, seeds, sweep, sweep2, boundary, texts };
}

function parseSeeds(raw: string | undefined, errors: WhatIfFieldError[]): number | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 2 || n > PAGE_MAX_SEEDS) {
    errors.push({ field: SEEDS_FIELD, message: `Enter a whole number of runs from 2 to ${PAGE_MAX_SEEDS}.` });
    return null;
  }
  return n;
}

function parseBoundary(
  fields: Readonly<Record<string, string>>,
  parameters: readonly WhatIfParameter[],
  checkNames: readonly string[],
  figures: readonly WhatIfFigure[],
  errors: WhatIfFieldError[],
): WhatIfForm['boundary'] {
  const text = fields[BOUNDARY_FIELD]?.trim() ?? '';
  const checkText = fields[BOUNDARY_CHECK_FIELD]?.trim() ?? '';
  let check: string | null = null;
  if (checkText !== '') {
    if (checkNames.includes(checkText)) check = checkText;
    else errors.push({ field: BOUNDARY_CHECK_FIELD, message: 'Choose the failure criterion or one of the listed checks.' });
  }
  const figure = parseFigureTarget(fields[BOUNDARY_FIGURE_FIELD], text !== '', figures, errors);
  if (text === '') return null;
  const [name, ...rest] = text.split(':');
  const p = parameters.find((x) => x.name === name);
  const [from, to] = rest.map(Number);
  if (!p || rest.length !== 2 || !rest.every((x) => DECIMAL.test(x))) {
    errors.push({ field: BOUNDARY_FIELD, message: `Write parameter:from:to, e.g. ${parameters[0]?.name ?? 'name'}:1:10; the parameters are ${parameters.map((x) => x.name).join(', ')}.` });
    return null;
  }
  if (!(from! >= p.min && to! <= p.max && from! < to!)) {
    errors.push({ field: BOUNDARY_FIELD, message: `Search ${p.name} within ${allowedRange(p)}, from a lower to a higher value.` });
    return null;
  }
  return { parameter: p.name, from: from!, to: to!, check, figure };
}

/**
 * The figure a boundary search is to bisect on, as written; null for none or when refused (the
 * reason is then next to the field). Whether the model has that figure, and whether a check is
 * chosen too, is the engine's check of the target (the panel asks it before running anything).
 */
function parseFigureTarget(raw: string | undefined, searching: boolean, figures: readonly WhatIfFigure[], errors: WhatIfFieldError[]): BoundaryFigure | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  const refuse = (message: string): null => {
    errors.push({ field: BOUNDARY_FIGURE_FIELD, message });
    return null;
  };
  const parsed = parseBoundaryFigure(text);
  const write = `Write figure:above:value or figure:below:value, e.g. ${figureTargetExample(figures)}; the figures are ${figures.map((f) => f.name).join(', ') || 'none'}.`;
  if (parsed.problem === 'not finite') return refuse(`The value in “${truncate(text)}” is not a finite number. ${write}`);
  if (parsed.problem) return refuse(write);
  if (!searching) return refuse('Give the parameter to search too: the figure says what the search above bisects on.');
  return parsed.figure;
}

function parseSweep(raw: string | undefined, parameters: readonly WhatIfParameter[], errors: WhatIfFieldError[], field = SWEEP_FIELD): WhatIfForm['sweep'] {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  const [name, ...rest] = text.split(':');
  const p = parameters.find((x) => x.name === name);
  const [from, to, count] = rest.map(Number);
  if (!p || rest.length !== 3 || !rest.every((x) => DECIMAL.test(x))) {
    errors.push({ field, message: `Write parameter:from:to:count, e.g. ${parameters[0]?.name ?? 'name'}:1:10:5; the parameters are ${parameters.map((x) => x.name).join(', ')}.` });
    return null;
  }
  if (!(from! >= p.min && to! <= p.max && from! < to!)) {
    errors.push({ field, message: `Sweep ${p.name} within ${allowedRange(p)}, from a lower to a higher value.` });
    return null;
  }
  if (!Number.isInteger(count) || count! < 2 || count! > PAGE_MAX_SWEEP_POINTS) {
    errors.push({ field, message: `Enter from 2 to ${PAGE_MAX_SWEEP_POINTS} values to sweep.` });
    return null;
  }
  return { parameter: p.name, from: from!, to: to!, count: count! };
}

/** The second axis of a grid: another parameter than the first, and at most PAGE_MAX_GRID_RUNS runs in all. */
function parseSweep2(raw: string | undefined, first: WhatIfForm['sweep'], firstRaw: string | undefined, parameters: readonly WhatIfParameter[], errors: WhatIfFieldError[]): WhatIfForm['sweep2'] {
  const second = parseSweep(raw, parameters, errors, SWEEP2_FIELD);
  if (second === null) return null;
  if ((firstRaw?.trim() ?? '') === '') {
    errors.push({ field: SWEEP2_FIELD, message: 'Give the first parameter of the sweep too: a grid needs both.' });
    return null;
  }
  if (first === null) return null;
  if (first.parameter === second.parameter) {
    errors.push({ field: SWEEP2_FIELD, message: `Choose another parameter than ${first.parameter} for the second axis.` });
    return null;
  }
  if (first.count * second.count > PAGE_MAX_GRID_RUNS) {
    errors.push({ field: SWEEP2_FIELD, message: `A grid of ${first.count} × ${second.count} values is ${first.count * second.count} runs; a page makes at most ${PAGE_MAX_GRID_RUNS}.` });
    return null;
  }
  return second;
}

function truncate(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
