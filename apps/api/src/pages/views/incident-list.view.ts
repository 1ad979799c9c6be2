import type { IncidentRecord, PatternRecord, PatternWithCount } from '@hindsight/incidents';
import { formatInstant, html, truncateWords, type SafeHtml } from '@hindsight/web';
import { INCIDENT_LIST_ORDERS, withQuery, type FieldError, type IncidentListForm } from '../list-query.parser';
import { formErrorsView, selectField, textField } from './form-fields.view';
import { layoutView } from './layout.view';
import { NOT_STATED } from './labels';

export interface IncidentListItem {
  incident: IncidentRecord;
  patterns: PatternRecord[];
}

/** One page of results; absent when the filters were refused. */
export interface ListPage<T> {
  items: T[];
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  endCursor: string | null;
}

export interface IncidentListModel {
  form: IncidentListForm;
  errors: FieldError[];
  patterns: PatternWithCount[];
  page: ListPage<IncidentListItem> | null;
}

function started(i: IncidentRecord): SafeHtml {
  return i.startedAt
    ? html`<time datetime="${i.startedAt.toISOString()}">${formatInstant(i.startedAt, i.startedPrecision)}</time>`
    : html`<span class="muted">Start time not given</span>`;
}

export function incidentItemsView(items: readonly IncidentListItem[]): SafeHtml {
  return html`<ol class="incident-list">${items.map(
    ({ incident: i, patterns }) => html`<li class="incident-item">
<h2><a href="/incidents/${encodeURIComponent(i.slug)}">${i.title}</a></h2>
<p class="meta">${i.organization ?? NOT_STATED} · ${started(i)}</p>
<p>${truncateWords(i.summary, 280)}</p>
${patterns.length > 0 ? html`<ul class="tags" aria-label="Patterns">${patterns.map((p) => html`<li><a href="/patterns/${encodeURIComponent(p.key)}">${p.name}</a></li>`)}</ul>` : ''}
</li>`,
  )}</ol>`;
}

/** Forward-only keyset paging: a link back to the first page and one to the next. */
export function pagerView(page: ListPage<unknown>, firstHref: string, nextHref: (cursor: string) => string): SafeHtml {
  if (!page.hasNextPage && !page.hasPreviousPage) return html``;
  return html`<nav class="pager" aria-label="Pages">
${page.hasPreviousPage ? html`<a href="${firstHref}">First page</a>` : ''}
${page.hasNextPage && page.endCursor ? html`<a href="${nextHref(page.endCursor)}" rel="next">Next page</a>` : ''}
</nav>`;
}

export function incidentListView(m: IncidentListModel): SafeHtml {
  const f = m.form;
  const params = { q: f.q, pattern: f.pattern, organization: f.organization, year: f.year, order: f.order === 'newest' ? null : f.order, first: f.first === 20 ? null : f.first };
  const filtered = f.q || f.pattern.length > 0 || f.organization || f.year;
  const form = html`<form class="filters" method="get" action="/incidents" role="search" aria-label="Search and filter incidents">
${textField({ name: 'q', label: 'Search', type: 'search', value: f.q, errors: m.errors, hint: 'Words from the title, narrative, timeline, factors or follow-ups.' })}
${selectField({ name: 'pattern', label: 'Pattern', value: f.pattern[0] ?? '', errors: m.errors, choices: [{ value: '', label: 'Any pattern' }, ...m.patterns.map((p) => ({ value: p.key, label: `${p.name} (${p.incidentCount})` }))] })}
${textField({ name: 'organization', label: 'Organization', value: f.organization, errors: m.errors })}
${textField({ name: 'year', label: 'Year started', value: f.year, errors: m.errors, inputmode: 'numeric' })}
${selectField({ name: 'order', label: 'Order', value: f.order, errors: m.errors, choices: Object.entries(INCIDENT_LIST_ORDERS).map(([value, o]) => ({ value, label: o.label })) })}
<div class="form-actions"><button type="submit">Apply</button>${filtered ? html` <a href="/incidents">Clear filters</a>` : ''}</div>
</form>`;
  const results = m.page
    ? html`<p class="result-count" id="result-count">${m.page.totalCount === 1 ? '1 incident matches.' : `${m.page.totalCount} incidents match.`}</p>
${m.page.items.length > 0 ? incidentItemsView(m.page.items) : html`<p class="empty">No incident matches these filters.</p>`}
${pagerView(m.page, withQuery('/incidents', params), (after) => withQuery('/incidents', { ...params, after }))}`
    : html``;
  const main = html`<h1>Incidents</h1>
<p class="lede">Postmortems as linkable knowledge: what happened, why, and what was done about it.</p>
${form}
${formErrorsView(m.errors, ['q', 'pattern', 'organization', 'year', 'order'])}
<section aria-labelledby="result-count">${results}</section>`;
  return layoutView({ title: 'Incidents', main, active: 'incidents' });
}
