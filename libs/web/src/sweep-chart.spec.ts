import { renderModelChart } from './model-chart';
import { renderSweepChart } from './sweep-chart';

describe('sweep chart', () => {
  const points = [
    { x: 15, y: 0.4, failureMet: true },
    { x: 5, y: 1, failureMet: false },
    { x: 10, y: 0.6, failureMet: true },
    { x: 12, y: null, failureMet: null },
  ];
  const markup = renderSweepChart({ idPrefix: 'ka', parameter: 'keepAliveSeconds', parameterUnit: 's', figureLabel: 'Worst page success', figureUnit: 'ratio', points, text: 'Between 5 s and 10 s it starts being met.' }).value;

  it('draws a point per run, filled where the failure criterion is met, in order of the parameter', () => {
    expect(markup.match(/class="sweep-point sweep-met"/g)).toHaveLength(2);
    expect(markup.match(/class="sweep-point sweep-not-met"/g)).toHaveLength(1);
    expect(markup).toContain('class="sweep-point sweep-none"');
    const listed = [...markup.matchAll(/<li>keepAliveSeconds = ([^:]+):/g)].map((m) => m[1]);
    expect(listed).toEqual(['5 s', '10 s', '12 s', '15 s']);
  });

  it('says the answer and every point in words, ratios as percentages', () => {
    expect(markup).toContain('<p>Between 5 s and 10 s it starts being met.</p>');
    expect(markup).toContain('<li>keepAliveSeconds = 10 s: 60 %; failure criterion met</li>');
    expect(markup).toContain('<li>keepAliveSeconds = 12 s: n/a; not judged</li>');
  });

  it('draws a reference value as a dashed line across the chart, the axis reaching it, and names it in the legend', () => {
    expect(markup).not.toContain('sweep-reference');
    const withLine = renderSweepChart({
      idPrefix: 'ka',
      parameter: 'keepAliveSeconds',
      parameterUnit: 's',
      figureLabel: 'Peak sessions',
      figureUnit: 'sessions',
      points: [
        { x: 5, y: 100, failureMet: false },
        { x: 10, y: 200, failureMet: true },
      ],
      text: '',
      reference: { value: 400, label: 'above 400 sessions: the value searched for' },
    }).value;
    const line = /<g class="sweep-reference"><line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="\2" stroke="[^"]+" stroke-width="1" stroke-dasharray="4 3"><title>above 400 sessions: the value searched for<\/title><\/line><\/g>/.exec(withLine);
    expect(line).not.toBeNull();
    // 400 is beyond every point, so the value axis grows to it: the line lies at the top of the plot.
    const highest = Math.min(...[...withLine.matchAll(/class="sweep-point [^"]+" cx="[\d.]+" cy="([\d.]+)"/g)].map((m) => Number(m[1])));
    expect(Number(line![2])).toBeLessThan(highest);
    expect(withLine).toMatch(/<p class="sweep-legend">.*<span class="sweep-key sweep-reference" aria-hidden="true">- -<\/span> above 400 sessions: the value searched for<\/p>/);
  });
});

describe('ensemble bands on the time-series chart', () => {
  const time = [10, 20, 30, 40];
  const markup = renderModelChart({
    idPrefix: 'b',
    title: 'Sessions',
    unit: 'sessions',
    horizon: 40,
    lines: [{ key: 'as-happened', label: 'As it happened', time, values: [10, 50, 30, 20], band: { low: [8, 40, null, 15], high: [12, 70, null, 25], runs: 20 } }],
  }).value;

  it('shades the 10th–90th percentile behind the line, with a gap where the band is undefined', () => {
    const band = /<path class="chart-band" data-line="as-happened" d="([^"]+)"/.exec(markup);
    expect(band).not.toBeNull();
    // Two stretches would need two points each: only the first (10 s, 20 s) is drawn.
    expect(band![1]!.match(/Z/g)).toHaveLength(1);
    expect(markup).toContain('10th to 90th percentile of 20 runs');
  });

  it('gives the spread at the peak in the text', () => {
    expect(markup).toContain('Over 20 runs, 80 % lie between 40 sessions and 70 sessions at that time.');
  });
});
