import { downsample, niceStep, segments, timeAxis, valueAxis } from './model-chart-scale';

describe('value axis', () => {
  it('starts at zero and ends on a round step at or above the highest value', () => {
    const axis = valueAxis([12000, 38000, null, 41234]);
    expect(axis.min).toBe(0);
    expect(axis.max).toBeGreaterThanOrEqual(41234);
    expect(axis.ticks[0]).toBe(0);
    expect(axis.ticks[axis.ticks.length - 1]).toBe(axis.max);
    expect(axis.ticks.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < axis.ticks.length; i++) expect(axis.ticks[i]! - axis.ticks[i - 1]!).toBeCloseTo(axis.ticks[1]! - axis.ticks[0]!);
  });

  it('gives a flat, single-valued or empty series a usable axis', () => {
    expect(valueAxis([0, 0, 0])).toMatchObject({ min: 0, max: 1 });
    expect(valueAxis([40000, 40000]).max).toBeGreaterThanOrEqual(40000);
    expect(valueAxis([7]).ticks).toContain(0);
    expect(valueAxis([null, null])).toEqual({ min: 0, max: 1, ticks: [0, 0.5, 1] });
  });

  it('reaches below zero when values do', () => {
    const axis = valueAxis([-3, 5]);
    expect(axis.min).toBeLessThanOrEqual(-3);
    expect(axis.ticks).toContain(0);
  });

  it('uses 1-2-2.5-5 steps', () => {
    expect(niceStep(100, 4)).toBe(25);
    expect(niceStep(90, 4)).toBe(25);
    expect(niceStep(10, 5)).toBe(2);
    expect(niceStep(0, 4)).toBe(1);
  });
});

describe('time axis', () => {
  it('counts simulated minutes when the model has no clock time', () => {
    const axis = timeAxis(600, null);
    expect(axis.title).toBe('Simulated time (min)');
    expect(axis.ticks.map((t) => t.label)).toEqual(['0', '2', '4', '6', '8', '10']);
    expect(axis.describe(90)).toBe('1.5 min');
    expect(timeAxis(60, null).title).toBe('Simulated time (s)');
    expect(timeAxis(6 * 3600, null).title).toBe('Simulated time (h)');
  });

  it('reads as UTC clock time from the model time origin, ticks on round minutes', () => {
    const axis = timeAxis(600, '2015-03-31T13:40:00Z');
    expect(axis.title).toBe('Time, UTC (2015-03-31)');
    expect(axis.ticks.map((t) => t.label)).toEqual(['13:40', '13:42', '13:44', '13:46', '13:48', '13:50']);
    expect(axis.describe(373)).toBe('13:46:13 UTC');
    // An origin off the round minute still gets round ticks.
    const odd = timeAxis(600, '2015-03-31T13:40:30Z', 3);
    expect(odd.ticks[0]!.label).toBe('13:45');
    expect(odd.ticks[0]!.at).toBe(270);
  });
});

describe('segments and downsampling', () => {
  it('breaks the line at nulls rather than treating them as zero', () => {
    expect(segments([0, 1, 2, 3, 4], [5, null, 6, 7, null])).toEqual([[{ t: 0, v: 5 }], [{ t: 2, v: 6 }, { t: 3, v: 7 }]]);
  });

  it('keeps each bucket’s extremes, so a one-point spike survives', () => {
    const points = Array.from({ length: 500 }, (_, i) => ({ t: i, v: i === 333 ? 1000 : Math.sin(i / 10) }));
    const reduced = downsample(points, 100);
    expect(reduced.length).toBeLessThanOrEqual(100);
    expect(reduced).toContainEqual({ t: 333, v: 1000 });
    expect(Math.min(...reduced.map((p) => p.v))).toBe(Math.min(...points.map((p) => p.v)));
    // Still in time order.
    expect(reduced.map((p) => p.t)).toEqual([...reduced.map((p) => p.t)].sort((a, b) => a - b));
    expect(downsample(points.slice(0, 10), 100)).toHaveLength(10);
  });
});
