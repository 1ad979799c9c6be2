import type { ActionableRecord, ExternalReferenceRecord, IncidentRecord } from '@hindsight/incidents';
import { anchorId, html, type SafeHtml } from '@hindsight/web';
import { ACTIONABLE_LIST_ORDERS, ACTIONABLE_STATUS_CHOICES, withQuery, type ActionableListForm, type FieldError } from '../list-query.parser';
import { checkboxField, formErrorsView, selectField, textField } from './form-fields.view';
import { actionableMetaView, referencesView } from './incident.view';
import type { ListPage } from './incident-list.view';
import { pagerView } from './incident-list.view';
import { layoutView } from './layout.view';
import type { FollowUpOwner } from '@hindsight/tracking';

export interface ActionableListItem {
  actionable: ActionableRecord;
  incident: IncidentRecord | null;
  references: ExternalReferenceRecord[];
}

export interface ActionableListModel {
  form: ActionableListForm;
  errors: FieldError[];
  page: ListPage<ActionableListItem> | null;
  today: string;
  /** Follow-ups' owners (account, team or free text), by row id. */
  owners?: Map<string, FollowUpOwner>;
  /** The "assigned to me" board: the signed-in person's follow-ups and their teams'. */
  mine?: { name: string; teams: string[] };
  /** Owners as written on follow-ups, most frequent first, for the owner field's list. */
  ownerSuggestions?: string[];
}

export function actionableListView(m: ActionableListModel): SafeHtml {
  const f = m.form;
  const params = { owner: f.owner, status: f.status === 'unresolved' ? null : f.status, overdue: f.overdue, order: f.order === 'due' ? null : f.order, first: f.first === 20 ? null : f.first };
  const path = m.mine ? '/actionables/mine' : '/actionables';
  const heading = m.mine ? 'Assigned to me' : f.status === 'unresolved' ? 'Open follow-ups' : 'Follow-ups';
  const form = html`<form class="filters" method="get" action="${path}" aria-label="Filter follow-ups">
${textField({ name: 'owner', label: 'Owner', value: f.owner, errors: m.errors, hint: "Part of a person's or team's name, or of an owner as written (any case).", suggestions: m.ownerSuggestions, suggest: 'OWNER' })}
${selectField({ name: 'status', label: 'Status', value: f.status, errors: m.errors, choices: Object.entries(ACTIONABLE_STATUS_CHOICES).map(([value, c]) => ({ value, label: c.label })) })}
${selectField({ name: 'order', label: 'Order', value: f.order, errors: m.errors, choices: Object.entries(ACTIONABLE_LIST_ORDERS).map(([value, o]) => ({ value, label: o.label })) })}
${checkboxField({ name: 'overdue', label: 'Only overdue', checked: f.overdue, errors: m.errors })}
<div class="form-actions"><button type="submit">Apply</button>${f.owner || f.overdue || f.status !== 'unresolved' ? html` <a href="${path}">Clear filters</a>` : ''}</div>
</form>`;
  const items = (page: ListPage<ActionableListItem>) =>
    html`<ol class="actionable-list">${page.items.map(({ actionable: a, incident, references }) => {
      const href = incident ? `/incidents/${encodeURIComponent(incident.slug)}#${anchorId('actionable', a.key)}` : null;
      return html`<li class="actionable status-${a.status}">
<h2>${href ? html`<a href="${href}">${a.title}</a>` : a.title}</h2>
${incident ? html`<p class="from-incident">From <a href="/incidents/${encodeURIComponent(incident.slug)}">${incident.title}</a></p>` : ''}
${actionableMetaView(a, m.today, m.owners?.get(a.id))}
${referencesView(references)}
</li>`;
    })}</ol>`;
  const results = m.page
    ? html`<p class="result-count" id="result-count">${m.page.totalCount === 1 ? '1 follow-up matches.' : `${m.page.totalCount} follow-ups match.`}</p>
${m.page.items.length > 0 ? items(m.page) : html`<p class="empty">No follow-up matches these filters.</p>`}
${pagerView(m.page, withQuery(path, params), (after) => withQuery(path, { ...params, after }))}`
    : html``;
  const main = html`<h1>${heading}</h1>
${m.mine
    ? html`<p class="lede">Follow-ups owned by ${m.mine.name}${m.mine.teams.length > 0 ? html` or by ${m.mine.teams.length === 1 ? 'the team' : 'the teams'} ${m.mine.teams.join(', ')}` : ''}.</p>`
    : html`<p class="lede">Work that came out of incidents, across all of them. <a href="/actionables/mine">Assigned to me</a></p>`}
${form}
${formErrorsView(m.errors, ['owner', 'status', 'order', 'overdue'])}
<section aria-labelledby="result-count">${results}</section>`;
  return layoutView({ title: heading, main, active: 'actionables' });
}
