import { createHash } from 'node:crypto';
import { ENGINE_VERSION } from '../engine-version';
import type { ModelSpec } from '../spec/model-spec.types';

/** JSON with object keys sorted, so equal inputs serialise to equal bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export interface RunInputs {
  spec: ModelSpec;
  scenarioKey: string;
  /** Resolved values of every parameter (defaults included), so equivalent overrides hash alike. */
  parameters: Record<string, number>;
  /**
   * The values the other scenarios a run reads (the baseline its verdict compares with, the
   * scenarios its checks read) are run with: defaults and the caller's values, without this
   * scenario's own. A what-if value the scenario does not apply still changes its baseline,
   * so it must change the hash. Absent: the same as `parameters`.
   */
  callerParameters?: Record<string, number>;
  seed: number;
  mode: 'des' | 'fluid';
  fluidStep: number;
  points: number;
}

/**
 * Stable SHA-256 of everything that determines a run's output: engine version, spec
 * slug, version and content, scenario, parameters, seed and resolution. Safe as a cache key.
 */
export function hashRunInputs(inputs: RunInputs): string {
  const specDigest = createHash('sha256').update(canonicalJson(inputs.spec)).digest('hex');
  const payload = canonicalJson({
    engineVersion: ENGINE_VERSION,
    slug: inputs.spec.slug,
    specVersion: inputs.spec.version,
    specDigest,
    scenarioKey: inputs.scenarioKey,
    parameters: inputs.parameters,
    callerParameters: inputs.callerParameters ?? inputs.parameters,
    seed: inputs.seed,
    mode: inputs.mode,
    fluidStep: inputs.fluidStep,
    points: inputs.points,
  });
  return createHash('sha256').update(payload).digest('hex');
}
