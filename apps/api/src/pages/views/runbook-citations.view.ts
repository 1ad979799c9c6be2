import { html, safeUrl, type SafeHtml } from '@hindsight/web';
import type { CitationNotice, CitedKind, RunbookCitationRecord } from '@hindsight/tracking';
import type { FieldError } from '../list-query.parser';
import { formErrorsView, textField } from './form-fields.view';
import { layoutView } from './layout.view';

export const CITED_KIND_LABELS: Record<CitedKind, string> = { incident: 'incident', causal_factor: 'causal factor', actionable: 'follow-up', pattern: 'pattern' };

/** Where a record's "cite in a runbook" form lives. */
export function citeFormPath(kind: CitedKind, slug: string, key: string): string {
  return `/runbooks/cite?${new URLSearchParams({ kind, incident: slug, key }).toString()}`;
}

function runbookLink(c: { runbook: { url: string; title: string } }): SafeHtml {
  const url = safeUrl(c.runbook.url);
  return url ? html`<a href="${url}" rel="noopener noreferrer">${c.runbook.title}</a>` : html`${c.runbook.title}`;
}

/**
 * The runbooks citing a record, in the same inline list as its tracker references, and the link
 * to cite it from another runbook (a plain page, so it works without JavaScript).
 */
export function citedByView(citations: readonly RunbookCitationRecord[] | undefined, citePath: string, name: string): SafeHtml {
  const list = citations ?? [];
  return html`${list.length > 0 ? html`<div class="refs citations"><span class="refs-label">Cited by runbooks</span> <ul class="inline-list">${list.map((c) => html`<li>${runbookLink(c)}</li>`)}</ul></div>` : ''}
<p class="edit-link"><a href="${citePath}">Cite in a runbook<span class="visually-hidden">: ${name}</span></a></p>`;
}

export interface CiteFormModel {
  kind: CitedKind;
  slug: string;
  key: string;
  name: string;
  /** The record's place on its page. */
  path: string;
  citations: readonly RunbookCitationRecord[];
  values: { url: string; title: string };
  errors: FieldError[];
  csrfToken: string;
  /** Set after a removal or a citation, for the person who made it. */
  done?: string;
}

/** Registering a runbook's citation of one record, and removing the ones it has. Editors only. */
export function citeFormView(m: CiteFormModel): SafeHtml {
  const label = CITED_KIND_LABELS[m.kind];
  const main = html`<article class="edit-page" aria-labelledby="cite-title">
<p class="breadcrumb"><a href="${m.path}">${m.name}</a></p>
<h1 id="cite-title">Runbooks citing this ${label}</h1>
${m.done ? html`<p class="notice" role="status">${m.done}</p>` : ''}
${m.citations.length === 0 ? html`<p class="empty">No runbook cites it yet.</p>` : html`<ul class="citation-list">${m.citations.map(
    (c) => html`<li>${runbookLink(c)} <span class="muted">(${c.runbook.url}; cited by ${c.citedBy})</span>
<form method="post" action="/runbooks/citations/${c.id}/remove" class="inline-form">
<input type="hidden" name="_csrf" value="${m.csrfToken}">
<button type="submit">Remove<span class="visually-hidden"> the citation by ${c.runbook.title}</span></button>
</form></li>`,
  )}</ul>`}
<h2>Register a runbook that cites it</h2>
${formErrorsView(m.errors, ['url', 'title'])}
<form method="post" action="/runbooks/cite" class="edit-form">
<input type="hidden" name="_csrf" value="${m.csrfToken}">
<input type="hidden" name="kind" value="${m.kind}">
<input type="hidden" name="incident" value="${m.slug}">
<input type="hidden" name="key" value="${m.key}">
${textField({ name: 'url', label: 'Runbook address', errors: m.errors, value: m.values.url, hint: 'The http(s) address of the runbook page.' })}
${textField({ name: 'title', label: 'Runbook title', errors: m.errors, value: m.values.title })}
<button type="submit">Register citation</button> <a href="${m.path}">Back</a>
</form>
</article>`;
  return layoutView({ title: `Runbooks citing: ${m.name}`, main });
}

/**
 * Shown after a change to something runbooks cite (closing a follow-up, a new slug or title):
 * which runbooks to check, and the way on to where the person was going.
 */
export function citationNoticePageView(notices: readonly CitationNotice[], next: string): SafeHtml {
  const main = html`<article class="edit-page" aria-labelledby="notice-title">
<h1 id="notice-title">Saved. Runbooks cite what you changed</h1>
${notices.map(
    (n) => html`<section class="notice" role="status"><p>${n.message}</p><ul>${n.runbooks.map((r) => html`<li>${runbookLink({ runbook: r })} <span class="muted">${r.url}</span></li>`)}</ul></section>`,
  )}
<p><a href="${next}">Continue</a></p>
</article>`;
  return layoutView({ title: 'Saved: runbooks to check', main });
}
