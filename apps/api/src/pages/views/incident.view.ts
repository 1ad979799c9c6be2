import type { ActionableVerdict } from '../incident-model-panel.token';
import type { TimePrecision } from '@hindsight/domain';
import { CHECK_EXCLUDES, customerImpactOf, incidentDurations, type DurationMetric, type IncidentDuration } from '@hindsight/incidents';
import type {
  RelatedIncident,
  ActionableRecord,
  CausalFactorRecord,
  CausalLinkRecord,
  ExternalReferenceRecord,
  IncidentRecord,
  PatternRecord,
  TimelineEventRecord,
} from '@hindsight/incidents';
import {
  anchorId,
  formatDate,
  formatInstant,
  html,
  PRECISION_LABELS,
  renderMarkdown,
  safeUrl,
  truncateWords,
  type SafeHtml,
} from '@hindsight/web';
import { anchorToolsView } from './anchor-tools.view';
import { causalGraphLayout, causalGraphView, keyedLinks } from './causal-graph.view';
import {
  EVENT_KIND_LABELS,
  factorLabel,
  isOverdue,
  LINK_KIND_VERBS,
  REFERENCE_KIND_LABELS,
  ROLE_LABELS,
  STATUS_LABELS,
  NOT_STATED,
  customerImpactText,
  durationText,
  nearMissText,
} from './labels';
import { layoutView } from './layout.view';
import { citedByView, citeFormPath } from './runbook-citations.view';
import type { FollowUpOwner, RunbookCitationRecord } from '@hindsight/tracking';

export interface ActionableDetail extends ActionableRecord {
  references: ExternalReferenceRecord[];
  addresses: CausalFactorRecord[];
}

export interface IncidentPageModel {
  incident: IncidentRecord;
  patterns: PatternRecord[];
  timeline: TimelineEventRecord[];
  factors: CausalFactorRecord[];
  links: CausalLinkRecord[];
  actionables: ActionableDetail[];
  /** Inside of the "Model" aside, from the bound IncidentModelPanel. */
  modelPanel: SafeHtml;
  /** The model's verdict on each actionable it can express; empty without a model. */
  verdicts?: ActionableVerdict[];
  /** Scheme, host and port the reader used; runbook snippets carry absolute links. */
  origin: string;
  /** YYYY-MM-DD (UTC), for overdue marks. */
  today: string;
  /** Incidents related to this one, closest first, with the reasons. */
  related?: RelatedIncident[];
  /** Runbooks citing the incident, its factors and its follow-ups (by row id). */
  citations?: { incident: RunbookCitationRecord[]; factors: Map<string, RunbookCitationRecord[]>; actionables: Map<string, RunbookCitationRecord[]> };
  /** Follow-ups' owners (account, team or free text), by row id. */
  owners?: Map<string, FollowUpOwner>;
}

const RELATION_LABELS: Record<RelatedIncident['reasons'][number]['kind'], string> = {
  SHARED_PATTERN: 'Same pattern',
  SHARED_COMPONENT: 'Same component',
  CAUSAL_STRUCTURE: 'Same causal shape',
  SIMILAR_TEXT: 'Similar wording',
};

function relatedView(related: readonly RelatedIncident[]): SafeHtml {
  if (related.length === 0) return html`<p class="muted">No other incident shares a pattern, component, causal shape or wording with this one.</p>`;
  return html`<ol class="related-list">${related.map(
    (r) => html`<li><a href="/incidents/${encodeURIComponent(r.incident.slug)}">${r.incident.title}</a> <span class="muted">(${r.incident.organization}; score ${r.score.toFixed(1)})</span>
<ul class="reasons">${r.reasons.map((x) => html`<li><span class="reason-kind">${RELATION_LABELS[x.kind]}:</span> ${x.detail}</li>`)}</ul></li>`,
  )}</ol>
<p class="section-note">Scores add the reasons' weights: a shared pattern (rarer patterns weigh more), a shared causal shape, a shared component, and how well this incident's title and components match the other's record.</p>`;
}

function keyTime(label: string, at: Date | null, precision: TimePrecision): SafeHtml {
  if (!at) return html``;
  return html`<div><dt>${label}</dt><dd><time datetime="${at.toISOString()}">${formatInstant(at, precision)}</time> <span class="precision">(${PRECISION_LABELS[precision]})</span></dd></div>`;
}

const CHECK_TITLES = { OUT_OF_ORDER: 'Key times out of order', RESOLVED_LONG_AFTER_MITIGATION: 'Resolved long after mitigation' } as const;
const METRIC_NAMES: Record<DurationMetric, string> = { TIME_TO_DETECT: 'time to detect', TIME_TO_MITIGATE: 'time to mitigate', TIME_TO_RESOLVE: 'time to resolve' };

function durationItem(label: string, d: IncidentDuration | null, started: boolean, end: string): SafeHtml {
  const missing = started ? `no ${end} time` : 'no start time';
  return html`<div><dt>${label}</dt><dd>${d ? durationText(d) : html`<span class="not-stated">not known: the record gives ${missing}</span>`}</dd></div>`;
}

/**
 * The incident's own durations from its key times, each as precise as the coarser of its two
 * times, and what the consistency checks found (and what that leaves out of /durations).
 */
function durationsView(i: IncidentRecord): SafeHtml {
  const d = incidentDurations(i);
  const started = i.startedAt !== null && i.startedPrecision !== 'none';
  return html`<section id="durations" class="incident-durations" aria-labelledby="durations-heading">
<h2 id="durations-heading">How long it took</h2>
<dl class="facts">
${durationItem('Time to detect', d.toDetect, started, 'detection')}
${durationItem('Time to mitigate', d.toMitigate, started, 'mitigation')}
${durationItem('Time to resolve', d.toResolve, started, 'resolution')}
</dl>
${d.checks.length > 0
    ? html`<ul class="duration-checks" aria-label="Checks of the key times">${d.checks.map(
        (c) => html`<li class="check-${c.code.toLowerCase().replace(/_/g, '-')}"><strong>${CHECK_TITLES[c.code]}:</strong> ${c.message} Left out of the distributions across incidents: ${CHECK_EXCLUDES[c.code].map((x) => METRIC_NAMES[x]).join(', ')}. <a href="/durations">See the durations page</a>.</li>`,
      )}</ul>`
    : !d.toDetect && !d.toMitigate && !d.toResolve
      ? html`<p class="section-note">Each is measured from the start; this record gives no pair of key times to measure or check.</p>`
      : html`<p class="section-note">Measured from the start. The key times pass the checks (in order, and no “resolved” long after mitigation).</p>`}
</section>`;
}

function headerView(m: IncidentPageModel): SafeHtml {
  const i = m.incident;
  const source = safeUrl(i.sourceUrl);
  return html`<header class="incident-header">
<p class="eyebrow">${i.organization ?? NOT_STATED}</p>
<h1 id="incident-title">${i.title}</h1>
<p class="summary">${i.summary}</p>
<p class="edit-link"><a href="/incidents/${i.slug}/edit">Correct this record</a> · <a href="/incidents/${i.slug}/parts">Edit timeline and causes</a></p>
<dl class="facts">
<div><dt>Organization</dt><dd>${i.organization ?? html`<span class="not-stated">${NOT_STATED}</span>`}</dd></div>
${keyTime('Started', i.startedAt, i.startedPrecision)}
${keyTime('Detected', i.detectedAt, i.detectedPrecision)}
${keyTime('Mitigated', i.mitigatedAt, i.mitigatedPrecision)}
${keyTime('Resolved', i.resolvedAt, i.resolvedPrecision)}
<div><dt>Severity</dt><dd>${i.severity ?? html`<span class="not-stated">${NOT_STATED}</span>`}</dd></div>
<div><dt>Near miss</dt><dd>${nearMissText(i.nearMiss)}</dd></div>
<div><dt>Customer impact</dt><dd>${customerImpactText(customerImpactOf(i))}</dd></div>
${i.tags.length > 0 ? html`<div><dt>Tags</dt><dd><ul class="tags">${i.tags.map((t) => html`<li>${t}</li>`)}</ul></dd></div>` : ''}
${i.components.length > 0 ? html`<div><dt>Components</dt><dd>${i.components.join(', ')}</dd></div>` : ''}
${m.patterns.length > 0 ? html`<div><dt>Patterns</dt><dd><ul class="tags">${m.patterns.map((p) => html`<li><a href="/patterns/${encodeURIComponent(p.key)}">${p.name}</a></li>`)}</ul></dd></div>` : ''}
<div><dt>Source</dt><dd>${source ? html`<a href="${source}" rel="noopener noreferrer">${i.sourceTitle}</a>` : i.sourceTitle}${i.sourceLanguage !== 'en' ? html` <span class="muted">(originally in <span lang="${i.sourceLanguage}">${i.sourceLanguage}</span>)</span>` : ''}</dd></div>
</dl>
<section class="impact" aria-labelledby="impact-heading">
<h2 id="impact-heading">Impact</h2>
<p>${i.impact}</p>
</section>
${durationsView(i)}
<nav class="toc" aria-label="On this page">
<ul>
<li><a href="#narrative">Narrative</a></li>
<li><a href="#model">Model</a></li>
<li><a href="#timeline">Timeline <span class="count">(${m.timeline.length})</span></a></li>
<li><a href="#causal-factors">Causal factors <span class="count">(${m.factors.length})</span></a></li>
<li><a href="#actionables">Actionables <span class="count">(${m.actionables.length})</span></a></li>
</ul>
</nav>
</header>`;
}

/**
 * The time as the source wrote it, then what it was read as, then how precise it is. An event the
 * source gave no time for says so; one whose time comes only from context (a date but no
 * written time) shows the parsed time alone.
 */
function eventTime(e: TimelineEventRecord): SafeHtml {
  if (!e.asWritten && !e.at) return html`<p class="event-time"><span class="as-written no-time">No time given</span></p>`;
  const written = e.asWritten ? html`<span class="as-written">${e.asWritten}</span> ` : '';
  const parsed = e.at ? html`<time datetime="${e.at.toISOString()}">${formatInstant(e.at, e.precision)}</time> ` : '';
  const precision = e.precision !== 'none' ? html`<span class="precision">${PRECISION_LABELS[e.precision]}</span>` : '';
  return html`<p class="event-time">${written}${parsed}${precision}</p>`;
}

function timelineView(m: IncidentPageModel, pageUrl: string): SafeHtml {
  if (m.timeline.length === 0) return html`<p class="empty">No timeline is recorded for this incident.</p>`;
  const items = m.timeline.map((e) => {
    const id = anchorId('timeline', e.key);
    return html`<li id="${id}" class="timeline-event kind-${e.kind} anchored">
${eventTime(e)}
<p class="event-text"><span class="badge kind-badge kind-${e.kind}">${EVENT_KIND_LABELS[e.kind]}</span> ${e.text}</p>
${anchorToolsView({ kind: 'timeline', id, pageUrl, label: `${m.incident.title} — ${e.asWritten ? `${e.asWritten}: ` : ''}${truncateWords(e.text, 80)}` })}
</li>`;
  });
  return html`<ol class="timeline">${items}</ol>`;
}

/** Names of the incident's factors by key, titles where they were written. */
function factorNames(factors: readonly CausalFactorRecord[]): (key: string) => string {
  const titles = new Map(factors.map((f) => [f.key, f.title]));
  return (key) => factorLabel(key, titles.get(key));
}

function factorsListView(m: IncidentPageModel, pageUrl: string, inLoop: ReadonlySet<string>): SafeHtml {
  const links = keyedLinks(m.factors, m.links);
  const name = factorNames(m.factors);
  const addressedBy = new Map<string, ActionableDetail[]>();
  for (const a of m.actionables) for (const f of a.addresses) addressedBy.set(f.key, [...(addressedBy.get(f.key) ?? []), a]);
  const items = m.factors.map((f) => {
    const id = anchorId('factor', f.key);
    const out = links.filter((l) => l.from === f.key);
    const into = links.filter((l) => l.to === f.key);
    const fixes = addressedBy.get(f.key) ?? [];
    const relation = (label: string, entries: SafeHtml[]) =>
      entries.length > 0 ? html`<div><dt>${label}</dt><dd><ul class="inline-list">${entries.map((e) => html`<li>${e}</li>`)}</ul></dd></div>` : '';
    return html`<li id="${id}" class="factor role-${f.role} anchored">
<h3 class="factor-title"><span class="badge role-badge role-${f.role}">${ROLE_LABELS[f.role]}</span> ${name(f.key)} <span class="component">${f.component ?? NOT_STATED}</span></h3>
${inLoop.has(f.key) ? html`<p class="loop-note">Part of a feedback loop</p>` : ''}
<p>${f.text}</p>
<dl class="relations">
${relation('Leads to', out.map((l) => html`${LINK_KIND_VERBS[l.kind]} <a href="#${anchorId('factor', l.to)}">${name(l.to)}</a>`))}
${relation('Follows from', into.map((l) => html`<a href="#${anchorId('factor', l.from)}">${name(l.from)}</a> (${LINK_KIND_VERBS[l.kind]})`))}
${relation('Addressed by', fixes.map((a) => html`<a href="#${anchorId('actionable', a.key)}">${a.title}</a>`))}
</dl>
${anchorToolsView({ kind: 'factor', id, pageUrl, label: `${m.incident.title} — ${name(f.key)}` })}
${citedByView(m.citations?.factors.get(f.id), citeFormPath('causal_factor', m.incident.slug, f.key), name(f.key))}
</li>`;
  });
  return html`<ol class="factor-list">${items}</ol>`;
}

function referenceView(r: ExternalReferenceRecord): SafeHtml {
  const url = safeUrl(r.url);
  const kind = html`<span class="ref-kind">(${REFERENCE_KIND_LABELS[r.kind]})</span>`;
  return url ? html`<a class="ref" href="${url}" rel="noopener noreferrer">${r.ref}</a> ${kind}` : html`<span class="ref">${r.ref}</span> ${kind}`;
}

/** An owner as people read it: a team is marked as one; free text is shown as written. */
export function ownerView(owner: FollowUpOwner | undefined, text: string | null): SafeHtml {
  if (owner?.kind === 'team') return html`${owner.name} <span class="muted">(team)</span>`;
  if (owner) return html`${owner.name}`;
  return text ? html`${text}` : html`<span class="muted">Unassigned</span>`;
}

export function actionableMetaView(a: ActionableRecord, today: string, owner?: FollowUpOwner): SafeHtml {
  const overdue = isOverdue(a, today);
  return html`<dl class="meta">
<div><dt>Status</dt><dd><span class="badge status-badge status-${a.status}">${STATUS_LABELS[a.status]}</span></dd></div>
<div><dt>Owner</dt><dd>${ownerView(owner, a.owner)}</dd></div>
<div><dt>Due</dt><dd>${a.dueDate ? html`<time datetime="${formatDate(a.dueDate)}">${formatDate(a.dueDate)}</time>` : html`<span class="muted">No due date</span>`}${overdue ? html` <strong class="overdue">Overdue</strong>` : ''}</dd></div>
</dl>`;
}

export function referencesView(refs: readonly ExternalReferenceRecord[]): SafeHtml {
  if (refs.length === 0) return html``;
  return html`<div class="refs"><span class="refs-label">Tracked in</span> <ul class="inline-list">${refs.map((r) => html`<li>${referenceView(r)}</li>`)}</ul></div>`;
}

const OUTCOME_WORDS: Record<string, string> = {
  PREVENTED: 'would have prevented the failure',
  DELAYED: 'only delays the failure',
  REDUCED: 'only reduces the failure',
  NOT_PREVENTED: 'would not have prevented the failure',
  NO_FAILURE: 'had no failure to prevent',
};

/** The model's verdict on an actionable, in words first; the reason carries the figures. */
export function verdictView(v: ActionableVerdict | undefined): SafeHtml {
  if (!v) return html``;
  return html`<div class="actionable-verdict verdict-${v.outcome.toLowerCase().replace(/_/g, '-')}" data-verdict="${v.outcome}"><p><span class="refs-label">Model</span> <strong>${OUTCOME_WORDS[v.outcome] ?? v.outcome}</strong> (scenario “${v.scenarioTitle}”; <a href="#model">see the model</a>).</p><p class="verdict-reason">${v.reason}</p></div>`;
}

function actionablesView(m: IncidentPageModel, pageUrl: string): SafeHtml {
  if (m.actionables.length === 0) return html`<p class="empty">No follow-up work is recorded for this incident.</p>`;
  const open = m.actionables.filter((a) => a.status === 'open' || a.status === 'in_progress').length;
  const items = m.actionables.map((a) => {
    const id = anchorId('actionable', a.key);
    return html`<li id="${id}" class="actionable status-${a.status} anchored">
<h3>${a.title}</h3>
${actionableMetaView(a, m.today, m.owners?.get(a.id))}
${a.description ? html`<p>${a.description}</p>` : ''}
${referencesView(a.references)}
${verdictView(m.verdicts?.find((v) => v.actionableKey === a.key))}
${a.addresses.length > 0 ? html`<div class="addresses"><span class="refs-label">Addresses</span> <ul class="inline-list">${a.addresses.map((f) => html`<li><a href="#${anchorId('factor', f.key)}">${factorLabel(f.key, f.title)}</a></li>`)}</ul></div>` : ''}
${anchorToolsView({ kind: 'actionable', id, pageUrl, label: `${m.incident.title} — ${a.title}` })}
<p class="edit-link"><a href="/incidents/${m.incident.slug}/actionables/${a.key}/edit">Edit follow-up<span class="visually-hidden">: ${a.title}</span></a></p>
${citedByView(m.citations?.actionables.get(a.id), citeFormPath('actionable', m.incident.slug, a.key), a.title)}
</li>`;
  });
  return html`<p class="section-note">${open} of ${m.actionables.length} still open or in progress.</p><ol class="actionable-list">${items}</ol>`;
}

export function incidentView(m: IncidentPageModel): SafeHtml {
  const pageUrl = `${m.origin}/incidents/${encodeURIComponent(m.incident.slug)}`;
  const links = keyedLinks(m.factors, m.links);
  const layout = causalGraphLayout(m.factors, links);
  const main = html`<article class="incident" aria-labelledby="incident-title">
${headerView(m)}
<div class="incident-body">
<section id="narrative" class="narrative" aria-labelledby="narrative-heading">
<h2 id="narrative-heading">Narrative</h2>
<div class="prose">${renderMarkdown(m.incident.narrative, { headingOffset: 1 })}</div>
</section>
<aside id="model" class="model-panel" aria-labelledby="model-heading">
<h2 id="model-heading">Model</h2>
${m.modelPanel}
</aside>
<section id="timeline" class="timeline-section" aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
<p class="section-note">Times are shown as the source wrote them, with how precise they are; parsed times are UTC.</p>
${timelineView(m, pageUrl)}
</section>
</div>
<section id="causal-factors" class="factors-section" aria-labelledby="factors-heading">
<h2 id="factors-heading">Causal factors</h2>
${causalGraphView(m.factors, links, layout)}
${factorsListView(m, pageUrl, layout.loops.nodesInLoops)}
</section>
<section id="actionables" class="actionables-section" aria-labelledby="actionables-heading">
<h2 id="actionables-heading">Actionables</h2>
${actionablesView(m, pageUrl)}
</section>
<section id="runbooks" class="runbooks-section" aria-labelledby="runbooks-heading">
<h2 id="runbooks-heading">Runbooks citing this incident</h2>
${(m.citations?.incident.length ?? 0) === 0 ? html`<p class="empty">No runbook cites this incident yet.</p>` : ''}
${citedByView(m.citations?.incident, citeFormPath('incident', m.incident.slug, ''), m.incident.title)}
</section>
${m.related ? html`<section id="related" class="related-section" aria-labelledby="related-heading">
<h2 id="related-heading">Related incidents</h2>
${relatedView(m.related)}
</section>` : ''}
</article>`;
  return layoutView({ title: m.incident.title, main, active: 'incidents', description: truncateWords(m.incident.summary, 200) });
}

