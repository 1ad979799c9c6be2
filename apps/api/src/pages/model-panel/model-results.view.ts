import { displayScale, formatDuration, formatNumber, formatQuantity } from '@hindsight/models';
import { html, lineSample, renderModelChart, renderSweepChart, type ChartLine, type SafeHtml } from '@hindsight/web';
import type { ModelPanelModel, PanelScenario, SweepGrid } from './model-panel.types';
import { parameterLabel } from './what-if-form.view';

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
  const ensemble = m.ensemble && 'bands' in m.ensemble ? m.ensemble : null;
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
      band: s.asHappened && ensemble?.bands[probeKey] && series ? { ...ensemble.bands[probeKey]!, runs: ensemble.runs } : undefined,
    };
  });
}

/** Lines a reader can pick out (the stylesheet has a rule for each); later ones stay drawn with the rest. */
export const PICKABLE_LINES = 8;

/**
 * Radio buttons that pick which run every chart shows beside the run as it happened, so lines
 * lying on each other can be seen one at a time. Plain CSS does the showing (`:has(:checked)`),
 * so it works without script; the buttons belong to no form and are never submitted.
 */
function seriesPickView(m: ModelPanelModel): SafeHtml {
  if (m.scenarios.length < 3) return html``;
  const choice = (value: string, label: SafeHtml | string, checked = false) =>
    html`<label class="series-choice" for="chart-series-${value}"><input type="radio" id="chart-series-${value}" name="chart-series" value="${value}"${checked ? html` checked` : ''}> ${label}</label>`;
  const fixes = m.scenarios.slice(1, PICKABLE_LINES).map((s, i) => choice(String(i + 1), html`${lineSample(i + 1)} ${s.title}`));
  return html`<fieldset class="series-pick"><legend>Lines on the charts</legend>${choice('all', 'Every run', true)}${choice('0', html`${lineSample(0)} ${m.scenarios[0]!.title} only`)}${fixes}</fieldset>`;
}

export function chartsView(m: ModelPanelModel): SafeHtml {
  const probes = chartedProbes(m);
  if (probes.length === 0) return html`<p class="empty">No run has values to chart yet.</p>`;
  return html`<div class="model-charts">${seriesPickView(m)}${probes.map((p) => {
    const prefix = `model-chart-${idSafe(p.key)}`;
    return html`<section class="chart-block" aria-labelledby="${prefix}-heading">
<h4 id="${prefix}-heading">${p.label} <span class="chart-unit">(${displayScale(p.unit).unit || 'no unit'})</span></h4>
${renderModelChart({ idPrefix: prefix, title: p.label, unit: p.unit, lines: linesFor(m, p.key), horizon: m.horizon, timeOrigin: m.timeOrigin })}
</section>`;
  })}</div>`;
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
  if (checks.length === 0) return html`${evidenceView(m)}<p class="empty">No checks were evaluated on these runs.</p>`;
  const passed = checks.filter((c) => c.check.pass).length;
  const failed = checks.length - passed;
  const items = checks.map(({ scenario, check }) => {
    const observed = formatQuantity(check.observed, check.unit);
    return html`<li class="model-check ${check.pass ? 'check-pass' : 'check-fail'}" data-check="${check.name}" data-scenario="${scenario.key}" data-kind="${check.kind ?? 'unlabelled'}">
<p class="check-head"><span class="check-verdict"><span aria-hidden="true">${check.pass ? '✓' : '✗'}</span> ${check.pass ? 'passes' : 'fails'}:</span> ${check.description}</p>
<dl class="check-facts">
<div><dt>Kind</dt><dd>${CHECK_KINDS[check.kind ?? 'unlabelled']}</dd></div>
${check.source ? html`<div><dt>Source</dt><dd><q>${check.source.quote}</q> (${check.source.place})</dd></div>` : ''}
<div><dt>Scenario</dt><dd>${scenario.title}</dd></div>
<div><dt>Expected</dt><dd>${check.expectedText}</dd></div>
<div><dt>Observed</dt><dd>${observed}</dd></div>
</dl>
${check.explanation ? html`<p class="check-explanation">${check.explanation}</p>` : ''}
</li>`;
  });
  return html`${evidenceView(m)}<p class="check-count">${passed} of ${checks.length} ${checks.length === 1 ? 'check passes' : 'checks pass'}${failed > 0 ? html`; <strong>${failed} ${failed === 1 ? 'fails' : 'fail'}</strong>` : ''}.</p>
<ul class="model-checks">${items}</ul>`;
}

const CHECK_KINDS: Record<string, string> = {
  reproduces: 'reproduces a figure of the source (evidence)',
  fitted: 'fitted: a value was chosen so that it passes (not evidence)',
  construction: 'holds by construction: arithmetic of the inputs (not evidence)',
  unlabelled: 'not labelled (not counted as evidence)',
};

/** How many of the model's checks are evidence, said before the checks themselves. */
function evidenceView(m: ModelPanelModel): SafeHtml {
  const e = m.evidence;
  if (!e) return html``;
  const others = [
    e.fitted > 0 ? `${e.fitted} fitted` : null,
    e.construction > 0 ? `${e.construction} by construction` : null,
    e.unlabelled > 0 ? `${e.unlabelled} unlabelled` : null,
  ].filter((x) => x !== null);
  return html`<p class="model-evidence" data-evidence="${e.reproduces}"><strong>Evidence: ${e.reproduces} ${e.reproduces === 1 ? 'check reproduces' : 'checks reproduce'} a figure of the source</strong> the model was not fitted to${others.length > 0 ? `; the other checks are ${others.join(', ')}, and do not count as evidence` : ''}.</p>`;
}

const PROVENANCE_LABELS = { source: 'From the source', derived: 'Derived', assumption: 'Assumption' } as const;

/** Every parameter with where its value comes from: the reader sees what is the source's and what is the modeller's. */
export function provenanceView(m: ModelPanelModel): SafeHtml {
  if (m.parameters.length === 0) return html`<p class="empty">This model has no parameters.</p>`;
  const counts = { source: 0, derived: 0, assumption: 0, unstated: 0 };
  const rows = m.parameters.map((p) => {
    const v = p.provenance;
    counts[v?.kind ?? 'unstated']++;
    const where = !v
      ? html`<span class="muted">not stated</span>`
      : v.kind === 'source'
        ? html`<q>${v.quote}</q> (${v.place})`
        : v.kind === 'derived'
          ? html`${v.formula}${(v.from ?? []).length > 0 ? html` — from ${(v.from ?? []).map((q, i) => html`${i > 0 ? '; ' : ''}<q>${q.quote}</q> (${q.place})`)}` : ''}`
          : html`${v.why}`;
    return html`<tr data-parameter="${p.name}" data-provenance="${v?.kind ?? 'unstated'}"><th scope="row">${parameterLabel(p.name, p.label)}</th><td>${formatQuantity(p.default, p.unit)}</td><td>${v ? PROVENANCE_LABELS[v.kind] : 'Unstated'}</td><td>${where}</td></tr>`;
  });
  return html`<p class="provenance-count">${counts.source} ${counts.source === 1 ? 'value comes' : 'values come'} from the source, ${counts.derived} ${counts.derived === 1 ? 'is' : 'are'} derived from its figures, ${counts.assumption} ${counts.assumption === 1 ? 'is an assumption' : 'are assumptions'}${counts.unstated > 0 ? `, ${counts.unstated} unstated` : ''}.</p>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="model-provenance-heading">
<table class="model-provenance">
<caption class="visually-hidden">Where each parameter's default comes from</caption>
<thead><tr><th scope="col">Parameter</th><th scope="col">Default</th><th scope="col">Kind</th><th scope="col">Where from</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

/** The seed ensemble and the sweep the reader asked for, in words and as a chart. */
export function explorationsView(m: ModelPanelModel): SafeHtml {
  const ensemble = m.ensemble
    ? 'pending' in m.ensemble
      ? html`<p class="model-ensemble model-pending" role="status">${m.ensemble.pending}</p>`
      : html`<p class="model-ensemble"><strong>Over ${String(m.ensemble.runs)} seeds:</strong> ${m.ensemble.text} The shaded bands on the charts hold 80 % of the runs (10th to 90th percentile).</p>`
    : html``;
  const sweep = m.sweep
    ? 'pending' in m.sweep
      ? html`<p class="model-sweep model-pending" role="status">${m.sweep.pending}</p>`
      : html`<section class="chart-block model-sweep" aria-labelledby="model-sweep-heading"><h4 id="model-sweep-heading">${m.sweep.figureLabel} against ${m.sweep.parameter}</h4>${renderSweepChart({
          idPrefix: 'model-sweep',
          parameter: m.sweep.parameter,
          parameterUnit: m.sweep.unit,
          figureLabel: m.sweep.figureLabel,
          figureUnit: m.sweep.figureUnit,
          points: m.sweep.points,
          text: m.sweep.text,
        })}</section>`
    : html``;
  const boundary = m.boundary
    ? 'pending' in m.boundary
      ? html`<p class="model-boundary model-pending" role="status">${m.boundary.pending}</p>`
      : html`<section class="chart-block model-boundary" aria-labelledby="model-boundary-heading"><h4 id="model-boundary-heading">${m.boundary.heading}</h4>${renderSweepChart({
          idPrefix: 'model-boundary',
          parameter: m.boundary.parameter,
          parameterUnit: m.boundary.unit,
          figureLabel: m.boundary.figureLabel,
          figureUnit: m.boundary.figureUnit,
          points: m.boundary.points,
          text: m.boundary.text,
          reference: m.boundary.reference,
        })}</section>`
    : html``;
  const grid = m.grid ? ('pending' in m.grid ? html`<p class="model-grid model-pending" role="status">${m.grid.pending}</p>` : sweepGridView(m.grid)) : html``;
  return html`${ensemble}${sweep}${grid}${boundary}`;
}

/**
 * A sweep over two parameters as a table: one row per value of the second, one column per value
 * of the first, each cell saying in words whether that run meets the failure criterion (and when
 * it starts); the cell's tint only repeats the words. Readable without script or colour.
 */
function sweepGridView(g: SweepGrid): SafeHtml {
  const value = (v: number, unit: string) => formatQuantity(v, unit);
  const rows = g.y.values.map((yv, r) => {
    const cells = g.x.values.map((xv, c) => {
      const cell = g.cells[r]?.[c] ?? { met: null, onset: null, error: 'no run' };
      const where = `${g.x.parameter} = ${value(xv, g.x.unit)}, ${g.y.parameter} = ${value(yv, g.y.unit)}`;
      if (cell.error !== null) return html`<td class="grid-none" data-x="${String(xv)}" data-y="${String(yv)}"><span class="visually-hidden">${where}: </span>no result (${cell.error})</td>`;
      if (cell.met === null) return html`<td class="grid-none" data-x="${String(xv)}" data-y="${String(yv)}"><span class="visually-hidden">${where}: </span>not judged</td>`;
      const onset = cell.met && cell.onset !== null ? html`<br><span class="grid-onset">from ${formatDuration(cell.onset)}</span>` : '';
      return html`<td class="${cell.met ? 'grid-met' : 'grid-not-met'}" data-x="${String(xv)}" data-y="${String(yv)}"><span class="visually-hidden">${where}: </span>${cell.met ? '● met' : '○ not met'}${onset}</td>`;
    });
    return html`<tr><th scope="row">${value(yv, g.y.unit)}</th>${cells}</tr>`;
  });
  const criterion = g.criterion ? `the failure criterion (${g.criterion})` : 'the failure criterion';
  return html`<section class="model-grid" aria-labelledby="model-grid-heading">
<h4 id="model-grid-heading">Where ${criterion} is met, over ${g.x.label} and ${g.y.label}</h4>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="model-grid-heading">
<table class="sweep-grid">
<caption>Columns: ${g.x.parameter} (${g.x.unit}); rows: ${g.y.parameter} (${g.y.unit}). Each cell is one run of the scenario as it happened.</caption>
<thead><tr><th scope="col">${g.y.parameter} \ ${g.x.parameter}</th>${g.x.values.map((xv) => html`<th scope="col">${value(xv, g.x.unit)}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>
</div>
<p class="grid-text">${g.text}</p>
</section>`;
}
