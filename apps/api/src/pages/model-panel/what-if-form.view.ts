import { formatNumber } from '@hindsight/models';
import { html, type SafeHtml } from '@hindsight/web';
import type { ModelPanelModel } from './model-panel.types';
import { ALL_SCENARIOS, allowedRange, BOUNDARY_CHECK_FIELD, BOUNDARY_FIELD, BOUNDARY_FIGURE_FIELD, figureTargetExample, PAGE_MAX_GRID_RUNS, PAGE_MAX_SEEDS, PAGE_MAX_SWEEP_POINTS, parameterField, SCENARIO_FIELD, SEEDS_FIELD, SWEEP2_FIELD, SWEEP_FIELD, type WhatIfParameter } from './what-if-form.parser';

/**
 * What the page calls a parameter: the label its model gives it, or else its name read as words
 * (`keepAliveSeconds` → "Keep alive seconds").
 */
export function parameterLabel(name: string, label?: string): string {
  if (label) return label;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Field ids are built from parameter names; names come from a spec, so they are kept to id-safe characters. */
export const fieldId = (name: string): string => `what-if-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export function incidentPath(slug: string): string {
  return `/incidents/${encodeURIComponent(slug)}`;
}

/** A parameter that is either off (0) or on (1): the form shows it as a checkbox. */
export function isSwitch(p: Pick<WhatIfParameter, 'unit' | 'min' | 'max'>): boolean {
  return p.unit === 'on/off' && p.min === 0 && p.max === 1;
}

/**
 * An on/off parameter as a checkbox. An unticked box sends nothing, so a hidden field after it
 * sends 0; the page reads the first value of a field, which is the box's 1 when it is ticked.
 * The script reads the box alone (`data-off` is its value when unticked).
 */
function switchFieldView(p: WhatIfParameter, m: ModelPanelModel): SafeHtml {
  const name = parameterField(p.name);
  const id = fieldId(p.name);
  const error = m.form.errors.find((e) => e.field === name);
  const on = Number(m.form.values[p.name] ?? p.default) === 1;
  return html`<div class="field field-switch${error ? ' field-invalid' : ''}">
<input id="${id}" name="${name}" type="checkbox" value="1" data-off="0" data-default="${String(p.default)}"${on ? html` checked` : ''} aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${error ? html` aria-invalid="true"` : ''}>
<label for="${id}">${parameterLabel(p.name, p.label)}</label>
<input type="hidden" name="${name}" value="0" data-off-for="${id}">
<p class="field-hint" id="${id}-hint">${p.description} ${p.default === 1 ? 'On' : 'Off'} by default.</p>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

function parameterFieldView(p: WhatIfParameter, m: ModelPanelModel): SafeHtml {
  if (isSwitch(p)) return switchFieldView(p, m);
  const name = parameterField(p.name);
  const id = fieldId(p.name);
  const error = m.form.errors.find((e) => e.field === name);
  const describedBy = `${id}-hint${error ? ` ${id}-error` : ''}`;
  const unit = p.unit ? html` <span class="field-unit">(${p.unit})</span>` : '';
  return html`<div class="field${error ? ' field-invalid' : ''}">
<label for="${id}">${parameterLabel(p.name, p.label)}${unit}</label>
<input id="${id}" name="${name}" type="number" inputmode="decimal" value="${m.form.values[p.name] ?? String(p.default)}" min="${p.min}" max="${p.max}" step="${p.integer ? '1' : 'any'}" data-default="${p.default}" aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>
<p class="field-hint" id="${id}-hint">${p.description} Default ${formatNumber(p.default)}${p.unit ? ` ${p.unit}` : ''}; ${allowedRange(p)}.</p>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

function scenarioFieldView(m: ModelPanelModel): SafeHtml {
  const id = 'what-if-scenario';
  const error = m.form.errors.find((e) => e.field === SCENARIO_FIELD);
  const choices = [{ key: ALL_SCENARIOS, title: 'Every scenario' }, ...m.choices];
  return html`<div class="field${error ? ' field-invalid' : ''}">
<label for="${id}">Draw beside the run as it happened</label>
<select id="${id}" name="${SCENARIO_FIELD}" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${error ? html` aria-invalid="true"` : ''}>${choices.map(
    (c) => html`<option value="${c.key}"${c.key === m.form.scenario ? html` selected` : ''}>${c.title}</option>`,
  )}</select>
<p class="field-hint" id="${id}-hint">Fewer scenarios means fewer runs and plainer charts.</p>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

/** Optional: an ensemble over seeds and a sweep of one parameter, both of the run as it happened. */
function explorationFieldsView(m: ModelPanelModel): SafeHtml {
  const field = (name: string, id: string, label: string, hint: string, value: string, type: string) => {
    const error = m.form.errors.find((e) => e.field === name);
    // A refused field shows the reader's own text again, to be corrected rather than retyped.
    const shown = error ? (m.form.texts[name] ?? value) : value;
    return html`<div class="field${error ? ' field-invalid' : ''}">
<label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${type}" value="${shown}" data-default="" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${error ? html` aria-invalid="true"` : ''}>
<p class="field-hint" id="${id}-hint">${hint}</p>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
  };
  const example = m.parameters[0];
  const figures = m.boundaryFigures ?? [];
  return html`<fieldset class="what-if-explorations">
<legend>Over seeds and values (optional)</legend>
${field(SEEDS_FIELD, 'what-if-seeds', 'Runs with different seeds', `Draws the 10th to 90th percentile of that many runs around the run as it happened, and how often the failure criterion is met; 2 to ${PAGE_MAX_SEEDS}.`, m.form.seeds === null ? '' : String(m.form.seeds), 'number')}
${field(SWEEP_FIELD, 'what-if-sweep', 'Sweep one parameter', `parameter:from:to:count, e.g. ${example ? `${example.name}:${example.min}:${example.max}:5` : 'name:1:10:5'}; at most ${PAGE_MAX_SWEEP_POINTS} values.`, m.form.sweep ? `${m.form.sweep.parameter}:${m.form.sweep.from}:${m.form.sweep.to}:${m.form.sweep.count}` : '', 'text')}
${field(SWEEP2_FIELD, 'what-if-sweep2', 'Second parameter of the sweep (a grid)', `parameter:from:to:count, another parameter than the first; the page then shows a table of the failure criterion over both, at most ${PAGE_MAX_GRID_RUNS} runs in all.`, m.form.sweep2 ? `${m.form.sweep2.parameter}:${m.form.sweep2.from}:${m.form.sweep2.to}:${m.form.sweep2.count}` : '', 'text')}
${field(BOUNDARY_FIELD, 'what-if-boundary', 'Find where the failure flips', `parameter:from:to, e.g. ${example ? `${example.name}:${example.min}:${example.max}` : 'name:1:10'}; bisection on the failure criterion or the check chosen below, at most 40 runs.`, m.form.boundary ? `${m.form.boundary.parameter}:${m.form.boundary.from}:${m.form.boundary.to}` : '', 'text')}
${boundaryCheckFieldView(m)}
${
  figures.length > 0
    ? field(
        BOUNDARY_FIGURE_FIELD,
        'what-if-boundary-figure',
        'Or search on a figure crossing a value',
        `figure:above:value or figure:below:value, e.g. ${figureTargetExample(figures)}, in the figure’s unit (a share as 0.05 for 5 %): the search above then bisects on that figure of the run as it happened. The figures are ${figures.map((f) => `${f.name} (${f.label}, ${f.unit})`).join(', ')}.`,
        m.form.boundary?.figure ? `${m.form.boundary.figure.name}:${m.form.boundary.figure.op}:${m.form.boundary.figure.value}` : '',
        'text',
      )
    : ''
}
</fieldset>`;
}

/** What a boundary search bisects on: the failure criterion, or one of the checks of the run as it happened. */
function boundaryCheckFieldView(m: ModelPanelModel): SafeHtml {
  const checks = m.boundaryChecks ?? [];
  if (checks.length === 0) return html``;
  const id = 'what-if-boundary-check';
  const error = m.form.errors.find((e) => e.field === BOUNDARY_CHECK_FIELD);
  const chosen = m.form.boundary?.check ?? '';
  return html`<div class="field${error ? ' field-invalid' : ''}">
<label for="${id}">Search on</label>
<select id="${id}" name="${BOUNDARY_CHECK_FIELD}" data-default="" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${error ? html` aria-invalid="true"` : ''}><option value=""${chosen === '' ? html` selected` : ''}>The failure criterion</option>${checks.map(
    (c) => html`<option value="${c.name}"${c.name === chosen ? html` selected` : ''}>Check: ${c.name}</option>`,
  )}</select>
<p class="field-hint" id="${id}-hint">Where the search above flips: the failure criterion being met, or a check of the run as it happened passing.</p>
${error ? html`<p class="field-error" id="${id}-error">${error.message}</p>` : ''}
</div>`;
}

/**
 * A GET form to the incident page itself: a what-if changes nothing, so it is a read anyone may
 * make, safe to repeat and a URL a runbook can link to. Browser validation is off (`novalidate`)
 * so a refused value is explained next to its field in words, the same with or without
 * JavaScript, rather than in a browser bubble that differs everywhere.
 */
export function whatIfFormView(m: ModelPanelModel): SafeHtml {
  const loose = m.form.errors.filter((e) => e.field === 'form');
  return html`<form class="what-if" method="get" action="${incidentPath(m.slug)}#model" novalidate aria-labelledby="what-if-heading">
<p class="section-note">Change the model’s inputs and run it again. Every run you ask for is kept, so the same question is answered at once the next time.</p>
${loose.length > 0 ? html`<div class="form-errors" id="what-if-form-errors">${loose.map((e) => html`<p>${e.message}</p>`)}</div>` : ''}
<fieldset class="what-if-parameters">
<legend>Model parameters</legend>
${m.parameters.map((p) => parameterFieldView(p, m))}
</fieldset>
${scenarioFieldView(m)}
${explorationFieldsView(m)}
<div class="form-actions">
<button type="submit">Run the model</button>
<a href="${incidentPath(m.slug)}#model">Reset to the defaults</a>
</div>
</form>`;
}
