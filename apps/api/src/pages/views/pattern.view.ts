import type { PatternWithCount } from '@hindsight/incidents';
import { html, runbookMarkdownLink, type SafeHtml } from '@hindsight/web';
import { withQuery, type FieldError } from '../list-query.parser';
import { formErrorsView } from './form-fields.view';
import { incidentItemsView, pagerView, type IncidentListItem, type ListPage } from './incident-list.view';
import { layoutView } from './layout.view';
import type { RunbookCitationRecord } from '@hindsight/tracking';
import { citedByView, citeFormPath } from './runbook-citations.view';

export interface PatternPageModel {
  pattern: PatternWithCount;
  page: ListPage<IncidentListItem> | null;
  errors: FieldError[];
  first: number;
  origin: string;
  citations?: RunbookCitationRecord[];
}

/** The page a runbook links to for "if you see this, read these". */
export function patternView(m: PatternPageModel): SafeHtml {
  const p = m.pattern;
  const path = `/patterns/${encodeURIComponent(p.key)}`;
  const snippet = runbookMarkdownLink(`Incidents showing ${p.name.toLowerCase()}`, `${m.origin}${path}`);
  const params = { first: m.first === 20 ? null : m.first };
  const main = html`<article class="pattern" aria-labelledby="pattern-title">
<p class="eyebrow">Failure pattern</p>
<h1 id="pattern-title">${p.name}</h1>
<p class="lede">${p.description}</p>
<div class="anchor-tools">
<a class="anchor-link" href="${path}"><span class="visually-hidden">Link to this pattern: </span>${path}</a>
<button type="button" class="copy-button" data-copy-link="${path}" hidden>Copy link<span class="visually-hidden"> to this pattern</span></button>
<details class="runbook-snippet"><summary>Markdown for a runbook</summary>
<pre><code id="snippet-pattern">${snippet}</code></pre>
<button type="button" class="copy-button" data-copy-from="snippet-pattern" hidden>Copy Markdown</button>
</details>
</div>
<section aria-labelledby="pattern-incidents">
<h2 id="pattern-incidents">${p.incidentCount === 1 ? 'The incident showing it' : `The ${p.incidentCount} incidents showing it`}</h2>
${formErrorsView(m.errors, [])}
${m.page ? html`${m.page.items.length > 0 ? incidentItemsView(m.page.items) : html`<p class="empty">No published incident shows this pattern yet.</p>`}
${pagerView(m.page, withQuery(path, params), (after) => withQuery(path, { ...params, after }))}` : ''}
</section>
<section id="runbooks" aria-labelledby="pattern-runbooks">
<h2 id="pattern-runbooks">Runbooks citing this pattern</h2>
${(m.citations?.length ?? 0) === 0 ? html`<p class="empty">No runbook cites this pattern yet.</p>` : ''}
${citedByView(m.citations, citeFormPath('pattern', '', p.key), p.name)}
</section>
</article>`;
  return layoutView({ title: p.name, main, active: 'patterns', description: p.description });
}

export function patternIndexView(patterns: readonly PatternWithCount[]): SafeHtml {
  const main = html`<h1>Failure patterns</h1>
<p class="lede">The shapes incidents take. Each pattern page lists every incident that shows it; link to it from a runbook.</p>
<ul class="pattern-list">${patterns.map(
    (p) => html`<li><h2><a href="/patterns/${encodeURIComponent(p.key)}">${p.name}</a> <span class="count">${p.incidentCount === 1 ? '1 incident' : `${p.incidentCount} incidents`}</span></h2><p>${p.description}</p></li>`,
  )}</ul>`;
  return layoutView({ title: 'Failure patterns', main, active: 'patterns' });
}
