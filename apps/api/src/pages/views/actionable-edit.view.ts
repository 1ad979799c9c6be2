import { html, type SafeHtml } from '@hindsight/web';
import { ACTIONABLE_PRIORITIES, allowedTransitions } from '@hindsight/tracking';
import type { ActionableStatus } from '@hindsight/domain';
import type { FieldError } from '../list-query.parser';
import { anchorId } from '@hindsight/web';
import { selectField, textField } from './form-fields.view';
import { STATUS_LABELS } from './labels';
import { layoutView } from './layout.view';

/** What the form shows: the stored values (or, after a refusal, what the person sent). */
export interface ActionableFormValues {
  status: ActionableStatus;
  owner: string;
  dueDate: string;
  priority: string;
  references: string;
  note: string;
}

export interface ActionableEditViewOptions {
  slug: string;
  incidentTitle: string;
  key: string;
  title: string;
  /** The stored status: the choices are it and the moves the workflow allows from it. */
  storedStatus: ActionableStatus;
  version: number;
  /** Accounts and teams a follow-up can be given to. */
  ownerChoices: { accounts: string[]; teams: string[] };
  values: ActionableFormValues;
  csrfToken: string;
  errors: FieldError[];
  /** After a CONFLICT: the values stored now, shown beside what the person sent. */
  conflict?: { current: Record<string, unknown>; sent: ActionableFormValues; expectedVersion: number; currentVersion: number };
}

function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.join(', ');
  return String(value);
}

function conflictView(c: NonNullable<ActionableEditViewOptions['conflict']>): SafeHtml {
  const rows: [string, unknown, unknown][] = [
    ['Status', c.current.status, c.sent.status],
    ['Owner', c.current.owner, c.sent.owner],
    ['Due date', c.current.dueDate, c.sent.dueDate],
    ['Priority', c.current.priority, c.sent.priority],
    ['References', c.current.references, c.sent.references.split('\n').map((r) => r.trim()).filter(Boolean)],
  ];
  return html`<section class="conflict" role="alert" aria-labelledby="conflict-title">
<h2 id="conflict-title">Someone changed this follow-up while you were editing</h2>
<p>You edited version ${c.expectedVersion}; it is now at version ${c.currentVersion}. <strong>Nothing you sent was saved.</strong> The form below shows the values stored now; re-apply your changes if they still hold.</p>
<table class="conflict-table"><thead><tr><th scope="col">Field</th><th scope="col">Stored now</th><th scope="col">You sent</th></tr></thead>
<tbody>${rows.map(([label, now, sent]) => html`<tr><th scope="row">${label}</th><td>${shown(now)}</td><td>${shown(sent)}</td></tr>`)}</tbody></table>
</section>`;
}

function ownerChoices(o: ActionableEditViewOptions): { value: string; label: string }[] {
  const choices = [
    { value: '', label: 'Unassigned' },
    ...o.ownerChoices.accounts.map((name) => ({ value: `account:${name}`, label: name })),
    ...o.ownerChoices.teams.map((name) => ({ value: `team:${name}`, label: `${name} (team)` })),
  ];
  // The stored or sent value stays selectable, e.g. a free-text owner as imported.
  if (o.values.owner && !choices.some((c) => c.value === o.values.owner)) {
    const at = o.values.owner.indexOf(':');
    choices.push({ value: o.values.owner, label: `${o.values.owner.slice(at + 1)} (as written)` });
  }
  return choices;
}

/** The follow-up edit form: a plain POST form that works without JavaScript. */
export function actionableEditView(o: ActionableEditViewOptions): SafeHtml {
  const statuses = [o.storedStatus, ...allowedTransitions(o.storedStatus)];
  const action = `/incidents/${encodeURIComponent(o.slug)}/actionables/${encodeURIComponent(o.key)}/edit`;
  const general = o.errors.filter((e) => !['status', 'owner', 'dueDate', 'priority', 'references', 'note'].includes(e.field));
  return layoutView({
    title: `Edit: ${o.title}`,
    active: 'actionables',
    main: html`<article class="edit-page" aria-labelledby="edit-title">
<p class="breadcrumb"><a href="/incidents/${o.slug}#${anchorId('actionable', o.key)}">${o.incidentTitle}</a></p>
<h1 id="edit-title">${o.title}</h1>
${o.conflict ? conflictView(o.conflict) : ''}
${general.length > 0 ? html`<div class="form-errors" role="alert"><p>${general.map((e) => html`<span>${e.message}</span> `)}</p></div>` : ''}
<form method="post" action="${action}" class="edit-form">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="version" value="${String(o.version)}">
${selectField({ name: 'status', label: 'Status', errors: o.errors, value: o.values.status, choices: statuses.map((s) => ({ value: s, label: s === o.storedStatus ? `${STATUS_LABELS[s]} (now)` : `Move to ${STATUS_LABELS[s]}` })), hint: 'Won’t do needs a reason in the note.' })}
${selectField({ name: 'owner', label: 'Owner', errors: o.errors, value: o.values.owner, choices: ownerChoices(o), hint: 'A person or a team; an owner imported as free text stays until you choose another.' })}
${textField({ name: 'dueDate', label: 'Due date', errors: o.errors, value: o.values.dueDate, hint: 'YYYY-MM-DD; empty for none.' })}
${selectField({ name: 'priority', label: 'Priority', errors: o.errors, value: o.values.priority, choices: [{ value: '', label: 'None' }, ...ACTIONABLE_PRIORITIES.map((p) => ({ value: p, label: p.toUpperCase() }))] })}
<div class="field${o.errors.some((e) => e.field.startsWith('references')) ? ' field-invalid' : ''}"><label for="field-references">References</label>
<textarea id="field-references" name="references" rows="3" aria-describedby="field-references-hint">${o.values.references}</textarea>
<p class="field-hint" id="field-references-hint">One per line: T123456, OPS-12, owner/repo#34 or a URL.</p>
${o.errors.filter((e) => e.field.startsWith('references')).map((e) => html`<p class="field-error">${e.message}</p>`)}</div>
<div class="field${o.errors.some((e) => e.field === 'note') ? ' field-invalid' : ''}"><label for="field-note">Note</label>
<textarea id="field-note" name="note" rows="3">${o.values.note}</textarea>
${o.errors.filter((e) => e.field === 'note').map((e) => html`<p class="field-error">${e.message}</p>`)}</div>
<button type="submit">Save</button> <a href="/incidents/${o.slug}#${anchorId('actionable', o.key)}">Cancel</a>
</form>
</article>`,
  });
}
