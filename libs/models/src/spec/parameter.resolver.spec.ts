import { ModelErrorCode, ModelParameterError } from '../errors/model.error';
import { specWith } from '../testing/spec.fixtures';
import { parameterConflicts, resolveParameters } from './parameter.resolver';

const spec = specWith({
  parameters: [
    { name: 'keepAliveSeconds', unit: 's', default: 15, min: 0, max: 120, description: 'Keep-alive.' },
    { name: 'cap', unit: 'sessions', default: 40000, min: 1, max: 1000000, integer: true, description: 'Cap.' },
  ],
  stations: [{ key: 'lb', slots: { param: 'cap' }, linger: { param: 'keepAliveSeconds' } }],
  sources: [{ key: 'users', kind: 'open', target: 'lb', rate: 1 }],
  scenarios: [
    { key: 'as-happened', title: 'a', description: 'a', actionableKey: null },
    { key: 'short', title: 'b', description: 'b', actionableKey: 'lower-keep-alive', parameters: { keepAliveSeconds: 5 } },
  ],
});

describe('resolveParameters', () => {
  it("applies defaults, then the caller's values, then the scenario's own (the fix wins)", () => {
    expect(resolveParameters(spec)).toEqual({ keepAliveSeconds: 15, cap: 40000 });
    expect(resolveParameters(spec, {}, 'short')).toEqual({ keepAliveSeconds: 5, cap: 40000 });
    expect(resolveParameters(spec, { keepAliveSeconds: 20, cap: 100 }, 'short')).toEqual({ keepAliveSeconds: 5, cap: 100 });
    expect(resolveParameters(spec, { keepAliveSeconds: 20 }, 'as-happened')).toEqual({ keepAliveSeconds: 20, cap: 40000 });
  });

  it('reports a requested value that conflicts with the scenario\'s own, and only that one', () => {
    expect(parameterConflicts(spec, { keepAliveSeconds: 20, cap: 100 }, 'short')).toEqual([{ parameter: 'keepAliveSeconds', requested: 20, applied: 5 }]);
    expect(parameterConflicts(spec, { keepAliveSeconds: 5 }, 'short')).toEqual([]);
    expect(parameterConflicts(spec, { keepAliveSeconds: 20 }, 'as-happened')).toEqual([]);
  });

  it('still validates a value the scenario does not apply', () => {
    expect(() => resolveParameters(spec, { keepAliveSeconds: 300 }, 'short')).toThrow(/between 0 and 120 s, got 300/);
  });

  it('names the parameter and its allowed range when an override is out of range', () => {
    let error: unknown;
    try {
      resolveParameters(spec, { keepAliveSeconds: 300 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelParameterError);
    const p = error as ModelParameterError;
    expect(p.code).toBe(ModelErrorCode.InvalidParameter);
    expect(p.parameter).toBe('keepAliveSeconds');
    expect(p.path).toBe('parameters.keepAliveSeconds');
    expect(p.reason).toBe('expected a number between 0 and 120 s, got 300');
    expect(p.allowed).toEqual({ min: 0, max: 120, unit: 's' });
  });

  it('rejects unknown names, non-numbers and fractions for integer parameters', () => {
    expect(() => resolveParameters(spec, { keepAlive: 3 })).toThrow(/unknown parameter "keepAlive" \(declared: keepAliveSeconds, cap\)/);
    expect(() => resolveParameters(spec, { cap: '10' as unknown as number })).toThrow(/expected an integer between 1 and 1000000 sessions, got "10"/);
    expect(() => resolveParameters(spec, { cap: 10.5 })).toThrow(/got 10\.5/);
  });

  it('rejects an unknown scenario', () => {
    expect(() => resolveParameters(spec, {}, 'nope')).toThrow(expect.objectContaining({ code: ModelErrorCode.UnknownScenario }));
  });
});
