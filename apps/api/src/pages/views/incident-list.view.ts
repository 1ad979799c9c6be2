import { ACTIONABLE_STATUSES, type ActionableStatus } from '@hindsight/domain';
import { RELEVANCE_POOL, type DidYouMean, type Facet, type FacetValue, type IncidentRecord, type PatternRecord, type PatternWithCount, type SearchField, type SearchHighlight } from '@hindsight/incidents';
import { formatInstant, html, truncateWords, type SafeHtml } from '@hindsight/web';
import { INCIDENT_LIST_ORDERS, incidentOrderInForce, withQuery, type FieldError, type IncidentListForm } from '../list-query.parser';
import { formErrorsView, selectField, textField } from './form-fields.view';
import { layoutView } from './layout.view';
import { NOT_STATED, STATUS_LABELS } from './labels';

export interface IncidentListItem {
  incident: IncidentRecord;
  patterns: PatternRecord[];
}

/** One page of results; absent when the filters were refused. */
export interface ListPage<T> {
  items: T[];
  totalCount: number;
  /** False when the count stopped at a limit: there are more than `totalCount`. */
  totalCountComplete: boolean;
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
  /** Whether the facet counts were made for this page or are the unfiltered list's, at most a minute old. */
  facetsRecounted?: 'now' | 'minute';
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

/** The follow-ups filter's choices: incidents with at least one follow-up in the status. */
const FOLLOWUP_FILTER_LABELS: Record<ActionableStatus, string> = {
  open: 'With an open follow-up',
  in_progress: 'With a follow-up in progress',
  done: 'With a follow-up done',
  wont_do: 'With a follow-up that won’t be done',
};

type FacetParam = 'pattern' | 'organization' | 'component' | 'year' | 'severity' | 'tag' | 'nearmiss' | 'followups';

/** Each facet's heading and the list filter a value narrows by; null: a count only (no incident filter takes it). */
const FACET_LABELS: Record<Facet['kind'], { label: string; param: FacetParam | null }> = {
  PATTERN: { label: 'Pattern', param: 'pattern' },
  ORGANIZATION: { label: 'Organization', param: 'organization' },
  COMPONENT: { label: 'Component', param: 'component' },
  YEAR: { label: 'Year', param: 'year' },
  SEVERITY: { label: 'Severity', param: 'severity' },
  NEAR_MISS: { label: 'Near miss', param: 'nearmiss' },
  TAG: { label: 'Tag', param: 'tag' },
  ACTIONABLE_STATUS: { label: 'Follow-ups by status', param: 'followups' },
};

/** Facet values that name no filter (a year not known, a severity not stated): counts without a link. */
const UNFILTERABLE = new Set(['YEAR:unknown', 'SEVERITY:none']);

/** The filter value a facet value narrows to (a near-miss facet counts `true`/`false`; the filter takes yes/no). */
function filterValue(param: FacetParam, value: string): string | string[] {
  if (param === 'pattern') return [value];
  if (param === 'nearmiss') return value === 'true' ? 'yes' : 'no';
  return value;
}

/**
 * Counts of the result set (every page; past the list count limit, its first matches, and the
 * note says so), each value a link that narrows the list to it.
 * Follow-up statuses count follow-ups, not incidents; each narrows the list to the incidents
 * with at least one follow-up in that status.
 */
function facetsView(facets: readonly Facet[], params: Record<string, string | string[] | number | null>, recounted: 'now' | 'minute', countedOnly: number | null): SafeHtml {
  const shown = facets.filter((f) => f.values.length > 0);
  if (shown.length === 0) return html``;
  const count = (v: FacetValue) => html`<span class="count">${v.count}</span>`;
  return html`<nav class="facets" id="facets" aria-label="Refine the results">${shown.map((f) => {
    const { label, param } = FACET_LABELS[f.kind];
    const more = f.distinctValues > f.values.length ? html`<p class="muted">The ${f.values.length} most frequent of ${f.distinctValues}.</p>` : '';
    const note = f.kind === 'ACTIONABLE_STATUS' ? html`<p class="muted">Counts of these incidents' follow-ups; a status narrows to incidents with one in it.</p>` : '';
    const item = (v: FacetValue) =>
      param && !UNFILTERABLE.has(`${f.kind}:${v.value}`)
        ? html`<li><a href="${withQuery('/incidents', { ...params, [param]: filterValue(param, v.value) })}">${f.kind === 'ACTIONABLE_STATUS' ? (STATUS_LABELS[v.value as ActionableStatus] ?? v.label) : v.label}</a> ${count(v)}</li>`
        : html`<li>${f.kind === 'ACTIONABLE_STATUS' ? (STATUS_LABELS[v.value as ActionableStatus] ?? v.label) : v.label} ${count(v)}</li>`;
    return html`<div class="facet facet-${f.kind.toLowerCase().replace(/_/g, '-')}"><h2>${label}</h2>${note}<ul>${f.values.map(item)}</ul>${more}</div>`;
  })}${recounted === 'minute' ? html`<p class="muted facets-note">Counts over all published incidents, recounted in the background about once a minute, so they may lag the list a little.</p>` : ''}${
    countedOnly !== null
      ? html`<p class="muted facets-note">Counts over the first ${countedOnly.toLocaleString('en')} matching incidents found, not all of them and not necessarily the best matches; narrow the list for complete counts.</p>`
      : ''
  }</nav>`;
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
    nearmiss: f.nearMiss,
    followups: f.followups,
    order: f.order === '' ? null : f.order,
    first: f.first === 20 ? null : f.first,
  };
  const ranked = incidentOrderInForce(f.q, f.order) === 'relevance';
  const filtered = f.q || f.pattern.length > 0 || f.organization || f.component || f.year || f.severity || f.tag || f.nearMiss || f.followups;
  // A level the scale no longer lists stays selectable while it is the filter.
  const levels = [...new Set([...(m.severityLevels ?? []), ...(f.severity ? [f.severity] : [])])];
  const form = html`<form class="filters" method="get" action="/incidents" role="search" aria-label="Search and filter incidents">
${textField({ name: 'q', label: 'Search', type: 'search', value: f.q, errors: m.errors, hint: 'Words from the title, narrative, timeline, factors or follow-ups.' })}
${selectField({ name: 'pattern', label: 'Pattern', value: f.pattern[0] ?? '', errors: m.errors, choices: [{ value: '', label: 'Any pattern' }, ...m.patterns.map((p) => ({ value: p.key, label: `${p.name} (${p.incidentCount})` }))] })}
${textField({ name: 'organization', label: 'Organization', value: f.organization, errors: m.errors, hint: 'Any part of the name.', suggestions: m.suggestions?.organizations, suggest: 'ORGANIZATION' })}
${textField({ name: 'component', label: 'Component', value: f.component, errors: m.errors, hint: 'Any part of the name.', suggestions: m.suggestions?.components, suggest: 'COMPONENT' })}
${textField({ name: 'year', label: 'Year started', value: f.year, errors: m.errors, inputmode: 'numeric' })}
${selectField({ name: 'severity', label: 'Severity', value: f.severity, errors: m.errors, choices: [{ value: '', label: 'Any severity' }, ...levels.map((l) => ({ value: l, label: l }))] })}
${textField({ name: 'tag', label: 'Tag', value: f.tag, errors: m.errors })}
${selectField({ name: 'nearmiss', label: 'Near miss', value: f.nearMiss, errors: m.errors, choices: [{ value: '', label: 'Near misses and incidents' }, { value: 'yes', label: 'Near misses only' }, { value: 'no', label: 'Incidents that affected someone' }] })}
${selectField({ name: 'followups', label: 'Follow-ups', value: f.followups, errors: m.errors, choices: [{ value: '', label: 'Any follow-ups' }, ...ACTIONABLE_STATUSES.map((s) => ({ value: s, label: FOLLOWUP_FILTER_LABELS[s] }))] })}
${selectField({ name: 'order', label: 'Order', value: f.order, errors: m.errors, choices: [
  { value: '', label: 'Best match for a search, newest first otherwise' },
  ...Object.entries(INCIDENT_LIST_ORDERS).filter(([value]) => value !== 'relevance' || f.order === 'relevance').map(([value, o]) => ({ value, label: o.label })),
] })}
<div class="form-actions"><button type="submit">Apply</button>${filtered ? html` <a href="/incidents">Clear filters</a>` : ''}</div>
</form>`;
  const results = m.page
    ? html`<p class="result-count" id="result-count">${!m.page.totalCountComplete ? `More than ${m.page.totalCount.toLocaleString('en')} incidents match.` : m.page.totalCount === 1 ? '1 incident matches.' : `${m.page.totalCount.toLocaleString('en')} incidents match.`}</p>${
      ranked && (m.page.totalCount > RELEVANCE_POOL || !m.page.totalCountComplete)
        ? html`<p class="muted pool-note">Best match ranks the first ${RELEVANCE_POOL} matches found, and its pages end there; choose “Newest first” or another order to page through all of them.</p>`
        : ''
    }
${m.didYouMean ? html`<p class="did-you-mean">Did you mean <a href="${withQuery('/incidents', { ...params, q: m.didYouMean.text })}">${m.didYouMean.text}</a>? (${m.didYouMean.totalCount === 1 ? '1 incident' : `${m.didYouMean.totalCount} incidents`})</p>` : ''}
${facetsView(m.facets ?? [], params, m.facetsRecounted ?? 'now', m.page.totalCountComplete ? null : m.page.totalCount)}
${m.page.items.length > 0 ? incidentItemsView(m.page.items, m.highlights) : html`<p class="empty">No incident matches these filters.</p>`}
${pagerView(m.page, withQuery('/incidents', params), (after) => withQuery('/incidents', { ...params, after }))}`
    : html``;
  const main = html`<h1>Incidents</h1>
<p class="lede">Postmortems as linkable knowledge: what happened, why, and what was done about it.</p>
<p class="list-links"><a href="/durations">How long incidents took</a>: time to detect, mitigate and resolve across incidents, by pattern, organization and year.</p>
${form}
${formErrorsView(m.errors, ['q', 'pattern', 'organization', 'component', 'year', 'severity', 'tag', 'nearmiss', 'followups', 'order'])}
<section aria-labelledby="result-count">${results}</section>`;
  return layoutView({ title: 'Incidents', main, active: 'incidents' });
}
