import { ModelError, ModelErrorCode, ModelParameterError, ModelSpecError } from '../errors/model.error';
import { runModel } from '../engine/model.engine';
import type { ModelSpec } from './model-spec.types';
import { specWith } from '../testing/spec.fixtures';
import { validateSpec } from './model-spec.validator';
import { SpecLimits } from './spec.limits';

function issuesOf(spec: unknown): Array<{ path: string; reason: string }> {
  try {
    validateSpec(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(ModelSpecError);
    return (e as ModelSpecError).issues;
  }
  return [];
}

const base = (): ModelSpec =>
  specWith({
    parameters: [{ name: 'people', unit: 'users', default: 10, min: 1, max: 1e7, integer: true, description: 'Users.' }],
    stations: [{ key: 'front', slots: 4, service: 0.1 }],
    sources: [{ key: 'users', kind: 'open', target: 'front', rate: 1 }],
  });

describe('spec bounds: every size that costs memory or time has a limit, named in the error', () => {
  it('cache nodes', () => {
    const spec = base();
    spec.caches = [{ key: 'cache', nodes: 400_000_000, keysPerNode: 10 }];
    expect(issuesOf(spec)).toContainEqual({ path: 'caches[0].nodes', reason: `expected a positive integer <= ${SpecLimits.cacheNodes} (engine limit), got 400000000` });
    spec.caches[0].nodes = SpecLimits.cacheNodes;
    expect(issuesOf(spec)).toEqual([]);
  });

  it('replicas', () => {
    const spec = base();
    spec.stations[0].replicas = 2e6;
    expect(issuesOf(spec)).toContainEqual({ path: 'stations[0].replicas', reason: `expected a positive integer <= ${SpecLimits.replicas} (engine limit), got 2000000` });
  });

  it('closed users, literal or through a parameter whose range exceeds the limit', () => {
    const spec = base();
    spec.sources = [{ key: 'users', kind: 'closed', target: 'front', users: 1e7, thinkTime: 1 }];
    expect(issuesOf(spec)).toContainEqual({ path: 'sources[0].users', reason: `expected a positive integer <= ${SpecLimits.users} (engine limit), got 10000000` });
    spec.sources[0].users = { param: 'people' };
    expect(issuesOf(spec)).toContainEqual({
      path: 'sources[0].users',
      reason: `parameter "people" ranges over [1, 10000000] (integer) but a positive integer <= ${SpecLimits.users} (engine limit) is expected here`,
    });
  });

  it('closed users computed by an expression are checked again when the run starts', () => {
    const spec = base();
    spec.parameters[0].max = 1e4;
    spec.sources = [{ key: 'users', kind: 'closed', target: 'front', users: { expr: 'people * 1000' }, thinkTime: 1 }];
    expect(issuesOf(spec)).toEqual([]);
    const error = (() => {
      try {
        runModel({ spec, parameters: { people: 5000 }, checks: false });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ModelParameterError);
    expect((error as Error).message).toContain(`a positive integer <= ${SpecLimits.users} (engine limit), got 5000000`);
  });

  it('number of stations and sources', () => {
    const spec = base();
    spec.sources = Array.from({ length: SpecLimits.blocks + 1 }, (_, i) => ({ key: `s${i}`, kind: 'open' as const, target: 'front', rate: 1 }));
    expect(issuesOf(spec)).toContainEqual({ path: 'sources', reason: `expected at most ${SpecLimits.blocks} sources (engine limit), got ${SpecLimits.blocks + 1}` });
  });

  it('probes × points', () => {
    const spec = base();
    spec.probes = Array.from({ length: 5000 }, (_, i) => ({ key: `p${i}`, metric: 'front.queue', label: 'Queue' }));
    expect(issuesOf(spec)).toContainEqual({ path: 'probes', reason: `expected at most 200 probes (probes × 500 points <= ${SpecLimits.probeCells}, engine limit), got 5000` });
    spec.probes = spec.probes.slice(0, 200);
    expect(issuesOf(spec)).toEqual([]);
  });

  it('horizon / fluid step, in the spec and when a run overrides the mode or the step', () => {
    const spec = base();
    spec.engine = { mode: 'fluid', fluidStep: 0.001 };
    spec.horizon = 1e4;
    expect(issuesOf(spec)).toContainEqual({
      path: 'engine.fluidStep',
      reason: `horizon / fluidStep = 10000000 steps; expected at most ${SpecLimits.fluidSteps} (engine limit): raise fluidStep or shorten the horizon`,
    });
    const des = base();
    des.horizon = 1e6;
    expect(issuesOf(des)).toEqual([]);
    const error = (() => {
      try {
        runModel({ spec: des, mode: 'fluid', fluidStep: 0.01, checks: false });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe(ModelErrorCode.InvalidSpec);
    expect((error as Error).message).toContain('fluidStep: horizon / fluidStep = 100000000 steps');
  });

  it('calls per visit, keys per look-aside visit and retries', () => {
    const spec = base();
    spec.stations.push({ key: 'back', service: 0 });
    spec.stations[0].calls = [{ to: 'back', multiplicity: 1e6, policy: { retries: 1e5 } }];
    const issues = issuesOf(spec);
    expect(issues).toContainEqual({ path: 'stations[0].calls[0].multiplicity', reason: `expected a positive integer <= ${SpecLimits.perVisit} (engine limit), got 1000000` });
    expect(issues).toContainEqual({ path: 'stations[0].calls[0].policy.retries', reason: `expected a whole number <= ${SpecLimits.retries} (engine limit), got 100000` });
  });

  it('controller events and trace entries', () => {
    const spec = base();
    spec.events = Array.from({ length: SpecLimits.events + 1 }, (_, i) => ({ key: `e${i}`, at: 1, label: 'x', kind: 'stop' as const, station: 'front' }));
    expect(issuesOf(spec)).toContainEqual({ path: 'events', reason: `expected at most ${SpecLimits.events} events (engine limit), got ${SpecLimits.events + 1}` });
  });
});
