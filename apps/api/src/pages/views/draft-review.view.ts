import { html, type SafeHtml } from '@hindsight/web';
import type { ImportReport } from '@hindsight/postmortem-parser';
import type { IncidentRecord } from '@hindsight/incidents';
import { layoutView } from './layout.view';

export interface DraftReviewViewOptions {
  incident: IncidentRecord;
  report: ImportReport | null;
  sourceText: string | null;
  csrfToken: string;
  message?: string;
}

function sourceView(sourceText: string | null, report: ImportReport | null): SafeHtml {
  if (sourceText === null) return html`<p class="empty">The source document was not kept for this draft (it was imported before sources were stored). The unused lines below come from the import report.</p>`;
  const unused = new Set((report?.unusedLines ?? []).map((l) => l.line));
  const warned = new Map<number, string[]>();
  for (const w of report?.warnings ?? []) if (w.line !== undefined) warned.set(w.line, [...(warned.get(w.line) ?? []), w.message]);
  const decided = new Map<number, string[]>();
  for (const d of report?.decisions ?? []) if (d.line !== null) decided.set(d.line, [...(decided.get(d.line) ?? []), d.field]);
  const lines = sourceText.split('\n').map((text, i) => {
    const n = i + 1;
    const cls = [unused.has(n) ? 'unused' : '', warned.has(n) ? 'warned' : ''].filter(Boolean).join(' ');
    const notes = [...(decided.get(n) ?? []).map((f) => `used for ${f}`), ...(warned.get(n) ?? []).map((m) => `warning: ${m}`), ...(unused.has(n) ? ['not used by the importer'] : [])];
    return html`<li id="line-${String(n)}"${cls ? html` class="${cls}"` : ''}><span class="line-text">${unused.has(n) ? html`<mark>${text}</mark>` : text || ' '}</span>${notes.length > 0 ? html` <span class="line-notes">(${notes.join('; ')})</span>` : ''}</li>`;
  });
  return html`<ol class="source-lines">${lines}</ol>`;
}

/** The review page of an imported draft: the source with every unused line marked, the warnings by line, the draft's fields, and publishing. */
export function draftReviewView(o: DraftReviewViewOptions): SafeHtml {
  const i = o.incident;
  const r = o.report;
  const slug = i.slug;
  return layoutView({
    title: `Review draft: ${i.title}`,
    active: 'incidents',
    main: html`<article class="draft-review" aria-labelledby="review-title">
<p class="breadcrumb"><a href="/drafts">Drafts</a></p>
<h1 id="review-title">Review draft: ${i.title}</h1>
${o.message ? html`<p class="form-errors" role="alert">${o.message}</p>` : ''}
<div class="review-columns">
<section aria-labelledby="draft-heading">
<h2 id="draft-heading">The draft</h2>
<dl class="facts">
<div><dt>Title</dt><dd>${i.title}</dd></div>
<div><dt>Organization</dt><dd>${i.organization}</dd></div>
<div><dt>Components</dt><dd>${i.components.join(', ') || '—'}</dd></div>
<div><dt>Summary</dt><dd>${i.summary}</dd></div>
<div><dt>Impact</dt><dd>${i.impact || '—'}</dd></div>
</dl>
<p class="edit-link"><a href="/incidents/${slug}/edit">Edit the extracted fields</a></p>
${r
  ? html`<p>${String(r.counts.usedLines)} lines used, ${String(r.unusedLines.length)} not used; ${String(r.counts.timeline)} timeline events, ${String(r.counts.causalFactors)} causal factors, ${String(r.counts.actionables)} actionables.</p>
<h3>Warnings</h3>
${r.warnings.length === 0 ? html`<p class="empty">No warnings.</p>` : html`<ul class="warnings">${r.warnings.map((w) => html`<li>${w.line !== undefined ? html`<a href="#line-${String(w.line)}">line ${String(w.line)}</a>: ` : ''}${w.message} <span class="muted">(${w.code})</span></li>`)}</ul>`}
<h3>Lines not used</h3>
${r.unusedLines.length === 0 ? html`<p class="empty">Every line went into the draft.</p>` : html`<ul class="unused-lines">${r.unusedLines.map((l) => html`<li><a href="#line-${String(l.line)}">line ${String(l.line)}</a>: ${l.text}</li>`)}</ul>`}`
  : html`<p class="empty">This draft has no import report.</p>`}
<form method="post" action="/drafts/${slug}/publish" class="publish-form">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="version" value="${String(i.version)}">
<button type="submit">Publish</button>
</form>
</section>
<section aria-labelledby="source-heading">
<h2 id="source-heading">Source document</h2>
${sourceView(o.sourceText, r)}
</section>
</div>
</article>`,
  });
}

export function draftListView(drafts: { incident: IncidentRecord; report: ImportReport | null }[]): SafeHtml {
  return layoutView({
    title: 'Drafts to review',
    active: 'incidents',
    main: html`<section aria-labelledby="drafts-title"><h1 id="drafts-title">Drafts to review</h1>
${drafts.length === 0 ? html`<p class="empty">No drafts are waiting.</p>` : html`<ul>${drafts.map((d) => html`<li><a href="/drafts/${d.incident.slug}">${d.incident.title}</a> <span class="muted">(${String(d.report?.warnings.length ?? 0)} warnings, ${String(d.report?.unusedLines.length ?? 0)} unused lines)</span></li>`)}</ul>`}
</section>`,
  });
}
