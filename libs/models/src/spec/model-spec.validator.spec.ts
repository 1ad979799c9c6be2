import { ModelErrorCode, ModelSpecError } from '../errors/model.error';
import { specWith } from '../testing/spec.fixtures';
import { validateSpec } from './model-spec.validator';

function issuesOf(spec: unknown): Array<{ path: string; reason: string }> {
  try {
    validateSpec(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(ModelSpecError);
    expect((e as ModelSpecError).code).toBe(ModelErrorCode.InvalidSpec);
    return (e as ModelSpecError).issues;
  }
  return [];
}

const base = () =>
  specWith({
    parameters: [{ name: 'workers', unit: 'slots', default: 4, min: 1, max: 64, integer: true, description: 'Worker slots.' }],
    stations: [
      { key: 'front', slots: null, calls: [{ to: 'back' }] },
      { key: 'back', slots: { param: 'workers' }, service: 0.1 },
    ],
    sources: [{ key: 'users', kind: 'open', target: 'front', rate: 1 }],
  });

describe('validateSpec', () => {
  it('accepts a well-formed spec and returns it typed', () => {
    const spec = base();
    expect(validateSpec(spec)).toBe(spec);
  });

  it('names the field and the expectation: stations[1].slots', () => {
    const spec = base();
    spec.stations[1].slots = -3;
    expect(issuesOf(spec)).toContainEqual({ path: 'stations[1].slots', reason: 'expected a positive integer, got -3' });
    try {
      validateSpec(spec);
    } catch (e) {
      expect((e as ModelSpecError).path).toBe('stations[1].slots');
      expect((e as Error).message).toBe('stations[1].slots: expected a positive integer, got -3');
    }
  });

  it('reports unknown references between blocks', () => {
    const spec = base();
    spec.stations[0].calls = [{ to: 'nowhere' }];
    spec.sources[0].target = 'missing';
    const issues = issuesOf(spec);
    expect(issues).toContainEqual(expect.objectContaining({ path: 'stations[0].calls[0].to', reason: expect.stringContaining('unknown station "nowhere"') }));
    expect(issues).toContainEqual(expect.objectContaining({ path: 'sources[0].target', reason: expect.stringContaining('unknown station "missing"') }));
  });

  it('checks parameter references and that their range fits the field', () => {
    const spec = base();
    spec.stations[1].slots = { param: 'nope' };
    expect(issuesOf(spec)).toContainEqual(expect.objectContaining({ path: 'stations[1].slots', reason: expect.stringContaining('unknown parameter "nope"') }));
    const loose = base();
    loose.parameters[0].min = 0;
    expect(issuesOf(loose)).toContainEqual({
      path: 'stations[1].slots',
      reason: 'parameter "workers" ranges over [0, 64] (integer) but a positive integer is expected here',
    });
  });

  it('evaluates expressions with the default parameters', () => {
    const spec = base();
    spec.stations[1].service = { expr: 'workers - 10' };
    expect(issuesOf(spec)).toContainEqual({
      path: 'stations[1].service',
      reason: 'expression "workers - 10" gives -6 with the default parameters; expected a number >= 0',
    });
  });

  it('rejects scenario overrides outside the parameter range, naming the range', () => {
    const spec = base();
    spec.scenarios.push({ key: 'bigger', title: 'Bigger', description: 'More workers.', actionableKey: 'add-workers', parameters: { workers: 100 } });
    expect(issuesOf(spec)).toContainEqual({ path: 'scenarios[1].parameters.workers', reason: 'expected an integer between 1 and 64 slots, got 100' });
  });

  it('requires an as-happened scenario and unique keys', () => {
    const spec = base();
    spec.scenarios = [{ key: 'other', title: 'Other', description: 'x', actionableKey: null }];
    spec.stations[1].key = 'front';
    const issues = issuesOf(spec);
    expect(issues).toContainEqual({ path: 'scenarios', reason: 'expected a scenario with key "as-happened"' });
    expect(issues).toContainEqual({ path: 'stations[1].key', reason: 'duplicate block key "front"' });
  });

  it('resolves metric names and flags typos in fields', () => {
    const spec = base();
    spec.probes = [{ key: 'p', metric: 'back.latencyy', label: 'x' }];
    (spec.stations[0] as unknown as Record<string, unknown>).slotz = 3;
    const issues = issuesOf(spec);
    expect(issues).toContainEqual(expect.objectContaining({ path: 'probes[0].metric', reason: expect.stringContaining('unknown station metric "latencyy"') }));
    expect(issues).toContainEqual(expect.objectContaining({ path: 'stations[0].slotz', reason: expect.stringContaining('unknown field') }));
  });

  it('checks the fields of each controller event kind', () => {
    const spec = base();
    spec.events = [
      { key: 'flush', at: 10, kind: 'cacheFlush', cache: 'no-cache', fraction: 2, label: 'x' },
      { key: 'cfg', at: 10, kind: 'setParameter', parameter: 'workers', value: 500, label: 'y' },
    ];
    const issues = issuesOf(spec);
    expect(issues).toContainEqual({ path: 'events[0].cache', reason: 'unknown cache "no-cache"' });
    expect(issues).toContainEqual({ path: 'events[0].fraction', reason: 'expected a number between 0 and 1, got 2' });
    expect(issues).toContainEqual({ path: 'events[1].value', reason: 'expected an integer between 1 and 64 slots for "workers", got 500' });
  });
});
