import { runModel } from '../engine/model.engine';
import type { ModelRunResult } from '../output/model-run.types';
import { specWith } from '../testing/spec.fixtures';
import { describeRunText, escapeXml, renderRunChartsSvg } from './run-charts.renderer';

function result(title = 'Queue & <servers>'): ModelRunResult {
  const spec = specWith({
    title,
    horizon: 600,
    stations: [{ key: 'server', slots: 2, service: 1 }],
    sources: [{ key: 'load', kind: 'open', target: 'server', rate: 1, arrivals: 'constant' }],
    probes: [
      { key: 'busy', metric: 'server.concurrency', label: 'Busy "servers"', unit: 'servers' },
      { key: 'ok', metric: 'load.successRatio', label: 'Success', unit: 'ratio' },
    ],
    events: [{ key: 'spike', at: 300, kind: 'scaleSource', source: 'load', factor: 3, label: 'Spike <x3>' }],
  });
  return runModel({ spec });
}

/** Every tag opened is closed, in order (enough to catch broken markup). */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    if (m[3] === '/') continue;
    if (m[1] === '/') {
      if (stack.pop() !== m[2]) return false;
    } else {
      stack.push(m[2]);
    }
  }
  return stack.length === 0;
}

describe('renderRunChartsSvg', () => {
  it('draws one panel per probe with units, event markers and an accessible title and description', () => {
    const r = result();
    const svg = renderRunChartsSvg(r, { width: 640 });
    expect(balanced(svg)).toBe(true);
    expect(svg).toMatch(/^<svg [^>]*width="640"[^>]*role="img"/);
    expect(svg).toContain('Busy &quot;servers&quot;');
    expect(svg).toContain('(servers)');
    expect(svg).toContain('(share)');
    expect(svg).toContain('Spike &lt;x3&gt;');
    expect(svg).toMatch(/<title id="[^"]+">Queue &amp; &lt;servers&gt;/);
    expect(svg).toContain('<desc id=');
    expect(svg).not.toMatch(/<script|javascript:|href=/);
    expect((svg.match(/<path /g) ?? []).length).toBe(2);
  });

  it('adds a legend and dashed lines for compared runs, and stays inside a 360 px width', () => {
    const r = result();
    const svg = renderRunChartsSvg(r, { compareWith: [result()], width: 360 });
    expect(balanced(svg)).toBe(true);
    expect((svg.match(/stroke-dasharray="6 3"/g) ?? []).length).toBeGreaterThanOrEqual(3);
    for (const m of svg.matchAll(/ x="(-?[\d.]+)"/g)) expect(Number(m[1])).toBeLessThanOrEqual(360);
  });

  it('summarises the charts in text for screen readers', () => {
    const text = describeRunText(result('Plain'));
    expect(text).toContain('Plain: scenario "Base"');
    expect(text).toContain('Busy "servers": between 0.833 servers and 2 servers, ending at 2 servers.');
    expect(text).toContain('Events: 5 min Spike <x3>.');
  });

  it('escapes all five XML special characters', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
