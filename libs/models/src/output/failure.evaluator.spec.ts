import { runModel } from '../engine/model.engine';
import { FAILURE_CHECK } from '../engine/model.engine';
import type { ModelSpec, ScenarioSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
import { specWith } from '../testing/spec.fixtures';
import { judgeFix } from './failure.evaluator';
import type { FailureEvaluation } from './model-run.types';

/**
 * A surge of arrivals from `surgeAt` to `surgeEnd` at `surgeLoad` per second; the failure is
 * more than 50 arrivals per second for at least 10 s. Each fix scenario changes one thing.
 */
function surgeSpec(scenarios: ScenarioSpec[]): ModelSpec {
  const param = (name: string, value: number, max = 1000) => ({ name, unit: 'req/s', default: value, min: 0, max, description: name });
  return validateSpec(
    specWith({
      horizon: 300,
      points: 100,
      parameters: [param('load', 10), param('surgeLoad', 100), param('surgeAt', 100), param('surgeEnd', 200)],
      stations: [{ key: 'server', slots: null, service: 0.01 }],
      sources: [{ key: 'arrivals', kind: 'open', arrivals: 'constant', target: 'server', rate: { param: 'load' } }],
      events: [
        { key: 'surge', at: { param: 'surgeAt' }, label: 'Surge', kind: 'setParameter', parameter: 'load', value: { param: 'surgeLoad' } },
        { key: 'calm', at: { param: 'surgeEnd' }, label: 'Calm', kind: 'setParameter', parameter: 'load', value: 10 },
      ],
      probes: [{ key: 'load', metric: 'server.offered', label: 'Arrivals' }],
      failure: {
        description: 'more than 50 arrivals per second for at least 10 s',
        metric: 'server.offered',
        op: 'above',
        threshold: 50,
        sustain: 10,
        source: { quote: 'the server was swamped', place: 'a test' },
      },
      scenarios: [{ key: 'as-happened', title: 'As it happened', description: 'The surge.', actionableKey: null }, ...scenarios],
    }),
  );
}

const fix = (key: string, parameters: Record<string, number>): ScenarioSpec => ({ key, title: key, description: key, actionableKey: key, parameters });

const spec = surgeSpec([
  fix('smaller-surge', { surgeLoad: 40 }),
  fix('later-surge', { surgeAt: 160 }),
  fix('shorter-surge', { surgeEnd: 140 }),
  fix('shallower-surge', { surgeLoad: 60 }),
  fix('same-surge', { load: 10 }),
  { key: 'no-checks-fix', title: 'A fix with no checks', description: 'Smaller surge.', actionableKey: 'x', parameters: { surgeLoad: 20 } },
]);

describe('the failure criterion on a run', () => {
  it('finds when the as-happened run meets it, for how long and how badly, and checks that it does', () => {
    const r = runModel({ spec });
    expect(r.failure).toMatchObject({ met: true, onset: 99, duration: 102, unit: 'req/s' });
    // One output point is 3 s of constant arrivals: its rate is 100 and a third.
    expect(r.failure!.worst).toBeCloseTo(100, 0);
    expect(r.failure!.magnitude).toBeCloseTo(50, 0);
    expect(r.verdict).toBeNull();
    const check = r.checks.find((c) => c.name === FAILURE_CHECK)!;
    expect(check).toMatchObject({ pass: true, kind: 'reproduces', source: { quote: 'the server was swamped', place: 'a test' } });
  });

  it.each([
    ['smaller-surge', 'PREVENTED', null],
    ['later-surge', 'DELAYED', 60],
    ['shorter-surge', 'REDUCED', null],
    ['shallower-surge', 'REDUCED', null],
    ['same-surge', 'NOT_PREVENTED', null],
    ['no-checks-fix', 'PREVENTED', null],
  ])('%s: %s', (scenarioKey, outcome, delay) => {
    const r = runModel({ spec, scenarioKey });
    expect(r.verdict).toMatchObject({ outcome, delay, baselineScenario: 'as-happened' });
    expect(r.verdict!.baseline).toEqual(runModel({ spec }).failure);
    expect(r.verdict!.reason).toContain('more than 50 arrivals per second for at least 10 s');
  });

  it('says why in words, with the figures from the one formatter', () => {
    expect(runModel({ spec, scenarioKey: 'later-surge' }).verdict!.reason).toBe(
      'Delayed, not prevented: the failure criterion (more than 50 arrivals per second for at least 10 s) is met 60 s later than as it happened. With the fix the run meets it from 2.65 min for 42 s, at worst 100 req/s; as it happened the run meets it from 99 s for 102 s, at worst 100 req/s.',
    );
    expect(runModel({ spec, scenarioKey: 'shallower-surge' }).verdict!.reason).toContain('80.1 % less far past the threshold');
  });

  it('does not count a stretch shorter than the sustain time', () => {
    const brief = surgeSpec([fix('brief-surge', { surgeEnd: 106 })]);
    const r = runModel({ spec: brief, scenarioKey: 'brief-surge' });
    expect(r.failure!.met).toBe(false);
    expect(r.verdict!.outcome).toBe('PREVENTED');
  });

  it('has nothing to prevent when what-if values remove the failure from the as-happened run too', () => {
    const r = runModel({ spec, scenarioKey: 'later-surge', parameters: { surgeLoad: 30 } });
    expect(r.verdict!.outcome).toBe('NO_FAILURE');
    expect(r.verdict!.reason).toMatch(/^Nothing to prevent/);
  });

  it("keeps a fix's own values over a what-if's and reports the conflict", () => {
    const r = runModel({ spec, scenarioKey: 'smaller-surge', parameters: { surgeLoad: 100, surgeEnd: 250 } });
    expect(r.parameters.surgeLoad).toBe(40);
    expect(r.parameters.surgeEnd).toBe(250);
    expect(r.conflicts).toEqual([{ parameter: 'surgeLoad', requested: 100, applied: 40 }]);
    expect(r.verdict!.outcome).toBe('PREVENTED');
  });

  it('judges a scenario against its declared baseline', () => {
    const s = surgeSpec([
      { key: 'big-surge', title: 'A bigger surge', description: 'What-if.', actionableKey: null, parameters: { surgeLoad: 200, surgeAt: 50 } },
      { key: 'fix-for-big', title: 'Fix', description: 'Fix.', actionableKey: 'f', parameters: { surgeLoad: 40, surgeAt: 50 }, baseline: 'big-surge' },
    ]);
    const r = runModel({ spec: s, scenarioKey: 'fix-for-big' });
    expect(r.verdict).toMatchObject({ outcome: 'PREVENTED', baselineScenario: 'big-surge', baseline: { onset: 48 } });
    expect(r.verdict!.reason).toContain('in “A bigger surge” the run meets it from 48 s');
  });
});

describe('judgeFix', () => {
  const ev = (over: Partial<FailureEvaluation>): FailureEvaluation => ({
    criterion: 'c',
    metric: 'm',
    unit: 'ratio',
    met: true,
    onset: 100,
    duration: 200,
    worst: 0,
    magnitude: 0.9,
    ...over,
  });

  it('needs more than the tolerance to call a fix delayed or reduced', () => {
    const base = ev({});
    expect(judgeFix(ev({ onset: 104 }), base, 2).outcome).toBe('NOT_PREVENTED');
    expect(judgeFix(ev({ onset: 105 }), base, 2).outcome).toBe('DELAYED');
    expect(judgeFix(ev({ onset: 105 }), base, 2, { seconds: 30 }).outcome).toBe('NOT_PREVENTED');
    expect(judgeFix(ev({ duration: 185 }), base, 2).outcome).toBe('NOT_PREVENTED');
    expect(judgeFix(ev({ duration: 180 }), base, 2).outcome).toBe('REDUCED');
    expect(judgeFix(ev({ duration: 185 }), base, 2, { relative: 0.05 }).outcome).toBe('REDUCED');
    expect(judgeFix(ev({ onset: 90, duration: 300 }), base, 2).outcome).toBe('NOT_PREVENTED');
  });
});
