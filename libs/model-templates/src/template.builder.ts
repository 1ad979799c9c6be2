/**
 * Turns a template and a set of parameter values into an engine spec: identity, parameters with
 * their provenance, the failure criterion, as-happened, one scenario per matched actionable (the
 * fix of its remedy kind switched on) and the unmatched fixes as what-ifs, and the checks.
 */
import { DEFAULT_POINTS, validateSpec, type CheckSpec, type ModelSpec, type ScenarioSpec, type SourceQuote } from '@hindsight/models';
import type { FixTemplate, ModelTemplate, ParameterFill, Values } from './template.types';

export interface ScenarioBinding {
  fixKey: string;
  actionableKey: string;
}

export interface InstantiateOptions {
  slug: string;
  version: string;
  title?: string;
  description?: string;
  /** The incident's words that the failure happened; the template's own words otherwise. */
  failureSource?: SourceQuote;
  timeOrigin?: string;
  /** Actionables matched to fixes; one scenario each. */
  bindings?: ScenarioBinding[];
}

export function valuesOf(fills: readonly ParameterFill[]): Values {
  return Object.fromEntries(fills.map((f) => [f.name, f.value]));
}

function kebab(s: string, max = 60): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, max).replace(/-+$/, '') || 'x';
}

function fixScenario(fix: FixTemplate, v: Values, key: string, actionableKey: string | null, copy: number): ScenarioSpec {
  const s: ScenarioSpec = { key, title: fix.title, description: `${fix.description} (remedy: ${fix.remedy})`, actionableKey };
  if (fix.parameters) s.parameters = roundValues(fix.parameters(v));
  // Event keys are unique across the spec: a fix bound to several actionables numbers its copies.
  if (fix.events) s.events = fix.events(v).map((e) => (copy === 0 ? e : { ...e, key: `${e.key}-${copy + 1}` }));
  if (fix.omitEvents) s.omitEvents = fix.omitEvents;
  return s;
}

function roundValues(v: Values): Values {
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Number(x.toPrecision(6))]));
}

/** The remedy kind of each scenario key of a spec built from `template` (as-happened and what-ifs have none). */
export function remedyOfScenario(template: ModelTemplate, scenarioKey: string): string | null {
  const fix = template.fixes.find((f) => scenarioKey === f.key || scenarioKey.startsWith(`${f.key}--`));
  return fix?.remedy ?? null;
}

export function instantiate(template: ModelTemplate, fills: readonly ParameterFill[], options: InstantiateOptions): ModelSpec {
  const v = valuesOf(fills);
  const body = template.build(v);
  const scenarios: ScenarioSpec[] = [
    { key: 'as-happened', title: 'As it happened', description: 'The parameters as read from the incident, with the assumptions listed beside each one.', actionableKey: null },
  ];
  const bindings = options.bindings ?? [];
  for (const fix of template.fixes) {
    const bound = bindings.filter((b) => b.fixKey === fix.key);
    if (bound.length === 0) scenarios.push(fixScenario(fix, v, fix.key, null, 0));
    bound.forEach((b, i) => scenarios.push(fixScenario(fix, v, `${fix.key}--${kebab(b.actionableKey, 40)}`, b.actionableKey, i)));
  }
  scenarios.push(...(body.whatIfs ?? []));

  const threshold = template.failure.threshold;
  const checks: CheckSpec[] = [...(body.checks ?? [])];
  if ('triggerAt' in v) {
    checks.push({
      name: 'failure-starts-after-trigger',
      description: 'The failure criterion is first met after the trigger, not before it: the model is healthy until the change the incident reports.',
      scenarios: ['as-happened'],
      measure: { metric: template.failure.metric, stat: template.failure.op === 'below' ? 'firstTimeBelow' : 'firstTimeAbove', threshold },
      // The series are averages over output points: the point holding the trigger may show it.
      expect: { op: '>=', value: `triggerAt - ${Number((Number(body.horizon) / (body.points ?? DEFAULT_POINTS)).toPrecision(6))}` },
      unit: 's',
      ifFails: 'The model fails before its trigger: its steady load is already too much for it, so the values assumed for the load are too high.',
      kind: 'construction',
    });
  }
  const failureSource = options.failureSource ?? { quote: template.failureClass, place: `template ${template.key}` };
  const spec = {
    schemaVersion: 1,
    slug: options.slug,
    version: options.version,
    title: options.title ?? template.title,
    description:
      options.description ??
      `${template.failureClass}. Generated from the template "${template.key}"; each parameter says whether its value was read from the incident or assumed.`,
    ...(options.timeOrigin ? { timeOrigin: options.timeOrigin } : {}),
    engine: body.engine,
    horizon: body.horizon,
    ...(body.points ? { points: body.points } : {}),
    parameters: fills.map((f) => ({
      name: f.name,
      unit: f.unit,
      default: f.value,
      min: f.min,
      max: f.max,
      description: f.description,
      ...(template.parameters.find((p) => p.name === f.name)?.integer ? { integer: true } : {}),
      provenance: f.provenance,
    })),
    ...(body.pools ? { pools: body.pools } : {}),
    ...(body.caches ? { caches: body.caches } : {}),
    stations: body.stations,
    sources: body.sources,
    ...(body.events ? { events: body.events } : {}),
    probes: body.probes,
    ...(body.figures ? { figures: body.figures } : {}),
    checks,
    failure: {
      ...template.failure,
      source: failureSource,
      kind: template.failureKind,
    },
    scenarios,
  };
  return validateSpec(spec);
}
