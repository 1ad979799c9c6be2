import { chartMarkers, LINE_STYLES, renderModelChart, type ChartLine, type ModelChartInput } from './model-chart';

/** Start tags with their attributes, enough to read a rendered chart. */
function tags(markup: string, name: string): Record<string, string>[] {
  return [...markup.matchAll(new RegExp(`<${name}\\b([^>]*)>`, 'g'))].map((m) => Object.fromEntries([...m[1]!.matchAll(/([A-Za-z0-9:-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])));
}

/** Text of every element of this name with this class (no nesting inside them in charts). */
function texts(markup: string, name: string, className?: string): string[] {
  const cls = className ? `[^>]*class="[^"]*\\b${className}\\b[^"]*"` : '';
  return [...markup.matchAll(new RegExp(`<${name}\\b${cls}[^>]*>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);
}

const N = 300;
const HORIZON = 600;
const TIME = Array.from({ length: N }, (_, i) => ((i + 0.5) * HORIZON) / N);
const EVENTS = [
  { key: 'peak', at: 60, kind: 'setParameter', label: 'StackEgg requests at peak' },
  { key: 'off', at: 373, kind: 'setParameter', label: 'StackEgg turned off' },
];

const asHappened: ChartLine = {
  key: 'as-happened',
  label: '31 March at peak, as it happened',
  time: TIME,
  values: TIME.map((t) => (t < 60 ? 38500 : t < 373 ? 40000 : 38500)),
  events: EVENTS,
};
const lowerKeepAlive: ChartLine = {
  key: 'lower-keep-alive',
  label: 'Keep-alive lowered to 5 s',
  time: TIME,
  values: TIME.map((t) => (t < 60 ? 12800 : t < 373 ? 30000 : 12800)),
  events: EVENTS,
};
const april: ChartLine = {
  key: 'april-1',
  label: '1 April: keep-alive cut from 15 s to 5 s',
  time: TIME,
  values: TIME.map((t) => (t < 300 ? 59500 : 19800)),
  events: [{ key: 'keep-alive-5s', at: 300, kind: 'setParameter', label: 'Keep-alive 15 s → 5 s' }],
};

const base: ModelChartInput = { idPrefix: 'chart-sessions', title: 'Concurrent sessions', unit: 'sessions', lines: [asHappened, lowerKeepAlive, april], horizon: HORIZON };

describe('renderModelChart', () => {
  it('draws labelled axes with units: values from zero, simulated minutes without a clock origin', () => {
    const out = renderModelChart(base).value;
    expect(out).toMatch(/^<figure class="model-chart" id="chart-sessions">/);
    expect(texts(out, 'text', 'y-title')).toEqual(['sessions']);
    expect(texts(out, 'text', 'x-title')).toEqual(['Simulated time (min)']);
    expect(texts(out, 'text', 'x-tick')).toEqual(['0', '2', '4', '6', '8', '10']);
    // Value ticks start at zero and reach past the highest value (59,500).
    const yTicks = [...out.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="end"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(yTicks[0]).toBe('0');
    expect(yTicks[yTicks.length - 1]).toBe('60k');
    expect(yTicks.length).toBeLessThanOrEqual(6);
    // Named and described for assistive technology, and tied to the visible summary.
    const svg = tags(out, 'svg')[0]!;
    expect(svg.role).toBe('img');
    expect(svg['aria-labelledby']).toBe('chart-sessions-title chart-sessions-desc');
    expect(svg['aria-describedby']).toBe('chart-sessions-summary');
    expect(texts(out, 'title')[0]).toBe('Concurrent sessions (sessions), by scenario');
    expect(texts(out, 'desc')[0]).toBe('Line chart over 10 min of simulated time: 3 runs, 3 events marked. The text after the chart gives each run&#39;s peak.');
  });

  it('reads the time axis as UTC clock time when the model has a time origin', () => {
    const out = renderModelChart({ ...base, timeOrigin: '2015-03-31T13:40:00Z' }).value;
    expect(texts(out, 'text', 'x-title')).toEqual(['Time, UTC (2015-03-31)']);
    expect(texts(out, 'text', 'x-tick')).toEqual(['13:40', '13:42', '13:44', '13:46', '13:48', '13:50']);
    expect(out).toContain('13:46:13 UTC: StackEgg turned off');
  });

  it('gives every line a legend entry with its own colour and dash pattern, as-happened solid', () => {
    const out = renderModelChart(base).value;
    const legend = out.slice(out.indexOf('<ul class="chart-legend"'), out.indexOf('</ul>') + 5);
    expect(texts(legend, 'span')).toEqual([asHappened.label, lowerKeepAlive.label, april.label]);
    const samples = tags(legend, 'path');
    const lines = tags(out, 'g').filter((g) => g.class?.startsWith('chart-line '));
    // The run as it happened first, underneath, so a fix lying on it still shows its dashes.
    expect(lines.map((g) => g['data-line'])).toEqual(['as-happened', 'lower-keep-alive', 'april-1']);
    expect(lines.map((g) => g.class)).toEqual(['chart-line line-0', 'chart-line line-1', 'chart-line line-2']);
    const drawn = tags(out.slice(out.indexOf('<g class="chart-lines">')), 'path').slice(0, 3);
    for (let i = 0; i < 3; i++) {
      expect(samples[i]!.stroke).toBe(LINE_STYLES[i]!.stroke);
      expect(drawn[i]!.stroke).toBe(LINE_STYLES[i]!.stroke);
      expect(drawn[i]!['stroke-dasharray']).toBe(samples[i]!['stroke-dasharray']);
    }
    expect(samples[0]!['stroke-dasharray']).toBeUndefined();
    // Told apart without colour: every dash pattern differs.
    expect(new Set(LINE_STYLES.map((s) => s.dash ?? 'solid')).size).toBe(LINE_STYLES.length);
  });

  it('marks each trigger and intervention on the time axis, numbered, and lists them in words', () => {
    const out = renderModelChart({ ...base, timeOrigin: '2015-03-31T13:40:00Z' }).value;
    const markers = tags(out, 'g').filter((g) => g.class?.startsWith('chart-event '));
    expect(markers.map((m) => m['data-event'])).toEqual(['peak', 'keep-alive-5s', 'off']);
    // The dashed line sits at the event's time on the axis: 60 s of 600 is a tenth of the plot.
    const axis = tags(out, 'line').filter((l) => l.y1 === l.y2 && l.x2 !== l.x1).pop()!;
    const [left, right] = [Number(axis.x1), Number(axis.x2)];
    const peakLine = tags(out.slice(out.indexOf('data-event="peak"')), 'line')[0]!;
    expect(Number(peakLine.x1)).toBeCloseTo(left + (right - left) / 10, 0);
    expect(peakLine['stroke-dasharray']).toBe('3 3');
    expect(texts(out, 'text', 'event-number')).toEqual(['1', '2', '3']);
    const list = out.slice(out.indexOf('<ol class="chart-event-list"'), out.indexOf('</ol>'));
    expect(list).toContain('13:41:00 UTC: StackEgg requests at peak <span class="event-scope">(not in 1 April: keep-alive cut from 15 s to 5 s)</span>');
    expect(list).toContain('13:45:00 UTC: Keep-alive 15 s → 5 s <span class="event-scope">(only in 1 April: keep-alive cut from 15 s to 5 s)</span>');
    expect(chartMarkers(base.lines).map((m) => m.number)).toEqual([1, 2, 3]);
  });

  it('escapes every label it is given', () => {
    const hostile = '<script>alert("x")</script> & \'quotes\'';
    const out = renderModelChart({
      ...base,
      idPrefix: 'x" onload="alert(1)',
      title: hostile,
      unit: '<b>u</b>',
      lines: [{ ...asHappened, key: '"><script>', label: hostile, events: [{ key: 'e"', at: 10, kind: '"><x', label: hostile }] }],
    }).value;
    expect(out).not.toMatch(/<script|<b>|onload="/);
    expect(out).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;');
    expect(tags(out, 'figure')[0]!.id).toBe('x--onload--alert-1-');
  });

  it('leaves gaps where values are null instead of drawing them as zero', () => {
    const values = TIME.map((t, i) => (i >= 100 && i < 120 ? null : 1000));
    const out = renderModelChart({ ...base, lines: [{ ...asHappened, values, events: [] }] }).value;
    const d = tags(out.slice(out.indexOf('<g class="chart-lines">')), 'path')[0]!.d!;
    expect(d.match(/M/g)).toHaveLength(2);
    const ys = new Set([...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => m[1]));
    expect(ys.size).toBe(1);
    // A lone value between nulls still shows, as a dot.
    const lone = TIME.map((_, i) => (i === 150 ? 5 : null));
    const dot = renderModelChart({ ...base, lines: [{ ...asHappened, values: lone, events: [] }] }).value;
    expect(tags(dot, 'circle').filter((c) => c.class === 'chart-point')).toHaveLength(1);
    expect(dot).toContain('stays at 5 sessions throughout');
  });

  it('draws a single point and a flat line on a usable axis, and says so in words', () => {
    const single = renderModelChart({ ...base, lines: [{ key: 'one', label: 'One point', time: [30], values: [7] }], horizon: 60 }).value;
    expect(tags(single, 'circle').filter((c) => c.class === 'chart-point')).toHaveLength(1);
    expect(texts(single, 'text', 'x-title')).toEqual(['Simulated time (s)']);
    const flat = renderModelChart({ ...base, lines: [{ key: 'flat', label: 'Flat', time: TIME, values: TIME.map(() => 0) }] }).value;
    expect(flat).toContain('Flat: stays at 0 sessions throughout.');
    expect(tags(flat, 'path').some((p) => p.d?.startsWith('M'))).toBe(true);
    const none = renderModelChart({ ...base, lines: [{ key: 'x', label: 'Failed run', time: [], values: [], note: 'the run failed' }] }).value;
    expect(none).toContain('No values to draw');
    expect(none).toContain('Failed run: the run failed.');
    expect(none).toContain('<span class="legend-note">(the run failed)</span>');
  });

  it('summarises each line in words: peak and its time, lowest point, end value', () => {
    const out = renderModelChart({ ...base, timeOrigin: '2015-03-31T13:40:00Z' }).value;
    const summary = out.slice(out.indexOf('<div class="chart-summary"'));
    expect(summary).toContain('<p>Concurrent sessions, in sessions:</p>');
    expect(summary).toContain('31 March at peak, as it happened: peaks at 40,000 sessions at 13:41:01 UTC; lowest 38,500 sessions at 13:40:01 UTC; ends at 38,500 sessions.');
    expect(summary).toContain('1 April: keep-alive cut from 15 s to 5 s: peaks at 59,500 sessions at 13:40:01 UTC; lowest 19,800 sessions at 13:45:01 UTC; ends at 19,800 sessions.');
  });

  it('shows ratios as percentages', () => {
    const out = renderModelChart({ ...base, title: 'Page connections that succeed', unit: 'ratio', lines: [{ ...asHappened, values: TIME.map((t) => (t < 60 ? 1 : 0.25)) }] }).value;
    expect(texts(out, 'text', 'y-title')).toEqual(['per cent (%)']);
    expect(out).toContain('peaks at 100 % at');
    expect(out).toContain('lowest 25 % at');
  });

  it('stays light and legible when drawn 360 px wide: few points per line, tick labels that never overlap', () => {
    const noisy = Array.from({ length: 500 }, (_, i) => i);
    const out = renderModelChart({
      ...base,
      lines: [{ key: 'n', label: 'Noisy', time: noisy.map((i) => i * 1.2), values: noisy.map((i) => (i === 250 ? 90000 : 40000 + ((i * 7919) % 1000))) }],
    }).value;
    const svg = tags(out, 'svg')[0]!;
    expect(svg.viewBox).toBe('0 0 300 210');
    const d = tags(out.slice(out.indexOf('<g class="chart-lines">')), 'path')[0]!.d!;
    const points = d.match(/[ML]/g)!.length;
    expect(points).toBeLessThanOrEqual(200);
    // The spike survives the thinning.
    expect(out).toContain('peaks at 90,000 sessions');
    // Tick labels at 11 units, each at most ~0.62 em per character, at least 8 units apart.
    for (const timeOrigin of [null, '2015-03-31T13:40:00Z', '2015-03-31T13:40:07Z']) {
      for (const horizon of [45, 90, 600, 3 * 3600, 2 * 86400]) {
        const chart = renderModelChart({ ...base, horizon, timeOrigin }).value;
        const ticks = [...chart.matchAll(/<text class="x-tick" x="([\d.]+)"[^>]*>([^<]+)<\/text>/g)].map((m) => ({ x: Number(m[1]), label: m[2]! }));
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(6);
        for (let i = 1; i < ticks.length; i++) {
          const room = ticks[i]!.x - ticks[i - 1]!.x;
          const needed = ((ticks[i]!.label.length + ticks[i - 1]!.label.length) / 2) * 11 * 0.62 + 8;
          expect(room).toBeGreaterThanOrEqual(needed);
        }
        // The last label fits inside the drawing.
        const last = ticks[ticks.length - 1]!;
        expect(last.x + (last.label.length * 11 * 0.62) / 2).toBeLessThanOrEqual(300);
      }
    }
  });

  it('gives a burst of neighbouring events one badge naming their numbers, and lists each in words', () => {
    const close = [
      { key: 'a', at: 100, kind: 'throttle', label: 'Throttle' },
      { key: 'b', at: 104, kind: 'throttle', label: 'Relax' },
      { key: 'c', at: 108, kind: 'throttle', label: 'Throttle again' },
      { key: 'd', at: 500, kind: 'fix', label: 'Fix' },
    ];
    const out = renderModelChart({ ...base, lines: [{ ...asHappened, events: close }] }).value;
    expect(texts(out, 'text', 'event-number')).toEqual(['1–3', '4']);
    const badges = tags(out, 'rect').filter((r) => r.rx === '7');
    expect(badges).toHaveLength(2);
    // The two badges do not touch.
    expect(Number(badges[0]!.x) + Number(badges[0]!.width)).toBeLessThan(Number(badges[1]!.x));
    expect(tags(out, 'li').filter((li) => li['data-event'])).toHaveLength(4);
  });

  it('fits the value axis to values far above zero and says so; keeps zero when the change is large', () => {
    const ratio = (values: number[]) => ({ key: 'hit', label: 'Hit ratio', time: values.map((_, i) => i * 60), values });
    const fitted = renderModelChart({ ...base, unit: 'ratio', lines: [ratio([0.99, 0.92, 0.84, 0.9, 0.99])] }).value;
    expect(texts(fitted, 'desc')[0]).toContain('The value axis starts at 80 %, not at zero');
    const full = renderModelChart({ ...base, unit: 'ratio', lines: [ratio([0.99, 0.2, 0.1, 0.9, 0.99])] }).value;
    expect(texts(full, 'desc')[0]).not.toContain('starts at');
  });

  it('says in the legend when a line has exactly the values of an earlier one, which it hides', () => {
    const twin = { ...lowerKeepAlive, key: 'twin', label: 'Twin', values: [...lowerKeepAlive.values] };
    const out = renderModelChart({ ...base, lines: [asHappened, lowerKeepAlive, twin] }).value;
    expect(out).toContain(`(same values as ${lowerKeepAlive.label})`);
  });
});
