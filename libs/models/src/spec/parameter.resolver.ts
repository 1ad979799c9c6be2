import { ModelError, ModelErrorCode, ModelParameterError } from '../errors/model.error';
import type { ParameterConflict } from '../output/model-run.types';
import type { ModelSpec, ScenarioSpec } from './model-spec.types';
import { describeValue } from './model-spec.validator';

/**
 * Parameter values for a run: declared defaults, then the caller's values, then the scenario's
 * own. A scenario's parameters are its fix (keep-alive 5 s, a higher cap): a what-if applied on
 * top would silently turn the fix into something else, so the scenario's values win and
 * {@link parameterConflicts} reports the requests it kept its own value for. Every requested
 * value is validated, applied or not. Throws {@link ModelParameterError} naming the parameter
 * and its allowed range.
 */
export function resolveParameters(
  spec: ModelSpec,
  overrides: Record<string, unknown> = {},
  scenarioKey?: string,
): Record<string, number> {
  const values: Record<string, number> = {};
  for (const p of spec.parameters) values[p.name] = p.default;
  const scenario = scenarioKey === undefined ? undefined : findScenario(spec, scenarioKey);
  const declared = new Map(spec.parameters.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(overrides)) {
    const p = declared.get(name);
    const path = `parameters.${name}`;
    if (!p) {
      throw new ModelParameterError(name, path, `unknown parameter "${name}" (declared: ${[...declared.keys()].join(', ')})`);
    }
    const allowed = { min: p.min, max: p.max, unit: p.unit };
    const kind = p.integer ? 'an integer' : 'a number';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < p.min || value > p.max || (p.integer && !Number.isInteger(value))) {
      throw new ModelParameterError(name, path, `expected ${kind} between ${p.min} and ${p.max} ${p.unit}, got ${describeValue(value)}`, allowed);
    }
    values[name] = value;
  }
  Object.assign(values, scenario?.parameters ?? {});
  return values;
}

function findScenario(spec: ModelSpec, scenarioKey: string): ScenarioSpec {
  const scenario = spec.scenarios.find((s) => s.key === scenarioKey);
  if (!scenario) {
    throw new ModelError(ModelErrorCode.UnknownScenario, `unknown scenario "${scenarioKey}" (known: ${spec.scenarios.map((s) => s.key).join(', ')})`);
  }
  return scenario;
}

/** The requested values a scenario does not apply because it sets the parameter itself to another value. */
export function parameterConflicts(spec: ModelSpec, overrides: Record<string, number>, scenarioKey: string): ParameterConflict[] {
  const own = findScenario(spec, scenarioKey).parameters ?? {};
  return Object.entries(overrides)
    .filter(([name, value]) => name in own && own[name] !== value)
    .map(([parameter, requested]) => ({ parameter, requested, applied: own[parameter]! }));
}
