import { html, type SafeHtml } from '@hindsight/web';
import { CAUSAL_LINK_KINDS, FACTOR_ROLES, TIME_PRECISIONS, TIMELINE_EVENT_KINDS, type IncidentDocument } from '@hindsight/domain';
import { layoutView } from './layout.view';

export interface IncidentPartsViewOptions {
  doc: IncidentDocument;
  title: string;
  version: number;
  csrfToken: string;
  /** A refusal or conflict, shown above the forms. */
  message?: { kind: 'conflict' | 'error'; text: string };
}

function options(values: readonly string[], selected: string): SafeHtml[] {
  return values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v.replace(/_/g, ' ')}</option>`);
}

function hiddenFields(o: IncidentPartsViewOptions, part: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${o.csrfToken}"><input type="hidden" name="version" value="${String(o.version)}"><input type="hidden" name="part" value="${part}">`;
}

/** One label + control; `id` keeps every control of the page distinct. */
function labelled(id: string, label: string, control: SafeHtml): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label>${control}</div>`;
}

function eventForm(o: IncidentPartsViewOptions, e: IncidentDocument['timeline'][number] | null): SafeHtml {
  const k = e?.key ?? 'new-event';
  const id = (f: string) => `event-${k}-${f}`;
  return html`<form method="post" action="/incidents/${o.doc.slug}/parts" class="part-form" data-part="event" data-key="${k}">
${hiddenFields(o, 'event')}
${e ? html`<input type="hidden" name="key" value="${e.key}"><p class="part-key"><code>${e.key}</code></p>` : labelled(id('key'), 'Key', html`<input id="${id('key')}" name="key" type="text" required>`)}
${labelled(id('asWritten'), 'Time as written', html`<input id="${id('asWritten')}" name="asWritten" type="text" value="${e?.asWritten ?? ''}">`)}
${labelled(id('at'), 'Instant (ISO 8601, UTC)', html`<input id="${id('at')}" name="at" type="text" value="${e?.at ?? ''}">`)}
${labelled(id('precision'), 'Precision', html`<select id="${id('precision')}" name="precision">${options(TIME_PRECISIONS, e?.precision ?? 'none')}</select>`)}
${labelled(id('kind'), 'Kind', html`<select id="${id('kind')}" name="kind">${options(TIMELINE_EVENT_KINDS, e?.kind ?? 'observation')}</select>`)}
${labelled(id('text'), 'Text', html`<textarea id="${id('text')}" name="text" rows="2">${e?.text ?? ''}</textarea>`)}
<button type="submit" name="op" value="save">${e ? 'Save event' : 'Add event'}</button>${e ? html` <button type="submit" name="op" value="delete">Delete event</button>` : ''}
</form>`;
}

function factorForm(o: IncidentPartsViewOptions, f: IncidentDocument['causalFactors'][number] | null): SafeHtml {
  const k = f?.key ?? 'new-factor';
  const id = (x: string) => `factor-${k}-${x}`;
  return html`<form method="post" action="/incidents/${o.doc.slug}/parts" class="part-form" data-part="factor" data-key="${k}">
${hiddenFields(o, 'factor')}
${f ? html`<input type="hidden" name="key" value="${f.key}"><p class="part-key"><code>${f.key}</code></p>` : labelled(id('key'), 'Key', html`<input id="${id('key')}" name="key" type="text" required>`)}
${labelled(id('title'), 'Title (short, for the graph and lists; blank: named after its key)', html`<input id="${id('title')}" name="title" type="text" maxlength="300" value="${f?.title ?? ''}">`)}
${labelled(id('role'), 'Role', html`<select id="${id('role')}" name="role">${options(FACTOR_ROLES, f?.role ?? 'condition')}</select>`)}
${labelled(id('component'), 'Component', html`<input id="${id('component')}" name="component" type="text" value="${f?.component ?? ''}">`)}
${labelled(id('text'), 'Text', html`<textarea id="${id('text')}" name="text" rows="2">${f?.text ?? ''}</textarea>`)}
<button type="submit" name="op" value="save">${f ? 'Save factor' : 'Add factor'}</button>${f ? html` <button type="submit" name="op" value="delete">Delete factor</button>` : ''}
</form>`;
}

function linkForms(o: IncidentPartsViewOptions): SafeHtml {
  const keys = o.doc.causalFactors.map((f) => f.key);
  const existing = o.doc.causalLinks.map(
    (l) => html`<li><form method="post" action="/incidents/${o.doc.slug}/parts" class="part-form" data-part="link">
${hiddenFields(o, 'link')}<input type="hidden" name="from" value="${l.from}"><input type="hidden" name="to" value="${l.to}"><input type="hidden" name="kind" value="${l.kind}">
<code>${l.from}</code> ${l.kind} <code>${l.to}</code> <button type="submit" name="op" value="delete">Remove link</button></form></li>`,
  );
  return html`<ul class="part-links">${existing}</ul>
${keys.length < 2 ? html`<p class="empty">Links need two causal factors.</p>` : html`<form method="post" action="/incidents/${o.doc.slug}/parts" class="part-form" data-part="new-link">
${hiddenFields(o, 'link')}
${labelled('link-from', 'From', html`<select id="link-from" name="from">${options(keys, keys[0]!)}</select>`)}
${labelled('link-kind', 'Kind', html`<select id="link-kind" name="kind">${options(CAUSAL_LINK_KINDS, 'causes')}</select>`)}
${labelled('link-to', 'To', html`<select id="link-to" name="to">${options(keys, keys[1]!)}</select>`)}
<button type="submit" name="op" value="save">Add link</button></form>`}`;
}

/** Timeline events, causal factors and links of one incident, each a small form against the incident's version. */
export function incidentPartsView(o: IncidentPartsViewOptions): SafeHtml {
  return layoutView({
    title: `Edit timeline and causes: ${o.title}`,
    active: 'incidents',
    main: html`<article class="edit-page" aria-labelledby="parts-title">
<p class="breadcrumb"><a href="/incidents/${o.doc.slug}">${o.title}</a> · <a href="/incidents/${o.doc.slug}/edit">Correct the fields</a></p>
<h1 id="parts-title">Timeline, causal factors and links</h1>
<p>Every form saves against version ${String(o.version)} of the incident; if someone saved in between, nothing is written and this page shows the record as it is now.</p>
${o.message ? html`<div class="${o.message.kind === 'conflict' ? 'conflict' : 'form-errors'}" role="alert"><p>${o.message.text}</p></div>` : ''}
<section aria-labelledby="events-heading"><h2 id="events-heading">Timeline events</h2>
${o.doc.timeline.map((e) => eventForm(o, e))}
<h3>Add an event</h3>${eventForm(o, null)}</section>
<section aria-labelledby="factors-heading"><h2 id="factors-heading">Causal factors</h2>
${o.doc.causalFactors.map((f) => factorForm(o, f))}
<h3>Add a factor</h3>${factorForm(o, null)}</section>
<section aria-labelledby="links-heading"><h2 id="links-heading">Causal links</h2>${linkForms(o)}</section>
</article>`,
  });
}
