import { ModelError, ModelErrorCode, ModelParameterError } from '../errors/model.error';
import type { ModelSpec } from './model-spec.types';
import { describeValue } from './model-spec.validator';

/**
 * Parameter values for a run: declared defaults, then the scenario's overrides, then the
 * caller's. Throws {@link ModelParameterError} naming the parameter and its allowed range.
 */
export function resolveParameters(
  spec: ModelSpec,
  overrides: Record<string, unknown> = {},
  scenarioKey?: string,
): Record<string, number> {
  const values: Record<string, number> = {};
  for (const p of spec.parameters) values[p.name] = p.default;
  if (scenarioKey !== undefined) {
    const scenario = spec.scenarios.find((s) => s.key === scenarioKey);
    if (!scenario) {
      throw new ModelError(
        ModelErrorCode.UnknownScenario,
        `unknown scenario "${scenarioKey}" (known: ${spec.scenarios.map((s) => s.key).join(', ')})`,
      );
    }
    Object.assign(values, scenario.parameters ?? {});
  }
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
  return values;
}
