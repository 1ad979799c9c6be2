import { ModelParameterError } from '../errors/model.error';
import { compileExpression, type Evaluate } from '../spec/expression.parser';
import type { DistributionSpec, DurationSpec, NumberValue, ParameterSpec } from '../spec/model-spec.types';
import { describeValue, inDomain, type Domain } from '../spec/model-spec.validator';
import type { RandomStream } from '../kernel/random.stream';

// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

/** Current parameter values of a run; `set` is how config-change events reach the model. */
export class ParameterStore {
  readonly values: Float64Array;
  private readonly index = new Map<string, number>();

  constructor(
    readonly specs: ParameterSpec[],
    resolved: Record<string, number>,
  ) {
    this.values = new Float64Array(specs.length);
    specs.forEach((p, i) => {
      this.index.set(p.name, i);
      this.values[i] = resolved[p.name] ?? p.default;
    });
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  getter(name: string): Evaluate {
    const i = this.index.get(name);
    if (i === undefined) throw new ModelParameterError(name, `parameters.${name}`, `unknown parameter "${name}"`);
    const values = this.values;
    return () => values[i];
  }

  get(name: string): number {
    return this.getter(name)();
  }

  set(name: string, value: number): void {
    const i = this.index.get(name);
    if (i !== undefined) this.values[i] = value;
  }
}

export function compileValue(v: NumberValue | undefined | null, fallback: number, store: ParameterStore): Evaluate {
  if (v === undefined || v === null) return () => fallback;
  if (typeof v === 'number') return () => v;
  if ('param' in v) return store.getter(v.param);
  return compileExpression(v.expr, (name) => store.getter(name));
}

/** True when the value can never change during a run (no parameter involved). */
export function isConstant(v: NumberValue | undefined | null): boolean {
  return v === undefined || v === null || typeof v === 'number';
}

/** Evaluates a value now and rejects it when outside its domain (a parameter pushed it out). */
export function checkedNow(fn: Evaluate, d: Domain, path: string): number {
  const x = fn();
  if (!inDomain(x, d)) {
    throw new ModelParameterError('', path, `expected ${d.label}, got ${describeValue(x)} with these parameters`);
  }
  return x;
}

export interface Duration {
  /** Mean in seconds (what the fluid mode uses). */
  mean(): number;
  sample(rng: RandomStream): number;
  /** A literal zero: no event needs to be scheduled. */
  readonly isZero: boolean;
  /** Deterministic: sampling is the mean, no random draw needed. */
  readonly isDeterministic: boolean;
}

export function compileDuration(spec: DurationSpec | undefined, store: ParameterStore): Duration {
  if (spec === undefined || (typeof spec === 'number' && spec === 0)) {
    return { mean: () => 0, sample: () => 0, isZero: true, isDeterministic: true };
  }
  if (typeof spec === 'number' || !('dist' in spec)) {
    const m = compileValue(spec, 0, store);
    return { mean: m, sample: () => m(), isZero: false, isDeterministic: true };
  }
  const d: DistributionSpec = spec;
  const mean = compileValue(d.mean, 0, store);
  switch (d.dist) {
    case 'deterministic':
      return { mean, sample: () => mean(), isZero: false, isDeterministic: true };
    case 'exponential':
      return { mean, sample: (rng) => rng.exponential(mean()), isZero: false, isDeterministic: false };
    case 'lognormal': {
      const cv = compileValue(d.cv, 1, store);
      return {
        mean,
        sample: (rng) => {
          const m = mean();
          const c = cv();
          const s2 = Math.log(1 + c * c);
          return m * Math.exp(Math.sqrt(s2) * rng.normal() - s2 / 2);
        },
        isZero: false,
        isDeterministic: false,
      };
    }
    case 'uniform': {
      const lo = compileValue(d.min, 0, store);
      const hi = compileValue(d.max, 0, store);
      return {
        mean: () => (lo() + hi()) / 2,
        sample: (rng) => {
          const a = lo();
          return a + (hi() - a) * rng.next();
        },
        isZero: false,
        isDeterministic: false,
      };
    }
    case 'erlang': {
      const k = d.k ?? 1;
      return {
        mean,
        sample: (rng) => {
          const phase = mean() / k;
          let total = 0;
          for (let i = 0; i < k; i++) total += rng.exponential(phase);
          return total;
        },
        isZero: false,
        isDeterministic: false,
      };
    }
  }
}
