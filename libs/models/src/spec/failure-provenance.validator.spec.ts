import { ModelSpecError } from '../errors/model.error';
import { specWith } from '../testing/spec.fixtures';
import type { ModelSpec } from './model-spec.types';
import { validateSpec } from './model-spec.validator';

/** The spec fields that say what a reader may believe: failure criterion, provenance, check kinds, baselines. */
function issuesOf(spec: unknown): Array<{ path: string; reason: string }> {
  try {
    validateSpec(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(ModelSpecError);
    return (e as ModelSpecError).issues;
  }
  return [];
}

const QUOTE = { quote: 'the site was down for six minutes', place: 'first paragraph' };

function honest(): ModelSpec {
  return specWith({
    parameters: [
      { name: 'cap', unit: 'sessions', default: 4, min: 1, max: 64, integer: true, description: 'Cap.', provenance: { kind: 'source', ...QUOTE } },
      { name: 'rate', unit: 'req/s', default: 2, min: 0, max: 10, description: 'Rate.', provenance: { kind: 'derived', formula: '6 − 4', from: [QUOTE] } },
      { name: 'hold', unit: 's', default: 1, min: 0, max: 10, description: 'Hold.', provenance: { kind: 'assumption', why: 'not in the source' } },
    ],
    stations: [{ key: 'front', slots: { param: 'cap' }, service: { param: 'hold' } }],
    sources: [{ key: 'users', kind: 'open', target: 'front', rate: { param: 'rate' } }],
    checks: [
      { name: 'busy', description: 'Busy.', scenarios: '*', kind: 'reproduces', source: QUOTE, measure: { metric: 'front.utilisation', stat: 'mean' }, expect: { op: '>', value: 0 }, unit: 'ratio' },
      { name: 'fit', description: 'Fit.', scenarios: '*', kind: 'fitted', fittedParameter: 'rate', measure: { metric: 'front.offered', stat: 'mean' }, expect: { op: '>', value: 0 }, unit: 'req/s' },
    ],
    failure: { description: 'slots all held for 30 s', metric: 'front.utilisation', op: 'above', threshold: 0.99, sustain: 30, source: QUOTE },
    scenarios: [
      { key: 'as-happened', title: 'Base', description: 'Base.', actionableKey: null },
      { key: 'what-if', title: 'What-if', description: 'More load.', actionableKey: null, parameters: { rate: 8 } },
      { key: 'fix', title: 'Fix', description: 'More slots.', actionableKey: 'more-slots', parameters: { cap: 32, rate: 8 }, baseline: 'what-if' },
    ],
  });
}

describe('validateSpec: failure criterion, provenance, check kinds', () => {
  it('accepts a spec that states all of them', () => {
    expect(issuesOf(honest())).toEqual([]);
  });

  it('names the parameter whose provenance is malformed, and why', () => {
    const spec = honest() as unknown as { parameters: Array<Record<string, unknown>> };
    spec.parameters[0]!.provenance = { kind: 'source', quote: 'x' };
    spec.parameters[1]!.provenance = { kind: 'derived', from: [{ quote: 'y' }] };
    spec.parameters[2]!.provenance = { kind: 'guess', why: 'because' };
    expect(issuesOf(spec)).toEqual([
      { path: 'parameters[0].provenance.place', reason: 'expected a non-empty string, got nothing' },
      { path: 'parameters[1].provenance.formula', reason: 'expected a non-empty string, got nothing' },
      { path: 'parameters[1].provenance.from[0].place', reason: 'expected a non-empty string, got nothing' },
      { path: 'parameters[2].provenance.kind', reason: 'expected one of "source", "derived", "assumption", got "guess"' },
    ]);
    spec.parameters[2]!.provenance = { kind: 'assumption', why: 'x', quote: 'stray' };
    expect(issuesOf(spec)).toContainEqual({ path: 'parameters[2].provenance.quote', reason: 'unknown field (allowed: kind, why)' });
  });

  it('requires a reproduced figure to be quoted, and a fitted check to name a declared parameter', () => {
    const spec = honest() as unknown as { checks: Array<Record<string, unknown>> };
    delete spec.checks[0]!.source;
    spec.checks[1]!.fittedParameter = 'nope';
    expect(issuesOf(spec)).toEqual([
      { path: 'checks[0].source', reason: 'a check that reproduces a figure of the source must quote it: expected { quote, place }, got nothing' },
      { path: 'checks[1].fittedParameter', reason: 'expected a declared parameter (declared: cap, rate, hold), got "nope"' },
    ]);
    delete spec.checks[1]!.fittedParameter;
    expect(issuesOf(spec)).toContainEqual({
      path: 'checks[1].fittedParameter',
      reason: 'a "fitted" check names the parameter chosen to make it pass: expected a declared parameter (declared: cap, rate, hold), got nothing',
    });
    spec.checks[1]!.kind = 'evidence';
    expect(issuesOf(spec)).toContainEqual({ path: 'checks[1].kind', reason: 'expected one of "reproduces", "fitted", "construction", got "evidence"' });
  });

  it('checks the failure criterion field by field', () => {
    const spec = honest() as unknown as { failure: Record<string, unknown> };
    spec.failure = { description: 'x', metric: 'front.nonsense', op: 'under', threshold: 'high', sustain: -1, to: { event: 'nope' }, tolerance: { relative: 2 } };
    const paths = issuesOf(spec).map((i) => i.path);
    expect(paths).toEqual(['failure.metric', 'failure.op', 'failure.threshold', 'failure.sustain', 'failure.to.event', 'failure.source', 'failure.tolerance.relative']);
    expect(issuesOf(spec).find((i) => i.path === 'failure.source')!.reason).toBe("expected the source's statement that the failure happened, { quote, place }, got nothing");
    spec.failure = { ...(honest().failure as unknown as Record<string, unknown>), kind: 'fitted', fittedParameter: 'missing' };
    expect(issuesOf(spec)).toEqual([{ path: 'failure.fittedParameter', reason: 'expected a declared parameter (declared: cap, rate, hold), got "missing"' }]);
    spec.failure = { ...(honest().failure as unknown as Record<string, unknown>), kind: 'fitted' };
    expect(issuesOf(spec)).toEqual([
      { path: 'failure.fittedParameter', reason: 'a "fitted" check names the parameter chosen to make it pass: expected a declared parameter (declared: cap, rate, hold), got nothing' },
    ]);
  });

  it('accepts a baseline only when it names another scenario and the model has a failure criterion', () => {
    const spec = honest();
    spec.scenarios[2]!.baseline = 'missing';
    expect(issuesOf(spec)).toEqual([{ path: 'scenarios[2].baseline', reason: 'expected the key of another scenario (known: as-happened, what-if, fix), got "missing"' }]);
    spec.scenarios[2]!.baseline = 'fix';
    expect(issuesOf(spec)).toEqual([{ path: 'scenarios[2].baseline', reason: 'a scenario cannot be judged against itself' }]);
    spec.scenarios[2]!.baseline = 'what-if';
    delete spec.failure;
    expect(issuesOf(spec)).toEqual([{ path: 'scenarios[2].baseline', reason: 'a baseline needs a failure criterion ("failure") to judge the scenario by' }]);
  });
});
