import type { DidYouMean, Facet, IncidentRecord, PatternRecord, PatternWithCount, SearchField, SearchHighlight } from '@hindsight/incidents';
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
  /** For a text search: where each result matched, by incident id. */
  highlights?: Map<string, SearchHighlight[]>;
  didYouMean?: DidYouMean | null;
  facets?: Facet[];
  /** Values the organization and component fields suggest as one types. */
  suggestions?: { organizations: string[]; components: string[] };
  /** The configured severity scale, most severe first, for the severity filter. */
  severityLevels?: readonly string[];
}

const FIELD_LABELS: Record<SearchField, string> = {
  TITLE: 'Title',
  SUMMARY: 'Summary',
  ORIGINAL_TEXT: 'Source, in its language',
  COMPONENTS: 'Components',
  PATTERNS: 'Patterns',
  IMPACT: 'Impact',
  CAUSAL_FACTORS: 'Causal factor',
  ACTIONABLES: 'Actionable',
  TIMELINE: 'Timeline',
  NARRATIVE: 'Narrative',
  SOURCE_TITLE: 'Source title',
  REFERENCES: 'References',
};

/** Where a result matched: the field, and the excerpt with each match in `<mark>`. */
function highlightsView(highlights: readonly SearchHighlight[] | undefined): SafeHtml {
  if (!highlights || highlights.length === 0) return html``;
  return html`<dl class="matches" aria-label="Where it matched">${highlights.map(
    (h) => html`<div><dt>${FIELD_LABELS[h.field]}</dt><dd>${h.fragments.map((f) => (f.matched ? html`<mark>${f.text}</mark>` : html`${f.text}`))}</dd></div>`,
  )}</dl>`;
}

function started(i: IncidentRecord): SafeHtml {
  return i.startedAt
    ? html`<time datetime="${i.startedAt.toISOString()}">${formatInstant(i.startedAt, i.startedPrecision)}</time>`
    : html`<span class="muted">Start time not given</span>`;
}

export function incidentItemsView(items: readonly IncidentListItem[], highlights?: Map<string, SearchHighlight[]>): SafeHtml {
  return html`<ol class="incident-list">${items.map(
    ({ incident: i, patterns }) => html`<li class="incident-item">
<h2><a href="/incidents/${encodeURIComponent(i.slug)}">${i.title}</a></h2>
<p class="meta">${i.organization ?? NOT_STATED} · ${started(i)}</p>
<p>${truncateWords(i.summary, 280)}</p>
${highlightsView(highlights?.get(i.id))}
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

const FACET_LABELS: Partial<Record<Facet['kind'], { label: string; param: 'pattern' | 'organization' | 'component' | 'year' | 'severity' | 'tag' }>> = {
  PATTERN: { label: 'Pattern', param: 'pattern' },
  ORGANIZATION: { label: 'Organization', param: 'organization' },
  COMPONENT: { label: 'Component', param: 'component' },
  YEAR: { label: 'Year', param: 'year' },
  SEVERITY: { label: 'Severity', param: 'severity' },
  TAG: { label: 'Tag', param: 'tag' },
};

/** Facet values that name no filter: a year not known, a severity not stated. */
const UNFILTERABLE = new Set(['YEAR:unknown', 'SEVERITY:none']);

/** Counts of the whole result set, each a link that narrows the search to that value. */
function facetsView(facets: readonly Facet[], params: Record<string, string | string[] | number | null>): SafeHtml {
  const shown = facets.filter((f) => FACET_LABELS[f.kind] && f.values.length > 0);
  if (shown.length === 0) return html``;
  return html`<nav class="facets" aria-label="Refine the results">${shown.map((f) => {
    const { label, param } = FACET_LABELS[f.kind]!;
    return html`<div class="facet"><h2>${label}</h2><ul>${f.values
      .filter((v) => !UNFILTERABLE.has(`${f.kind}:${v.value}`))
      .map((v) => html`<li><a href="${withQuery('/incidents', { ...params, [param]: param === 'pattern' ? [v.value] : v.value })}">${v.label}</a> <span class="count">${v.count}</span></li>`)}</ul></div>`;
  })}</nav>`;
}

export function incidentListView(m: IncidentListModel): SafeHtml {
  const f = m.form;
  const params = {
    q: f.q,
    pattern: f.pattern,
    organization: f.organization,
    component: f.component,
    year: f.year,
    severity: f.severity,
    tag: f.tag,
    order: f.order === 'newest' ? null : f.order,
    first: f.first === 20 ? null : f.first,
  };
  const filtered = f.q || f.pattern.length > 0 || f.organization || f.component || f.year || f.severity || f.tag;
  // A level the scale no longer lists stays selectable while it is the filter.
  const levels = [...new Set([...(m.severityLevels ?? []), ...(f.severity ? [f.severity] : [])])];
  const form = html`<form class="filters" method="get" action="/incidents" role="search" aria-label="Search and filter incidents">
${textField({ name: 'q', label: 'Search', type: 'search', value: f.q, errors: m.errors, hint: 'Words from the title, narrative, timeline, factors or follow-ups.' })}
${selectField({ name: 'pattern', label: 'Pattern', value: f.pattern[0] ?? '', errors: m.errors, choices: [{ value: '', label: 'Any pattern' }, ...m.patterns.map((p) => ({ value: p.key, label: `${p.name} (${p.incidentCount})` }))] })}
${textField({ name: 'organization', label: 'Organization', value: f.organization, errors: m.errors, hint: 'Any part of the name.', suggestions: m.suggestions?.organizations })}
${textField({ name: 'component', label: 'Component', value: f.component, errors: m.errors, hint: 'Any part of the name.', suggestions: m.suggestions?.components })}
${textField({ name: 'year', label: 'Year started', value: f.year, errors: m.errors, inputmode: 'numeric' })}
${selectField({ name: 'severity', label: 'Severity', value: f.severity, errors: m.errors, choices: [{ value: '', label: 'Any severity' }, ...levels.map((l) => ({ value: l, label: l }))] })}
${textField({ name: 'tag', label: 'Tag', value: f.tag, errors: m.errors })}
${selectField({ name: 'order', label: 'Order', value: f.order, errors: m.errors, choices: Object.entries(INCIDENT_LIST_ORDERS).map(([value, o]) => ({ value, label: o.label })) })}
<div class="form-actions"><button type="submit">Apply</button>${filtered ? html` <a href="/incidents">Clear filters</a>` : ''}</div>
</form>`;
  const results = m.page
    ? html`<p class="result-count" id="result-count">${m.page.totalCount === 1 ? '1 incident matches.' : `${m.page.totalCount} incidents match.`}</p>
${m.didYouMean ? html`<p class="did-you-mean">Did you mean <a href="${withQuery('/incidents', { ...params, q: m.didYouMean.text })}">${m.didYouMean.text}</a>? (${m.didYouMean.totalCount === 1 ? '1 incident' : `${m.didYouMean.totalCount} incidents`})</p>` : ''}
${facetsView(m.facets ?? [], params)}
${m.page.items.length > 0 ? incidentItemsView(m.page.items, m.highlights) : html`<p class="empty">No incident matches these filters.</p>`}
${pagerView(m.page, withQuery('/incidents', params), (after) => withQuery('/incidents', { ...params, after }))}`
    : html``;
  const main = html`<h1>Incidents</h1>
<p class="lede">Postmortems as linkable knowledge: what happened, why, and what was done about it.</p>
${form}
${formErrorsView(m.errors, ['q', 'pattern', 'organization', 'component', 'year', 'severity', 'tag', 'order'])}
<section aria-labelledby="result-count">${results}</section>`;
  return layoutView({ title: 'Incidents', main, active: 'incidents' });
}
