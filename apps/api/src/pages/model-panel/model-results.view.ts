import { displayScale, formatNumber, formatQuantity } from '@hindsight/models';
import { html, renderModelChart, type ChartLine, type SafeHtml } from '@hindsight/web';
import type { ModelPanelModel, PanelScenario } from './model-panel.types';

/** Enough charts to show the failure's shape; more would bury the figures and checks below. */
export const MAX_CHARTS = 4;

const STATUS_NOTES = {
  queued: 'waiting for a model worker',
  running: 'still running',
  failed: 'the run failed',
  succeeded: '',
} as const;

/** Why a scenario has no line: said in the legend and the summary instead of a silent gap. */
export function runNote(s: PanelScenario): string | undefined {
  if (!s.run) return s.problem ?? 'not run';
  if (s.run.status !== 'succeeded') return STATUS_NOTES[s.run.status];
  if (!s.run.series) return 'no series stored';
  return undefined;
}

const idSafe = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '-');

/** The model's probes that have values in at least one drawn run, in the model's order, at most {@link MAX_CHARTS}. */
export function chartedProbes(m: ModelPanelModel): ModelPanelModel['probes'] {
  const hasValues = (key: string) =>
    m.scenarios.some((s) => s.run?.status === 'succeeded' && s.run.series?.series.some((x) => x.key === key && x.values.some((v) => v !== null)));
  return m.probes.filter((p) => hasValues(p.key)).slice(0, MAX_CHARTS);
}

function linesFor(m: ModelPanelModel, probeKey: string): ChartLine[] {
  return m.scenarios.map((s) => {
    const note = runNote(s);
    const stored = s.run?.series;
    const series = note === undefined ? stored?.series.find((x) => x.key === probeKey) : undefined;
    return {
      key: s.key,
      label: s.title,
      time: stored?.time ?? [],
      values: series?.values ?? [],
      events: stored?.events ?? [],
      note: note ?? (series ? undefined : 'this run has no such measure'),
    };
  });
}

export function chartsView(m: ModelPanelModel): SafeHtml {
  const probes = chartedProbes(m);
  if (probes.length === 0) return html`<p class="empty">No run has values to chart yet.</p>`;
  return html`${probes.map((p) => {
    const prefix = `model-chart-${idSafe(p.key)}`;
    return html`<section class="chart-block" aria-labelledby="${prefix}-heading">
<h4 id="${prefix}-heading">${p.label} <span class="chart-unit">(${displayScale(p.unit).unit || 'no unit'})</span></h4>
${renderModelChart({ idPrefix: prefix, title: p.label, unit: p.unit, lines: linesFor(m, p.key), horizon: m.horizon, timeOrigin: m.timeOrigin })}
</section>`;
  })}`;
}

/**
 * Figures as a table, one row per scenario and one column per figure, so each fix reads across
 * against the run as it happened. Wide tables scroll sideways in their own box on a phone.
 */
export function figuresView(m: ModelPanelModel): SafeHtml {
  const figures = new Map<string, { label: string; unit: string }>();
  for (const s of m.scenarios) for (const f of s.run?.summary ?? []) if (!figures.has(f.name)) figures.set(f.name, { label: f.label, unit: f.unit });
  if (figures.size === 0) return html`<p class="empty">No summary figures yet.</p>`;
  const columns = [...figures.entries()];
  const rows = m.scenarios.map((s) => {
    const note = runNote(s);
    const cells = columns.map(([name, f]) => {
      const value = s.run?.summary?.find((x) => x.name === name);
      // The unit is in the column heading; cells keep to the number so the table stays narrow.
      const figure = value && value.value !== null ? formatNumber(value.value * displayScale(f.unit).factor) : null;
      return html`<td data-figure="${name}">${note !== undefined ? html`<span class="muted">${note}</span>` : figure ?? html`<span class="muted">n/a</span>`}</td>`;
    });
    return html`<tr data-scenario="${s.key}"><th scope="row">${s.title}</th>${cells}</tr>`;
  });
  return html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="model-figures-heading">
<table class="model-figures">
<caption class="visually-hidden">Summary figures by scenario</caption>
<thead><tr><th scope="col">Scenario</th>${columns.map(([name, f]) => html`<th scope="col" data-figure="${name}">${f.label} <span class="figure-unit">(${displayScale(f.unit).unit || 'no unit'})</span></th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

/**
 * Every check of every drawn run, passing or failing, in the model's order. A failure is a
 * finding about the model (or the postmortem's figures), so it is shown with its explanation,
 * never filtered out. The verdict is in words and a symbol; colour only repeats it.
 */
export function checksView(m: ModelPanelModel): SafeHtml {
  const checks = m.scenarios.flatMap((s) => (s.run?.status === 'succeeded' ? (s.run.checks ?? []) : []).map((c) => ({ scenario: s, check: c })));
  if (checks.length === 0) return html`<p class="empty">No checks were evaluated on these runs.</p>`;
  const passed = checks.filter((c) => c.check.pass).length;
  const failed = checks.length - passed;
  const items = checks.map(({ scenario, check }) => {
    const observed = formatQuantity(check.observed, check.unit);
    return html`<li class="model-check ${check.pass ? 'check-pass' : 'check-fail'}" data-check="${check.name}" data-scenario="${scenario.key}">
<p class="check-head"><span class="check-verdict"><span aria-hidden="true">${check.pass ? '✓' : '✗'}</span> ${check.pass ? 'passes' : 'fails'}:</span> ${check.description}</p>
<dl class="check-facts">
<div><dt>Scenario</dt><dd>${scenario.title}</dd></div>
<div><dt>Expected</dt><dd>${check.expectedText}</dd></div>
<div><dt>Observed</dt><dd>${observed}</dd></div>
</dl>
${check.explanation ? html`<p class="check-explanation">${check.explanation}</p>` : ''}
</li>`;
  });
  return html`<p class="check-count">${passed} of ${checks.length} ${checks.length === 1 ? 'check passes' : 'checks pass'}${failed > 0 ? html`; <strong>${failed} ${failed === 1 ? 'fails' : 'fail'}</strong>` : ''}.</p>
<ul class="model-checks">${items}</ul>`;
}
