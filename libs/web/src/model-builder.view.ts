/**
 * The model builder: a form on which an editor picks a suggested template, sees each parameter
 * with its value, unit, range and where the value comes from (with a link to the sentence),
 * changes values, runs the draft, compares its fix scenarios and attaches it; and an expert view
 * of the spec as JSON with validation errors at their path. Plain HTML forms: it works without
 * JavaScript.
 */
import { html, type SafeHtml } from './html';

export interface BuilderParameter {
  name: string;
  value: number;
  unit: string;
  min: number;
  max: number;
  description: string;
  /** `text`, `timeline`, `assumption`, `default` or `person`. */
  from: string;
  /** Where the value comes from, in words (the quote, the formula or the reason). */
  basis: string;
  /** The figure as written and the anchor of its sentence on the incident page. */
  figure: { raw: string; quote: string; place: string; anchor: string } | null;
}

export interface BuilderScenarioResult {
  key: string;
  title: string;
  actionable: { key: string; title: string } | null;
  remedy: string | null;
  /** For as-happened: whether the failure criterion is met; for fixes: the verdict. */
  outcome: string;
  reason: string;
}

export interface ModelBuilderProps {
  incident: { slug: string; title: string };
  suggestions: { key: string; title: string; failureClass: string; score: number; reasons: string[] }[];
  selected: string;
  failureCriterion: string;
  parameters: BuilderParameter[];
  matches: { actionableKey: string; actionableTitle: string; remedy: string; evidence: string; scenarioKey: string }[];
  unmatched: { actionableKey: string; title: string }[];
  checks: { name: string; kind: string }[];
  results: BuilderScenarioResult[] | null;
  /** What is attached now (`key@version`), sent back with the confirmation. */
  attached: string | null;
  specJson: string;
  errors: { path: string; reason: string }[];
  notice: string | null;
  /** The session's synchroniser token for the forms that write; null for a bearer token. */
  csrf?: string | null;
}

const SOURCE_LABEL: Record<string, string> = {
  text: 'from the text',
  timeline: 'from the timeline',
  assumption: 'assumed',
  default: "template's default",
  person: 'set by you',
};

function paramFields(parameters: BuilderParameter[]): SafeHtml[] {
  return parameters.map((p) => html`<input type="hidden" name="p.${p.name}" value="${String(p.value)}">`);
}

export function modelBuilderView(props: ModelBuilderProps): SafeHtml {
  const base = `/incidents/${encodeURIComponent(props.incident.slug)}`;
  const action = `${base}/model-builder`;
  return html`<article class="model-builder">
<p><a href="${base}">← ${props.incident.title}</a></p>
<h1>Model builder</h1>
<p>A draft model for this incident, made from a failure-pattern template. Nothing is stored until you attach it.</p>
${props.notice ? html`<p class="notice" role="status">${props.notice}</p>` : ''}
${props.errors.length > 0 ? html`<div class="errors" role="alert"><h2>The spec was not saved</h2><ul>${props.errors.map((e) => html`<li><code>${e.path}</code>: ${e.reason}</li>`)}</ul></div>` : ''}
<section aria-labelledby="templates-h"><h2 id="templates-h">Suggested templates</h2>
<form method="get" action="${action}">
<fieldset><legend>Template</legend>
${props.suggestions.map(
  (s) => html`<p><label><input type="radio" name="template" value="${s.key}"${s.key === props.selected ? html` checked` : ''}> <strong>${s.title}</strong> (score ${String(s.score)}): ${s.failureClass}</label><br><small>${s.reasons.join('; ')}</small></p>`,
)}
</fieldset>
<p><button type="submit">Use this template</button></p>
</form></section>
<section aria-labelledby="params-h"><h2 id="params-h">Parameters</h2>
<p>Failure criterion: ${props.failureCriterion}</p>
<form method="get" action="${action}" id="builder-form">
<input type="hidden" name="template" value="${props.selected}">
<table class="parameters"><thead><tr><th>parameter</th><th>value</th><th>unit</th><th>range</th><th>where it comes from</th></tr></thead><tbody>
${props.parameters.map(
  (p) => html`<tr data-param="${p.name}"><th scope="row"><label for="p-${p.name}">${p.name}</label><br><small>${p.description}</small></th>
<td><input id="p-${p.name}" name="p.${p.name}" type="number" step="any" min="${String(p.min)}" max="${String(p.max)}" value="${String(p.value)}"></td>
<td>${p.unit}</td><td>${String(p.min)} – ${String(p.max)}</td>
<td><span class="source source-${p.from}">${SOURCE_LABEL[p.from] ?? p.from}</span>${p.figure ? html`: “${p.figure.raw}” in <a href="${base}#${p.figure.anchor}">${p.figure.place}</a>` : ''}<br><small>${p.basis}</small></td></tr>`,
)}
</tbody></table>
<p><button type="submit" name="run" value="1">Run the draft</button></p>
</form></section>
<section aria-labelledby="fixes-h"><h2 id="fixes-h">Actionables and fix scenarios</h2>
${props.matches.length === 0 ? html`<p>No actionable names a remedy this template models.</p>` : html`<ul>${props.matches.map((m) => html`<li data-actionable="${m.actionableKey}"><a href="${base}#actionable-${m.actionableKey}">${m.actionableTitle}</a>: ${m.remedy} (“${m.evidence}”), scenario <code>${m.scenarioKey}</code></li>`)}</ul>`}
${props.unmatched.length > 0 ? html`<p>Not modelled: ${props.unmatched.map((u, i) => html`${i > 0 ? ', ' : ''}${u.title}`)}.</p>` : ''}
<p>Checks: ${props.checks.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c.name}</code> (${c.kind})`)}.</p>
</section>
${props.results
  ? html`<section aria-labelledby="results-h"><h2 id="results-h">Runs of the draft</h2>
<table class="results"><thead><tr><th>scenario</th><th>actionable</th><th>outcome</th><th>why</th></tr></thead><tbody>
${props.results.map((r) => html`<tr data-scenario="${r.key}"><td>${r.title}${r.remedy ? html` <small>(${r.remedy})</small>` : ''}</td><td>${r.actionable ? r.actionable.title : '—'}</td><td class="outcome">${r.outcome}</td><td>${r.reason}</td></tr>`)}
</tbody></table></section>`
  : ''}
<section aria-labelledby="attach-h"><h2 id="attach-h">Attach</h2>
<form method="post" action="${action}">
${props.csrf ? html`<input type="hidden" name="_csrf" value="${props.csrf}">` : ''}<input type="hidden" name="action" value="attach"><input type="hidden" name="template" value="${props.selected}"><input type="hidden" name="expectedModel" value="${props.attached ?? ''}">
${paramFields(props.parameters)}
<p>${props.attached ? html`Attached now: <code>${props.attached}</code>. Attaching replaces it with a new version.` : 'No model is attached yet.'}</p>
<p><button type="submit">Attach this model</button></p>
</form></section>
<section aria-labelledby="json-h"><h2 id="json-h">Expert: the spec as JSON</h2>
<form method="post" action="${action}">
${props.csrf ? html`<input type="hidden" name="_csrf" value="${props.csrf}">` : ''}<input type="hidden" name="action" value="save-json"><input type="hidden" name="template" value="${props.selected}"><input type="hidden" name="expectedModel" value="${props.attached ?? ''}">
<p><label for="spec-json">Spec</label></p>
<textarea id="spec-json" name="spec" rows="20" cols="100" spellcheck="false">${props.specJson}</textarea>
<p><button type="submit">Save as a new version and attach</button></p>
</form></section>
</article>`;
}
