import { compileExpression } from '../spec/expression.parser';
import type { CheckSpec, ExpectSpec, FigureSpec, MeasureSpec, NumberValue, TimeValue } from '../spec/model-spec.types';
import type { MetricReader } from '../engine/metric.reader';
import type { CheckResult, SummaryFigure } from './model-run.types';
import { formatPercent, formatQuantity } from './number.format';

/** What a measure can read in one scenario run. */
export interface MeasureContext {
  scenarioKey: string;
  params: Record<string, number>;
  reader: MetricReader;
  eventTimes: Map<string, number>;
  horizon: number;
  figures: () => Map<string, number>;
}

export type ScenarioLookup = (scenarioKey: string) => MeasureContext;

export function evalNumber(v: NumberValue, params: Record<string, number>): number {
  if (typeof v === 'number') return v;
  if ('param' in v) return params[v.param] ?? NaN;
  return compileExpression(v.expr, (name) => {
    const x = params[name] ?? NaN;
    return () => x;
  })();
}

export function evalTime(v: TimeValue | undefined, fallback: number, ctx: MeasureContext): number {
  if (v === undefined) return fallback;
  if (typeof v === 'object' && 'event' in v) {
    const t = ctx.eventTimes.get(v.event);
    return t === undefined ? NaN : t + (v.offset ?? 0);
  }
  return evalNumber(v, ctx.params);
}

export function evaluateMeasure(m: MeasureSpec, ctx: MeasureContext, lookup: ScenarioLookup): number {
  const c = m.scenario !== undefined && m.scenario !== ctx.scenarioKey ? lookup(m.scenario) : ctx;
  if ('eventTime' in m) return c.eventTimes.get(m.eventTime) ?? NaN;
  if ('figure' in m) return c.figures().get(m.figure) ?? NaN;
  const from = evalTime(m.from, 0, c);
  const to = evalTime(m.to, c.horizon, c);
  if (Number.isNaN(from) || Number.isNaN(to)) return NaN;
  const threshold = m.threshold === undefined ? NaN : evalNumber(m.threshold, c.params);
  return c.reader.stat(m.metric, m.stat, from, to, threshold, m.sustain ?? 0, m.window);
}

function evaluateFormula(
  o: { measure?: MeasureSpec; measures?: Record<string, MeasureSpec>; value?: string },
  ctx: MeasureContext,
  lookup: ScenarioLookup,
): { value: number; measures: Record<string, number> } {
  const measures: Record<string, number> = {};
  if (o.measure) measures.value = evaluateMeasure(o.measure, ctx, lookup);
  for (const [name, m] of Object.entries(o.measures ?? {})) measures[name] = evaluateMeasure(m, ctx, lookup);
  if (o.value === undefined) return { value: Object.values(measures)[0] ?? NaN, measures };
  const value = compileExpression(o.value, (name) => {
    const x = name in measures ? measures[name] : (ctx.params[name] ?? NaN);
    return () => x;
  })();
  return { value, measures };
}

export function evaluateFigures(figures: FigureSpec[], ctx: MeasureContext, lookup: ScenarioLookup): SummaryFigure[] {
  return figures.map((f) => {
    const { value } = evaluateFormula(f, ctx, lookup);
    return { name: f.name, label: f.label, value: Number.isFinite(value) ? value : null, unit: f.unit };
  });
}

function bound(b: NumberValue | string | undefined, ctx: MeasureContext, measures: Record<string, number>): number | null {
  if (b === undefined) return null;
  if (typeof b === 'string') {
    return compileExpression(b, (name) => {
      const x = name in measures ? measures[name] : (ctx.params[name] ?? NaN);
      return () => x;
    })();
  }
  return evalNumber(b, ctx.params);
}

function withUnit(x: number | null, unit: string): string {
  return formatQuantity(x, unit);
}

function describeExpectation(e: ExpectSpec, v: number | null, min: number | null, max: number | null, unit: string): string {
  switch (e.op) {
    case 'approx': {
      const tol = e.tolerance ?? 0;
      return e.absolute ? `≈ ${withUnit(v, unit)} (± ${withUnit(tol, unit)})` : `≈ ${withUnit(v, unit)} (± ${formatPercent(tol)})`;
    }
    case 'between':
      return `between ${withUnit(min, unit)} and ${withUnit(max, unit)}`;
    default:
      return `${e.op === '>=' ? '≥' : e.op === '<=' ? '≤' : e.op} ${withUnit(v, unit)}`;
  }
}

export function evaluateCheck(check: CheckSpec, ctx: MeasureContext, lookup: ScenarioLookup): CheckResult {
  const { value: observed, measures } = evaluateFormula(check, ctx, lookup);
  const e = check.expect;
  const v = bound(e.value, ctx, measures);
  const min = bound(e.min, ctx, measures);
  const max = bound(e.max, ctx, measures);
  const tol = e.tolerance ?? null;
  const unit = check.unit;
  const expectedText = describeExpectation(e, v, min, max, unit);
  let pass = false;
  let why = '';
  if (!Number.isFinite(observed)) {
    why = 'the measure has no value in this run (for example the series never crossed its threshold, or the window is empty)';
  } else {
    switch (e.op) {
      case 'approx': {
        const target = v ?? NaN;
        const allowed = e.absolute ? (tol ?? 0) : (tol ?? 0) * Math.abs(target);
        const dev = Math.abs(observed - target);
        pass = dev <= allowed;
        const rel = target !== 0 ? dev / Math.abs(target) : Infinity;
        why = pass
          ? `observed ${withUnit(observed, unit)}, ${formatPercent(rel)} from ${withUnit(target, unit)}`
          : `observed ${withUnit(observed, unit)}, ${formatPercent(rel)} ${observed > target ? 'above' : 'below'} ${withUnit(target, unit)}, more than the ${e.absolute ? withUnit(tol, unit) : formatPercent(tol ?? 0)} allowed`;
        break;
      }
      case 'between':
        pass = min !== null && max !== null && observed >= min && observed <= max;
        why = `observed ${withUnit(observed, unit)}, ${pass ? 'inside' : 'outside'} [${withUnit(min, unit)}, ${withUnit(max, unit)}]`;
        break;
      default: {
        const t = v ?? NaN;
        pass = e.op === '>=' ? observed >= t : e.op === '<=' ? observed <= t : e.op === '>' ? observed > t : observed < t;
        why = `observed ${withUnit(observed, unit)}, ${pass ? 'as expected' : 'not'} ${describeExpectation(e, v, min, max, unit)}`;
      }
    }
  }
  const explanation = pass ? why : check.ifFails ? `${why}. ${check.ifFails}` : why;
  return {
    name: check.name,
    description: check.description,
    scenario: ctx.scenarioKey,
    expected: { op: e.op, value: v, min, max, tolerance: tol, absolute: e.absolute === true },
    expectedText,
    observed: Number.isFinite(observed) ? observed : null,
    unit,
    tolerance: tol,
    pass,
    explanation,
    kind: check.kind ?? null,
    source: check.source ?? null,
  };
}
