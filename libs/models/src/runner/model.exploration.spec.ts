import { runModel, type RunModelInput } from '../engine/model.engine';
import { ModelParameterError, ModelSpecError } from '../errors/model.error';
import { aggregateEnsemble, quantiles } from '../output/ensemble';
import type { ModelRunResult } from '../output/model-run.types';
import type { EnsembleCheckSpec, ModelSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
import { SpecLimits } from '../spec/spec.limits';
import { specWith } from '../testing/spec.fixtures';
import { loadModelSpec } from '../cli/model-cli';
import { describeBoundary, findBoundary, parseBoundaryFigure, runEnsemble, runSweep, type RunOne } from './model.exploration';
import { ModelRunner } from './model.runner';

const onThread: RunOne = async (input: RunModelInput) => runModel(input);

/**
 * One server near saturation (Poisson arrivals at `load`, exponential service of 0.1 s): its
 * queue passing 15 for 5 s depends on the seed, so the failure probability lies strictly
 * between 0 and 1 at the default load.
 */
function noisyQueue(ensembleChecks: EnsembleCheckSpec[] = []): ModelSpec {
  return validateSpec(
    specWith({
      horizon: 300,
      points: 60,
      parameters: [{ name: 'load', unit: 'req/s', default: 8.5, min: 1, max: 20, description: 'arrival rate' }],
      stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 0.1 } }],
      sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: { param: 'load' } }],
      probes: [
        { key: 'queue', metric: 'server.queue', label: 'Waiting' },
        { key: 'done', metric: 'server.throughput', label: 'Served' },
      ],
      figures: [{ name: 'peak-queue', label: 'Longest queue', unit: 'requests', measure: { metric: 'server.queue', stat: 'max' } }],
      failure: { description: 'more than 15 waiting for at least 5 s', metric: 'server.queue', op: 'above', threshold: 15, sustain: 5, source: { quote: 'requests piled up', place: 'a test' } },
      ensembleChecks,
    }),
  );
}

/** Constant arrivals with a surge of `surgeLoad` from 100 s to 200 s; failing means over 50/s for 10 s. */
const surge = validateSpec(
  specWith({
    horizon: 300,
    points: 100,
    parameters: [
      { name: 'surgeLoad', unit: 'req/s', default: 100, min: 0, max: 1000, description: 'arrivals during the surge' },
      { name: 'base', unit: 'req/s', default: 10, min: 0, max: 100, description: 'ordinary arrivals' },
    ],
    stations: [{ key: 'server', slots: null, service: 0.01 }],
    sources: [{ key: 'arrivals', kind: 'open', arrivals: 'constant', target: 'server', rate: { param: 'base' } }],
    events: [
      { key: 'surge', at: 100, label: 'Surge', kind: 'setParameter', parameter: 'base', value: { param: 'surgeLoad' } },
      { key: 'calm', at: 200, label: 'Calm', kind: 'setParameter', parameter: 'base', value: 10 },
    ],
    probes: [{ key: 'load', metric: 'server.offered', label: 'Arrivals' }],
    figures: [{ name: 'peak', label: 'Peak arrivals', unit: 'req/s', measure: { metric: 'server.offered', stat: 'max' } }],
    failure: { description: 'more than 50 arrivals per second for at least 10 s', metric: 'server.offered', op: 'above', threshold: 50, sustain: 10, source: { quote: 'swamped', place: 'a test' } },
    checks: [
      {
        name: 'surge-stays-under-80',
        description: 'The surge peaks below 80 arrivals per second.',
        scenarios: ['as-happened'],
        measure: { metric: 'server.offered', stat: 'max' },
        expect: { op: '<', value: 80 },
        unit: 'req/s',
      },
    ],
    scenarios: [
      { key: 'as-happened', title: 'As it happened', description: 'The surge.', actionableKey: null },
      { key: 'capped', title: 'Capped surge', description: 'A smaller surge.', actionableKey: 'cap', parameters: { surgeLoad: 30 } },
    ],
  }),
);

describe('seed ensembles', () => {
  it('reports the mean and quantile bands of every series and the share of runs that meet the failure criterion', async () => {
    const spec = noisyQueue();
    const e = await runEnsemble({ spec, seed: 1 }, { seeds: 12 }, onThread);
    const runs: ModelRunResult[] = [];
    for (let seed = 1; seed <= 12; seed++) runs.push(runModel({ spec, seed }));

    expect(e.seeds).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const met = runs.filter((r) => r.failure!.met).length;
    expect(met).toBeGreaterThan(0);
    expect(met).toBeLessThan(12);
    expect(e.failure).toMatchObject({ met, runs: 12 });
    expect(e.failure!.probability).toBeCloseTo(met / 12, 5);

    const k = e.series.findIndex((s) => s.key === 'queue');
    for (const p of [10, 30, 59]) {
      const column = runs.map((r) => r.series[k]!.values[p]!);
      const mean = column.reduce((a, b) => a + b, 0) / column.length;
      expect(e.series[k]!.mean[p]).toBeCloseTo(mean, 4);
      const sorted = [...column].sort((a, b) => a - b);
      expect(e.series[k]!.p10[p]).toBeGreaterThanOrEqual(sorted[0]!);
      expect(e.series[k]!.p10[p]!).toBeLessThanOrEqual(e.series[k]!.p50[p]!);
      expect(e.series[k]!.p50[p]!).toBeLessThanOrEqual(e.series[k]!.p90[p]!);
      expect(e.series[k]!.p90[p]).toBeLessThanOrEqual(sorted[11]!);
    }
    const peaks = runs.map((r) => r.summary[0]!.value!);
    expect(e.summary[0]).toMatchObject({ name: 'peak-queue', n: 12, min: Math.min(...peaks), max: Math.max(...peaks) });
    expect(e.text).toContain(`is met in ${met} of 12 runs`);
  });

  it('gives the same bytes from worker threads as on the calling thread, whatever the order the runs finish in', async () => {
    const spec = noisyQueue();
    const runner = new ModelRunner({ concurrency: 2, maxQueue: 8 });
    try {
      const parallel = await runEnsemble({ spec, seed: 5 }, { seeds: 4, concurrency: 2 }, (x) => runner.run(x));
      const serial = await runEnsemble({ spec, seed: 5 }, { seeds: 4, concurrency: 1 }, onThread);
      expect(JSON.stringify(parallel)).toBe(JSON.stringify(serial));
      const reversed = aggregateEnsemble(spec, [8, 7, 6, 5].map((seed) => runModel({ spec, seed })));
      expect(JSON.stringify(reversed)).toBe(JSON.stringify(serial));
    } finally {
      await runner.close();
    }
  });

  it('evaluates checks over the ensemble and says which need more runs than it has', async () => {
    const spec = noisyQueue([
      { name: 'often-fails', description: 'fails in at least 60 % of runs', scenarios: '*', seeds: 10, stat: 'failureProbability', expect: { op: '>=', value: 0.6 }, unit: 'ratio' },
      { name: 'rarely-fails', description: 'fails in at most 95 % of runs', scenarios: '*', seeds: 10, stat: 'failureProbability', expect: { op: '<=', value: 0.95 }, unit: 'ratio' },
      { name: 'mean-peak', description: 'mean longest queue', scenarios: '*', seeds: 10, figure: 'peak-queue', stat: 'mean', expect: { op: 'between', min: 5, max: 200 }, unit: 'requests', kind: 'construction' },
      { name: 'big-ensemble', description: 'needs 50 runs', scenarios: '*', seeds: 50, stat: 'failureProbability', expect: { op: '>=', value: 0 }, unit: 'ratio' },
    ]);
    const e = await runEnsemble({ spec }, { seeds: 12 }, onThread);
    const first10 = Array.from({ length: 10 }, (_, i) => runModel({ spec, seed: 1 + i }));
    const share = first10.filter((r) => r.failure!.met).length / 10;
    const byName = Object.fromEntries(e.checks.map((c) => [c.name, c]));
    expect(byName['often-fails']!.observed).toBeCloseTo(share, 6);
    expect(byName['often-fails']!.pass).toBe(share >= 0.6);
    expect(byName['rarely-fails']!.pass).toBe(share <= 0.95);
    expect(byName['mean-peak']!.observed).toBeCloseTo(quantiles(first10.map((r) => r.summary[0]!.value)).mean!, 4);
    expect(byName['mean-peak']).toMatchObject({ kind: 'construction', expectedText: 'between 5 requests and 200 requests' });
    expect(e.notEvaluated).toEqual([{ name: 'big-ensemble', reason: 'needs an ensemble of 50 runs; this one has 12' }]);
  });

  it('is bounded: more seeds than the limit is refused with the limit in the error', async () => {
    await expect(runEnsemble({ spec: noisyQueue() }, { seeds: SpecLimits.ensembleSeeds + 1 }, onThread)).rejects.toThrow(`between 1 and ${SpecLimits.ensembleSeeds} (engine limit)`);
  });

  it('validates ensemble checks: their run count, the figure they read, a failure criterion for a probability', () => {
    const base = noisyQueue() as unknown as Record<string, unknown>;
    const bad = {
      ...base,
      failure: undefined,
      ensembleChecks: [
        { name: 'too-many', description: 'x', scenarios: '*', seeds: 5000, figure: 'peak-queue', stat: 'mean', expect: { op: '>=', value: 0 }, unit: 'requests' },
        { name: 'no-figure', description: 'x', scenarios: '*', seeds: 10, figure: 'nothing', stat: 'p90', expect: { op: '>=', value: 0 }, unit: 'requests' },
        { name: 'no-failure', description: 'x', scenarios: '*', seeds: 10, stat: 'failureProbability', expect: { op: '>=', value: 0.5 }, unit: 'ratio', colour: 'red' },
      ],
    };
    let error: ModelSpecError | null = null;
    try {
      validateSpec(bad);
    } catch (e) {
      error = e as ModelSpecError;
    }
    const paths = error!.issues.map((i) => `${i.path}: ${i.reason}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        `ensembleChecks[0].seeds: expected a whole number of runs between 2 and ${SpecLimits.ensembleSeeds} (engine limit), got 5000`,
        expect.stringMatching(/^ensembleChecks\[1\]\.figure: expected the name of a figure \(known: peak-queue\), got "nothing"/),
        'ensembleChecks[2].stat: failureProbability needs a failure criterion ("failure") to count runs by',
        expect.stringMatching(/^ensembleChecks\[2\]\.colour: /),
      ]),
    );
  });
});

describe('parameter sweeps', () => {
  it('runs the scenario at every value and says where the failure criterion starts being met', async () => {
    const s = await runSweep({ spec: surge }, { axes: [{ parameter: 'surgeLoad', from: 20, to: 80, count: 4 }] }, onThread);
    expect(s.axes).toEqual([{ parameter: 'surgeLoad', unit: 'req/s', values: [20, 40, 60, 80] }]);
    expect(s.points.map((p) => p.failureMet)).toEqual([false, false, true, true]);
    expect(s.points.map((p) => Math.round(p.figures.peak!))).toEqual([20, 40, 60, 80]);
    expect(s.points[2]!.inputHash).toBe(runModel({ spec: surge, parameters: { surgeLoad: 60 }, checks: false }).inputHash);
    expect(s.text).toContain('Between surgeLoad = 40 req/s and surgeLoad = 60 req/s it starts being met');
  });

  it('sweeps a grid of two parameters', async () => {
    const s = await runSweep(
      { spec: surge },
      {
        axes: [
          { parameter: 'surgeLoad', from: 40, to: 60, count: 2 },
          { parameter: 'base', from: 0, to: 10, count: 3 },
        ],
      },
      onThread,
    );
    expect(s.points.map((p) => p.values)).toEqual([
      { surgeLoad: 40, base: 0 },
      { surgeLoad: 40, base: 5 },
      { surgeLoad: 40, base: 10 },
      { surgeLoad: 60, base: 0 },
      { surgeLoad: 60, base: 5 },
      { surgeLoad: 60, base: 10 },
    ]);
    expect(s.points.map((p) => p.failureMet)).toEqual([false, false, false, true, true, true]);
  });

  it('refuses sweeps beyond the limit, outside the range, or over a value the scenario fixes itself', async () => {
    await expect(runSweep({ spec: surge }, { axes: [{ parameter: 'surgeLoad', from: 0, to: 100, count: SpecLimits.sweepPoints + 1 }] }, onThread)).rejects.toThrow(
      `expected at most ${SpecLimits.sweepPoints} runs in one sweep (engine limit), got ${SpecLimits.sweepPoints + 1}`,
    );
    await expect(runSweep({ spec: surge }, { axes: [{ parameter: 'surgeLoad', from: 0, to: 2000, count: 3 }] }, onThread)).rejects.toThrow('sweep[0].to: expected a number between 0 and 1000 req/s, got 2000');
    const fixed = runSweep({ spec: surge, scenarioKey: 'capped' }, { axes: [{ parameter: 'surgeLoad', from: 0, to: 100, count: 3 }] }, onThread);
    await expect(fixed).rejects.toBeInstanceOf(ModelParameterError);
    await expect(fixed).rejects.toThrow('scenario "capped" sets surgeLoad itself');
  });
});

describe('boundary search', () => {
  it('finds by bisection the value where the failure criterion flips, and words it', async () => {
    const b = await findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 0.5 }, onThread);
    expect(b.metAtFrom).toBe(false);
    expect(b.metAtTo).toBe(true);
    expect(b.boundary!.above - b.boundary!.below).toBeLessThanOrEqual(0.5);
    // "More than 50 per second" read on 3 s points of evenly spaced arrivals: the flip is at 50 to 51.
    expect(b.boundary!.below).toBeLessThanOrEqual(51);
    expect(b.boundary!.above).toBeGreaterThan(50);
    expect(b.boundary!.above).toBeLessThanOrEqual(51);
    expect(b.probes.length).toBeLessThanOrEqual(SpecLimits.boundaryRuns);
    expect(b.text).toMatch(/^Below surgeLoad = 5\d(\.\d+)? req\/s the failure criterion \(more than 50 arrivals per second for at least 10 s\) is never met; from 5\d(\.\d+)? req\/s on it is met/);
  });

  it('says so when both ends agree', async () => {
    const b = await findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 60, to: 100 }, onThread);
    expect(b.boundary).toBeNull();
    expect(b.probes).toHaveLength(2);
    expect(b.text).toMatch(/^No flip between 60 req\/s and 100 req\/s: the failure criterion .* is met at both ends/);
  });

  it('bisects on a named check instead of the failure criterion, and words it', async () => {
    const b = await findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 0.5, check: 'surge-stays-under-80' }, onThread);
    expect(b.target).toEqual({ kind: 'check', check: { name: 'surge-stays-under-80', description: 'The surge peaks below 80 arrivals per second.' }, figure: null });
    expect([b.metAtFrom, b.metAtTo]).toEqual([true, false]);
    // Evenly spaced arrivals read on 3 s points: the peak is the surge rate, so the check flips at 80.
    expect(b.boundary!.below).toBeLessThan(80);
    expect(b.boundary!.above).toBeGreaterThanOrEqual(79.5);
    expect(b.boundary!.above).toBeLessThanOrEqual(81);
    expect(b.probes.every((p) => p.checkPassed === p.value < b.boundary!.above)).toBe(true);
    // The failure criterion is still reported per run, but not searched on (it flips near 50).
    expect(b.probes.find((p) => p.value === 10)!.failureMet).toBe(false);
    expect(b.text).toMatch(/^Below surgeLoad = 79\.\d+ req\/s the check "surge-stays-under-80" \(The surge peaks below 80 arrivals per second\) passes; from [\d.]+ req\/s on it fails/);
  });

  it('refuses a check that does not exist or is not evaluated on the scenario', async () => {
    await expect(findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, check: 'nope' }, onThread)).rejects.toThrow('boundary.check: unknown check "nope" (known: surge-stays-under-80)');
    await expect(findBoundary({ spec: surge, scenarioKey: 'capped' }, { parameter: 'base', from: 1, to: 20, check: 'surge-stays-under-80' }, onThread)).rejects.toThrow(
      'boundary.check: check "surge-stays-under-80" is evaluated on as-happened, not on scenario "capped"',
    );
  });

  it('bisects on a summary figure crossing a value, and words it', async () => {
    const b = await findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 0.5, figure: { name: 'peak', op: 'above', value: 65 } }, onThread);
    expect(b.target).toEqual({ kind: 'figure', check: null, figure: { name: 'peak', op: 'above', value: 65, label: 'Peak arrivals', unit: 'req/s' } });
    expect([b.metAtFrom, b.metAtTo]).toEqual([false, true]);
    // The peak of evenly spaced arrivals is the surge rate: it passes 65 where the surge does.
    expect(b.boundary!.below).toBeLessThanOrEqual(65);
    expect(b.boundary!.above).toBeGreaterThan(65);
    expect(b.boundary!.above - b.boundary!.below).toBeLessThanOrEqual(0.5);
    // Each probe carries the figure it was judged on; the failure criterion is still reported.
    expect(b.probes.every((p) => p.figureValue !== null && p.figureValue > 65 === p.value >= b.boundary!.above)).toBe(true);
    expect(b.probes.every((p) => p.checkPassed === null)).toBe(true);
    expect(b.probes.find((p) => p.value === 100)!.failureMet).toBe(true);
    expect(b.text).toMatch(/^Below surgeLoad = 6\d(\.\d+)? req\/s the figure "peak" \(Peak arrivals\) is not above 65 req\/s; from 6\d(\.\d+)? req\/s on it is above 65 req\/s/);
    // Below a value: the same flip seen from the other side (a peak of exactly 65 is neither
    // above nor below 65, so the two brackets may differ by that one value's width).
    const under = await findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 0.5, figure: { name: 'peak', op: 'below', value: 65 } }, onThread);
    expect([under.metAtFrom, under.metAtTo]).toEqual([true, false]);
    expect(under.probes.every((p) => p.figureValue! < 65 === p.value < under.boundary!.above)).toBe(true);
    expect(Math.abs(under.boundary!.estimate - b.boundary!.estimate)).toBeLessThan(1);
  });

  it('searches on a figure of a model that states no failure criterion', async () => {
    const bare = validateSpec({ ...surge, failure: undefined, checks: [] });
    await expect(findBoundary({ spec: bare }, { parameter: 'surgeLoad', from: 10, to: 100 }, onThread)).rejects.toThrow('states no failure criterion to search on; name a check or a figure');
    const b = await findBoundary({ spec: bare }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 1, figure: { name: 'peak', op: 'above', value: 40 } }, onThread);
    expect(b.boundary!.above).toBeGreaterThan(40);
    expect(b.boundary!.above).toBeLessThanOrEqual(41);
  });

  it('refuses an unknown figure (listing the known ones), a check and a figure together, and a bad comparison or value', async () => {
    const search = (figure: unknown, check?: string) =>
      findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, check, figure: figure as { name: string; op: 'above'; value: number } }, onThread);
    await expect(search({ name: 'nope', op: 'above', value: 1 })).rejects.toThrow('boundary.figure.name: unknown figure "nope" (known: peak)');
    await expect(search({ name: 'peak', op: 'above', value: 1 }, 'surge-stays-under-80')).rejects.toThrow('boundary.figure: search on a check or on a figure, not both');
    // The same order whatever else is wrong: the check, the figure's name, op and value, then both together.
    await expect(search({ name: 'nope', op: 'over', value: Number.NaN }, 'nope')).rejects.toThrow('boundary.check: unknown check "nope"');
    await expect(search({ name: 'nope', op: 'over', value: Number.NaN }, 'surge-stays-under-80')).rejects.toThrow('boundary.figure.name: unknown figure "nope"');
    await expect(search({ name: 'nope', op: 'over', value: Number.NaN })).rejects.toThrow('boundary.figure.name: unknown figure "nope"');
    await expect(search({ name: 'peak', op: 'over', value: Number.NaN })).rejects.toThrow('boundary.figure.op: expected "above" or "below", got "over"');
    await expect(search({ name: 'peak', op: 'over', value: 1 })).rejects.toThrow('boundary.figure.op: expected "above" or "below", got "over"');
    await expect(search({ name: 'peak', value: 1 })).rejects.toThrow('boundary.figure.op: expected "above" or "below", got nothing');
    await expect(search({ name: 'peak', op: 'above', value: Number.NaN })).rejects.toThrow("boundary.figure.value: expected a finite number in the figure's unit (req/s), got NaN");
    // A number written as text is told apart from the number.
    await expect(search({ name: 'peak', op: 'above', value: '5' })).rejects.toThrow("boundary.figure.value: expected a finite number in the figure's unit (req/s), got \"5\"");
  });

  it('never calls an undefined figure "not above": where it becomes defined is said to be that', async () => {
    // The first time the arrivals pass 50/s: undefined while the surge stays at or below 50/s,
    // then about 100 s (the surge's start), which is above 50 s from the first run that has it.
    const timed = validateSpec({ ...surge, figures: [{ name: 'onset', label: 'First time above 50 arrivals per second', unit: 's', measure: { metric: 'server.offered', stat: 'firstTimeAbove', threshold: 50 } }] });
    const b = await findBoundary({ spec: timed }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 0.5, figure: { name: 'onset', op: 'above', value: 50 } }, onThread);
    expect([b.metAtFrom, b.metAtTo]).toEqual([false, true]);
    expect(b.probes.every((p) => (p.figureValue === null) === p.value <= b.boundary!.below)).toBe(true);
    expect(b.boundary!.below).toBeLessThanOrEqual(50);
    expect(b.boundary!.above).toBeGreaterThan(50);
    expect(b.text).not.toContain('not above');
    expect(b.text).toMatch(
      /^Below surgeLoad = [\d.]+ req\/s the figure "onset" \(First time above 50 arrivals per second\) is undefined \(it has no value, e\.g\. the event it times never happens\); from [\d.]+ req\/s on it is above 50 s \(.*\)\. So this is where the figure gets a value \(one already above 50 s\), not where a value of it crosses 50 s\. \(surgeLoad: arrivals during the surge\)$/,
    );
    // Undefined at both ends, or at one end and defined but not beyond at the other: no flip, said as such.
    const none = await findBoundary({ spec: timed }, { parameter: 'surgeLoad', from: 10, to: 40, figure: { name: 'onset', op: 'above', value: 50 } }, onThread);
    expect(none.boundary).toBeNull();
    expect(none.text).toMatch(/^No flip between 10 req\/s and 40 req\/s: the figure "onset" .* is undefined \(.*\) at both ends of the range/);
    const late = await findBoundary({ spec: timed }, { parameter: 'surgeLoad', from: 10, to: 100, figure: { name: 'onset', op: 'above', value: 500 } }, onThread);
    expect(late.boundary).toBeNull();
    expect(late.text).toMatch(/^No flip between 10 req\/s and 100 req\/s: the figure "onset" .* is undefined \(.*\) at 10 req\/s and is not above 500 s at 100 req\/s, so it is beyond the value at neither end/);
    // A side that mixes undefined runs with runs not beyond the value says how many are which.
    const probe = (value: number, figureValue: number | null) => ({ value, failureMet: false, checkPassed: null, figureValue, verdict: null, inputHash: '' });
    const mixed = describeBoundary({
      ...b,
      metAtFrom: false,
      metAtTo: true,
      boundary: { below: 50, above: 55, estimate: 52.5 },
      probes: [probe(10, null), probe(100, 120), probe(55, 70), probe(32.5, 30), probe(50, 40)],
    });
    expect(mixed).toMatch(/^Below surgeLoad = 50 req\/s the figure "onset" .* is not above 50 s where it has a value \(it is undefined on 1 of those 3 runs, .*\); from 55 req\/s on it is above 50 s \(/);
    expect(mixed).not.toContain('gets a value');
  });

  it('reads a figure target written as name:above|below:value, numbers as the page reads them', () => {
    expect(parseBoundaryFigure('peak-queue:above:500')).toEqual({ figure: { name: 'peak-queue', op: 'above', value: 500 }, problem: null });
    expect(parseBoundaryFigure(' timed-out:below:0.05 ')).toEqual({ figure: { name: 'timed-out', op: 'below', value: 0.05 }, problem: null });
    expect(parseBoundaryFigure('x:BELOW:-1e3')).toEqual({ figure: { name: 'x', op: 'below', value: -1000 }, problem: null });
    expect(parseBoundaryFigure('x:above:+5')).toEqual({ figure: { name: 'x', op: 'above', value: 5 }, problem: null });
    expect(parseBoundaryFigure('x:above:1E2')).toEqual({ figure: { name: 'x', op: 'above', value: 100 }, problem: null });
    expect(parseBoundaryFigure('x:above:1e400')).toEqual({ figure: null, problem: 'not finite' });
    expect(parseBoundaryFigure('x:below:-1e400')).toEqual({ figure: null, problem: 'not finite' });
    // Names as a spec writes them (lower-case kebab-case); numbers in plain decimal notation only.
    const malformed = ['peak', 'peak:above', 'peak:over:5', 'peak:above:five', 'peak:above:5:6', ':above:5', 'peak:above:', 'Peak:above:5', 'peak_queue:above:5', 'peak:above:0x10', 'peak:above:Infinity', 'peak:above:1_000'];
    for (const bad of malformed) expect([bad, parseBoundaryFigure(bad)]).toEqual([bad, { figure: null, problem: 'form' }]);
  });

  it('answers "throttle steps of up to Y % recover, larger ones relapse" on Slack’s model', async () => {
    const slack = loadModelSpec('slack-cache-metastability-2022');
    const b = await findBoundary({ spec: slack }, { parameter: 'firstRelaxAdmit', from: 0.3, to: 1, tolerance: 0.05, check: 'relaxing-too-fast-relapses' }, onThread);
    // A small first step (to 30 %: no step at all) does not relapse; the step to 100 % does.
    expect([b.metAtFrom, b.metAtTo]).toEqual([false, true]);
    expect(b.boundary!.above - b.boundary!.below).toBeLessThanOrEqual(0.05);
    // The step taken as it happened (to 80 %) lies above the flip: it relapsed, as the write-up says.
    expect(b.boundary!.above).toBeLessThanOrEqual(0.8);
    expect(b.boundary!.below).toBeGreaterThan(0.4);
    expect(b.text).toMatch(/^Below firstRelaxAdmit = [\d.]+ % the check "relaxing-too-fast-relapses" .* fails; from [\d.]+ % on it passes/);
  });

  it('is bounded in runs', async () => {
    await expect(findBoundary({ spec: surge }, { parameter: 'surgeLoad', from: 10, to: 100, tolerance: 1e-12 }, onThread)).rejects.toThrow(`more than ${SpecLimits.boundaryRuns} runs (engine limit)`);
  });
});
