import { formatNumber } from '@hindsight/models';
import { anchorId, html, lineSample, type SafeHtml } from '@hindsight/web';
import type { ModelPanelModel, PanelScenario } from './model-panel.types';
import { chartsView, checksView, explorationsView, figuresView, provenanceView } from './model-results.view';
import { PARAMETER_PREFIX, SCENARIO_FIELD } from './what-if-form.parser';
import { fieldId, incidentPath, isSwitch, parameterLabel, whatIfFormView } from './what-if-form.view';

/** The same words as the page's own empty state: an incident without a model says so plainly. */
export function emptyModelPanelView(): SafeHtml {
  return html`<p class="model-empty">No model is attached to this incident yet.</p>`;
}

/** Where the script fetches the panel alone when a what-if is submitted with JavaScript on. */
export function fragmentPath(slug: string): string {
  return `${incidentPath(slug)}/model`;
}

const onOff = (value: number) => (value === 1 ? 'on' : 'off');
const quantity = (value: number, unit: string) => `${formatNumber(value)}${unit ? ` ${unit}` : ''}`;

function fixView(s: PanelScenario): SafeHtml {
  if (s.asHappened) return html`<p class="scenario-fix">The incident as it happened: every other run changes one thing against it.</p>`;
  if (!s.actionable) return html`<p class="scenario-fix">A reference run, not a fix.</p>`;
  if (s.actionable.title === null) {
    return html`<p class="scenario-fix">Models the follow-up <code>${s.actionable.key}</code>, which this incident does not list among its actionables.</p>`;
  }
  return html`<p class="scenario-fix">Models the fix <a href="#${anchorId('actionable', s.actionable.key)}">${s.actionable.title}</a>.</p>`;
}

/** Queued, running and failed runs say so, with the error when there is one; a finished run needs no note. */
function runStateView(s: PanelScenario): SafeHtml {
  if (!s.run) return html`<p class="run-state run-missing">Not run: ${s.problem ?? 'no run is stored yet'}.</p>`;
  switch (s.run.status) {
    case 'queued':
      return html`<p class="run-state run-queued">Queued: waiting for a model worker. Reload the page in a moment to see it.</p>`;
    case 'running':
      return html`<p class="run-state run-running">Running now. Reload the page in a moment to see it.</p>`;
    case 'failed':
      return html`<p class="run-state run-failed">The run failed: ${s.run.error ?? 'no reason was recorded'}</p>`;
    case 'succeeded':
      return html``;
  }
}

const OUTCOME_LABELS: Record<string, string> = {
  PREVENTED: 'Prevented',
  DELAYED: 'Delayed, not prevented',
  REDUCED: 'Reduced, not prevented',
  NOT_PREVENTED: 'Not prevented',
  NO_FAILURE: 'Nothing to prevent',
};

/** A fix's verdict, judged by the failure criterion on its run: the words carry it, the class only repeats it. */
function scenarioVerdictView(s: PanelScenario): SafeHtml {
  const v = s.run?.status === 'succeeded' ? s.run.verdict : null;
  if (!v) return html``;
  return html`<div class="scenario-verdict verdict-${v.outcome.toLowerCase().replace(/_/g, '-')}" data-verdict="${v.outcome}"><p><strong>Verdict: ${OUTCOME_LABELS[v.outcome] ?? v.outcome}</strong></p><p class="verdict-reason">${v.reason}</p></div>`;
}

function scenariosView(m: ModelPanelModel): SafeHtml {
  const items = m.scenarios.map((s, i) => {
    const keeps =
      m.mode === 'what-if' && s.keeps.length > 0
        ? html`<p class="scenario-keeps">Keeps its own ${s.keeps.map((k) => `${parameterLabel(k.name, m.parameters.find((p) => p.name === k.name)?.label)} = ${quantity(k.value, k.unit)} (you asked for ${quantity(k.requested, k.unit)})`).join(', ')}: that is the fix, so your value was not applied here. It applies to the other runs, and to the run as it happened that this fix is judged against.</p>`
        : '';
    return html`<li class="model-scenario" data-scenario="${s.key}">
<p class="scenario-title">${lineSample(i)} <strong>${s.title}</strong></p>
<p class="scenario-description">${s.description}</p>
${fixView(s)}
${scenarioVerdictView(s)}
${keeps}
${runStateView(s)}
</li>`;
  });
  return html`<ol class="model-scenarios">${items}</ol>`;
}

/** Which values a what-if changed, against the defaults, in words. */
function changedValues(m: ModelPanelModel): string {
  return m.parameters
    .filter((p) => p.name in m.form.overrides)
    .map((p) =>
      isSwitch(p)
        ? `${parameterLabel(p.name, p.label)}: ${onOff(m.form.overrides[p.name]!)} (default ${onOff(p.default)})`
        : `${parameterLabel(p.name, p.label)} ${quantity(m.form.overrides[p.name]!, p.unit)} (default ${quantity(p.default, p.unit)})`,
    )
    .join('; ');
}

function noticeView(m: ModelPanelModel): SafeHtml {
  const back = html`<a href="${incidentPath(m.slug)}#model">Back to the default values</a>`;
  const busy = m.busy ? html`<p class="model-busy" role="alert">${m.busy}</p>` : html``;
  if (m.mode === 'what-if') {
    return html`<div class="what-if-note"><p><strong>What-if:</strong> these runs use your values, not the incident’s: ${changedValues(m)}. ${back}.</p>${busy}</div>`;
  }
  if (m.mode === 'refused') {
    const count = m.form.errors.length;
    const first = m.form.errors[0]!;
    const target =
      first.field === SCENARIO_FIELD ? 'what-if-scenario' : first.field.startsWith(PARAMETER_PREFIX) ? fieldId(first.field.slice(PARAMETER_PREFIX.length)) : 'what-if-heading';
    return html`<div class="what-if-note what-if-refused" role="alert"><p><strong>Your values were not run:</strong> ${count === 1 ? 'one field needs' : `${count} fields need`} a different value; <a href="#${target}">see the form</a>. The charts show the default runs.</p>${busy}</div>`;
  }
  return busy;
}

/** Said by the page's live region after a what-if redraws the panel without a reload. */
export function announcement(m: ModelPanelModel): string {
  if (m.mode === 'refused') return `Not run. ${m.form.errors.map((e) => e.message).join(' ')}`;
  if (m.busy) return m.busy;
  const drawn = m.scenarios.filter((s) => s.run?.status === 'succeeded').length;
  const runs = `${drawn} ${drawn === 1 ? 'run' : 'runs'} drawn`;
  return m.mode === 'what-if' ? `Model re-run with your values: ${runs}.` : `Showing the default runs: ${runs}.`;
}

/**
 * A part of the panel folded under its heading, so the charts sit beside the narrative and the
 * rest opens on demand (no script needed). The what-if form opens by itself after a what-if.
 */
function detailsView(id: string, heading: string, body: SafeHtml, open: boolean): SafeHtml {
  return html`<details class="model-details"${open ? html` open` : ''}><summary><h3 id="${id}">${heading}</h3></summary>${body}</details>`;
}

/**
 * The inside of the Model aside: a polite live region the script speaks through (outside the part
 * it replaces, so announcements survive a redraw), then the title, charts, scenarios (what each
 * line is, the fix it models, the state of its run), figures, checks and the what-if form. `data-fragment` tells the script where to fetch the redrawn panel.
 */
export function modelPanelView(m: ModelPanelModel): SafeHtml {
  return html`<p class="visually-hidden" id="model-status" role="status" aria-live="polite"></p>
<div class="model-body" id="model-body" data-fragment="${fragmentPath(m.slug)}" data-announce="${announcement(m)}" data-mode="${m.mode}">
<h3 class="model-title">${m.title}</h3>
<p class="model-description">${m.description}</p>
${m.failureCriterion ? html`<p class="model-failure"><strong>Failure criterion:</strong> ${m.failureCriterion}. Each fix is judged by whether its run meets it, not by its own checks.</p>` : ''}
${noticeView(m)}
<h3 id="model-charts-heading">Charts</h3>
${explorationsView(m)}
${chartsView(m)}
${detailsView('model-scenarios-heading', 'Scenarios and verdicts', scenariosView(m), false)}
${detailsView('model-figures-heading', 'Summary figures', figuresView(m), false)}
${detailsView('model-checks-heading', 'Checks against the postmortem', checksView(m), false)}
${detailsView('model-provenance-heading', 'Where the numbers come from', provenanceView(m), false)}
${detailsView('what-if-heading', 'What if?', whatIfFormView(m), m.mode !== 'default')}
</div>`;
}
