import { html, type SafeHtml } from '@hindsight/web';
import type { FieldError } from '../list-query.parser';
import { PRECISION_LABELS } from '@hindsight/web';
import { TIME_PRECISIONS } from '@hindsight/domain';
import { selectField, textField } from './form-fields.view';
import { layoutView } from './layout.view';

export const INCIDENT_FORM_FIELDS = [
  'title',
  'organization',
  'components',
  'summary',
  'impact',
  'narrative',
  'severity',
  'nearMiss',
  'tags',
  'customerImpactMinutes',
  'customerImpactPrecision',
] as const;
export type IncidentFormField = (typeof INCIDENT_FORM_FIELDS)[number];
export type IncidentFormValues = Record<IncidentFormField, string> & { note: string };

const LABELS: Record<IncidentFormField, string> = {
  title: 'Title',
  organization: 'Organization',
  components: 'Components',
  summary: 'Summary',
  impact: 'Impact',
  narrative: 'Narrative (Markdown)',
  severity: 'Severity',
  nearMiss: 'Near miss',
  tags: 'Tags',
  customerImpactMinutes: 'Customer impact (minutes)',
  customerImpactPrecision: 'Customer impact stated',
};

export interface IncidentEditViewOptions {
  slug: string;
  title: string;
  status: 'draft' | 'published';
  version: number;
  values: IncidentFormValues;
  /** The configured severity scale, most severe first. */
  severityLevels: readonly string[];
  csrfToken: string;
  errors: FieldError[];
  conflict?: { current: IncidentFormValues; sent: IncidentFormValues; expectedVersion: number; currentVersion: number };
}

function area(name: IncidentFormField | 'note', label: string, value: string, errors: FieldError[], rows: number): SafeHtml {
  const mine = errors.filter((e) => e.field === name);
  return html`<div class="field${mine.length > 0 ? ' field-invalid' : ''}"><label for="field-${name}">${label}</label>
<textarea id="field-${name}" name="${name}" rows="${String(rows)}"${mine.length > 0 ? html` aria-invalid="true"` : ''}>${value}</textarea>
${mine.map((e) => html`<p class="field-error">${e.message}</p>`)}</div>`;
}

/** Correcting an incident's fields: a plain POST form against the version it showed. */
export function incidentEditView(o: IncidentEditViewOptions): SafeHtml {
  const c = o.conflict;
  const changed = c ? INCIDENT_FORM_FIELDS.filter((f) => c.current[f] !== c.sent[f]) : [];
  const loose = o.errors.filter((e) => !([...INCIDENT_FORM_FIELDS, 'note'] as string[]).includes(e.field));
  return layoutView({
    title: `Edit: ${o.title}`,
    active: 'incidents',
    main: html`<article class="edit-page" aria-labelledby="edit-title">
<p class="breadcrumb"><a href="/incidents/${o.slug}">${o.title}</a>${o.status === 'draft' ? ' (draft)' : ''}</p>
<h1 id="edit-title">Correct the incident record</h1>
${c
  ? html`<section class="conflict" role="alert" aria-labelledby="conflict-title">
<h2 id="conflict-title">Someone changed this incident while you were editing</h2>
<p>You edited version ${c.expectedVersion}; it is now at version ${c.currentVersion}. <strong>Nothing you sent was saved.</strong> The form shows the values stored now.</p>
<table class="conflict-table"><thead><tr><th scope="col">Field</th><th scope="col">Stored now</th><th scope="col">You sent</th></tr></thead>
<tbody>${changed.map((f) => html`<tr><th scope="row">${LABELS[f]}</th><td>${c.current[f]}</td><td>${c.sent[f]}</td></tr>`)}</tbody></table>
</section>`
  : ''}
${loose.length > 0 ? html`<div class="form-errors" role="alert"><p>${loose.map((e) => html`<span>${e.message}</span> `)}</p></div>` : ''}
<form method="post" action="/incidents/${o.slug}/edit" class="edit-form">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="version" value="${String(o.version)}">
${textField({ name: 'title', label: LABELS.title, errors: o.errors, value: o.values.title })}
${textField({ name: 'organization', label: LABELS.organization, errors: o.errors, value: o.values.organization })}
${textField({ name: 'components', label: LABELS.components, errors: o.errors, value: o.values.components, hint: 'Comma-separated.' })}
${area('summary', LABELS.summary, o.values.summary, o.errors, 3)}
${area('impact', LABELS.impact, o.values.impact, o.errors, 3)}
${area('narrative', LABELS.narrative, o.values.narrative, o.errors, 12)}
<fieldset class="metadata"><legend>Classification</legend>
${selectField({
  name: 'severity',
  label: LABELS.severity,
  errors: o.errors,
  value: o.values.severity,
  // A level the scale no longer lists stays selectable until someone changes it.
  choices: [{ value: '', label: 'Not stated' }, ...[...new Set([...o.severityLevels, ...(o.values.severity ? [o.values.severity] : [])])].map((l) => ({ value: l, label: l }))],
  hint: 'Most severe first.',
})}
${selectField({ name: 'nearMiss', label: LABELS.nearMiss, errors: o.errors, value: o.values.nearMiss, choices: [{ value: 'no', label: 'No: it affected people' }, { value: 'yes', label: 'Yes: caught before it affected anyone' }] })}
${textField({ name: 'tags', label: LABELS.tags, errors: o.errors, value: o.values.tags, hint: 'Comma-separated; stored in lower case with dashes between words.' })}
${textField({ name: 'customerImpactMinutes', label: LABELS.customerImpactMinutes, errors: o.errors, value: o.values.customerImpactMinutes, inputmode: 'numeric', hint: 'Whole minutes; empty when the source does not say.' })}
${selectField({
  name: 'customerImpactPrecision',
  label: LABELS.customerImpactPrecision,
  errors: o.errors,
  value: o.values.customerImpactPrecision,
  choices: TIME_PRECISIONS.filter((p) => p !== 'none').map((p) => ({ value: p, label: PRECISION_LABELS[p] })),
})}
</fieldset>
${area('note', 'Note for the history', o.values.note, o.errors, 2)}
<button type="submit">Save</button> <a href="/incidents/${o.slug}">Cancel</a>
</form>
</article>`,
  });
}
