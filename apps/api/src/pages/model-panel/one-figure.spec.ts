import { formatQuantity, loadModelSpec, runModel, type ModelSpec } from '@hindsight/models';
import { renderModelChart } from '@hindsight/web';

/**
 * One figure, one definition, one formatter: a summary figure that is the peak or the lowest
 * point of a charted measure reads exactly as the chart's own text says it, and a check that
 * reads that figure observes the same number.
 */
// The Apache model's figures are times and means, not extremes of a charted measure.
const SLUGS = ['stackegg-haproxy-session-cap-2015', 'changeprop-feedback-loop-2016', 'slack-cache-metastability-2022'];

const text = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');

describe.each(SLUGS)('%s: summary, chart text and checks agree', (slug) => {
  const spec: ModelSpec = loadModelSpec(slug);
  const extremes = (spec.figures ?? []).filter((f) => f.measure && 'metric' in f.measure && (f.measure.stat === 'max' || f.measure.stat === 'min') && !f.measure.from && !f.measure.to);
  const scenarios = spec.scenarios.map((s) => s.key);

  it.each(scenarios)('%s', (scenarioKey) => {
    const result = runModel({ spec, scenarioKey });
    let compared = 0;
    for (const f of extremes) {
      const m = f.measure as { metric: string; stat: 'max' | 'min' };
      const probe = spec.probes.find((p) => p.metric === m.metric);
      if (!probe) continue;
      const series = result.series.find((s) => s.key === probe.key)!;
      const summary = result.summary.find((s) => s.name === f.name)!;
      const chart = text(
        renderModelChart({
          idPrefix: 'c',
          title: probe.label,
          unit: series.unit,
          horizon: result.horizon,
          timeOrigin: null,
          lines: [{ key: scenarioKey, label: 'Run', time: result.time, values: series.values, events: [] }],
        }).value,
      );
      const said = formatQuantity(summary.value, series.unit);
      if (chart.includes('stays at')) expect(chart).toContain(`stays at ${said} throughout`);
      else expect(chart).toContain(`${m.stat === 'max' ? 'peaks at' : 'lowest'} ${said} at`);
      compared++;
      for (const c of result.checks.filter((c) => spec.checks?.find((s) => s.name === c.name)?.measure?.hasOwnProperty('figure'))) {
        const name = (spec.checks!.find((s) => s.name === c.name)!.measure as { figure: string }).figure;
        expect([c.name, c.observed]).toEqual([c.name, result.summary.find((s) => s.name === name)!.value]);
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});
