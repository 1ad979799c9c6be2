import type { TimePrecision } from '@hindsight/domain';
import { customerImpactOf, type IncidentRecord, type PatternWithCount } from '@hindsight/incidents';
import { anchorId, formatInstant, PRECISION_LABELS } from '@hindsight/web';
import type { ActionableVerdict } from '../incident-model-panel.token';
import type { ListPage, IncidentListItem } from './incident-list.view';
import type { IncidentPageModel } from './incident.view';
import { customerImpactText, EVENT_KIND_LABELS, factorLabel, NOT_STATED, nearMissText, ROLE_LABELS, STATUS_LABELS } from './labels';

/**
 * Incidents and patterns as documents a runbook tool can embed: JSON for programs and Markdown
 * for people. Both carry the page's stable anchors as absolute links, so an item quoted in a
 * runbook leads back to its place on the page. Enumerations use the GraphQL API's names.
 */
export type IncidentExportModel = Pick<IncidentPageModel, 'incident' | 'patterns' | 'timeline' | 'factors' | 'links' | 'actionables' | 'origin' | 'owners'> & {
  /** The model's verdicts on the fixes; null when the model could not be asked just now. */
  verdicts: ActionableVerdict[] | null;
};

/** Names and version of the exported shape; bumped when a field changes meaning or goes away. */
export const INCIDENT_EXPORT_FORMAT = 'hindsight.incident/1';
export const PATTERN_EXPORT_FORMAT = 'hindsight.pattern/1';

const api = (value: string) => value.toUpperCase();

function keyTime(at: Date | null, precision: TimePrecision): { at: string | null; precision: string } | null {
  return at === null && precision === 'none' ? null : { at: at ? at.toISOString() : null, precision: api(precision) };
}

function pageUrl(origin: string, slug: string): string {
  return `${origin}/incidents/${encodeURIComponent(slug)}`;
}

function exportedImpact(i: IncidentRecord) {
  const ci = customerImpactOf(i);
  return ci && { minutes: ci.minutes, precision: api(ci.precision), approximate: ci.approximate, derived: ci.derived };
}

export function incidentExportJson(m: IncidentExportModel): Record<string, unknown> {
  const i = m.incident;
  const url = pageUrl(m.origin, i.slug);
  const factorKey = new Map(m.factors.map((f) => [f.id, f.key]));
  return {
    format: INCIDENT_EXPORT_FORMAT,
    slug: i.slug,
    url,
    title: i.title,
    organization: i.organization,
    components: i.components,
    summary: i.summary,
    impact: i.impact,
    severity: i.severity,
    nearMiss: i.nearMiss,
    tags: i.tags,
    customerImpact: exportedImpact(i),
    narrative: i.narrative,
    source: { title: i.sourceTitle, url: i.sourceUrl, language: i.sourceLanguage },
    keyTimes: {
      started: keyTime(i.startedAt, i.startedPrecision),
      detected: keyTime(i.detectedAt, i.detectedPrecision),
      mitigated: keyTime(i.mitigatedAt, i.mitigatedPrecision),
      resolved: keyTime(i.resolvedAt, i.resolvedPrecision),
    },
    patterns: m.patterns.map((p) => ({ key: p.key, name: p.name, url: `${m.origin}/patterns/${encodeURIComponent(p.key)}` })),
    timeline: m.timeline.map((e) => ({
      key: e.key,
      url: `${url}#${anchorId('timeline', e.key)}`,
      at: e.at ? e.at.toISOString() : null,
      precision: api(e.precision),
      asWritten: e.asWritten,
      kind: api(e.kind),
      text: e.text,
    })),
    causalFactors: m.factors.map((f) => ({ key: f.key, url: `${url}#${anchorId('factor', f.key)}`, title: f.title ?? null, role: api(f.role), component: f.component, text: f.text })),
    causalLinks: m.links.map((l) => ({ from: factorKey.get(l.fromId) ?? null, to: factorKey.get(l.toId) ?? null, kind: api(l.kind) })),
    actionables: m.actionables.map((a) => {
      const verdict = m.verdicts?.find((v) => v.actionableKey === a.key);
      return {
        key: a.key,
        url: `${url}#${anchorId('actionable', a.key)}`,
        title: a.title,
        description: a.description,
        owner: a.owner,
        ownedBy: m.owners?.get(a.id) ? { kind: api(m.owners.get(a.id)!.kind), name: m.owners.get(a.id)!.name } : null,
        status: api(a.status),
        dueDate: a.dueDate ? a.dueDate.toISOString().slice(0, 10) : null,
        references: a.references.map((r) => ({ kind: api(r.kind), ref: r.ref, url: r.url })),
        addresses: a.addresses.map((f) => f.key),
        modelVerdict: verdict ? { outcome: verdict.outcome, reason: verdict.reason, scenario: verdict.scenarioTitle } : null,
      };
    }),
    // Null means "not known just now" (the model could not be asked), not "no verdicts".
    modelVerdictsAvailable: m.verdicts !== null,
  };
}

/** Escapes what Markdown would read as markup inside running text. */
function md(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/([\\`*_[\]<>#|])/g, '\\$1');
}

function mdLink(label: string, url: string): string {
  return `[${md(label)}](${url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)})`;
}

function when(at: Date | null, precision: TimePrecision, asWritten: string | null): string {
  if (at) return `${formatInstant(at, precision)} (${PRECISION_LABELS[precision]})`;
  return asWritten ? `as written: ${md(asWritten)}` : 'time not stated';
}

const OUTCOME_WORDS: Record<string, string> = {
  PREVENTED: 'would have prevented the failure',
  DELAYED: 'would only have delayed the failure',
  REDUCED: 'would have reduced the failure, not prevented it',
  NOT_PREVENTED: 'would not have prevented the failure',
  NO_FAILURE: 'the model shows no failure to prevent',
};

export function incidentExportMarkdown(m: IncidentExportModel): string {
  const i = m.incident;
  const url = pageUrl(m.origin, i.slug);
  const lines: string[] = [`# ${md(i.title)}`, ''];
  const facts = [`Organization: ${i.organization ? md(i.organization) : NOT_STATED}`];
  if (i.startedAt) facts.push(`Started: ${when(i.startedAt, i.startedPrecision, null)}`);
  facts.push(`Severity: ${i.severity ? md(i.severity) : NOT_STATED}`);
  facts.push(`Near miss: ${nearMissText(i.nearMiss)}`);
  if (i.tags.length > 0) facts.push(`Tags: ${i.tags.map(md).join(', ')}`);
  facts.push(`Customer impact: ${md(customerImpactText(customerImpactOf(i)))}`);
  if (m.patterns.length > 0) facts.push(`Patterns: ${m.patterns.map((p) => mdLink(p.name, `${m.origin}/patterns/${encodeURIComponent(p.key)}`)).join(', ')}`);
  facts.push(`Source: ${i.sourceUrl ? mdLink(i.sourceTitle, i.sourceUrl) : md(i.sourceTitle)}`);
  facts.push(`On Hindsight: ${url}`);
  lines.push(...facts.map((f) => `- ${f}`), '', '## Summary', '', md(i.summary), '');
  if (i.impact.trim() !== '') lines.push('## Impact', '', md(i.impact), '');
  if (m.timeline.length > 0) {
    lines.push('## Timeline', '', '| When (UTC) | Kind | What happened |', '|---|---|---|');
    for (const e of m.timeline) lines.push(`| ${mdLink(when(e.at, e.precision, e.asWritten), `${url}#${anchorId('timeline', e.key)}`)} | ${EVENT_KIND_LABELS[e.kind]} | ${md(e.text)} |`);
    lines.push('');
  }
  if (m.factors.length > 0) {
    lines.push('## Causal factors', '');
    for (const f of m.factors) lines.push(`- ${mdLink(factorLabel(f.key, f.title), `${url}#${anchorId('factor', f.key)}`)} (${ROLE_LABELS[f.role]}, ${f.component ? md(f.component) : `component ${NOT_STATED}`}): ${md(f.text)}`);
    lines.push('');
  }
  if (m.actionables.length > 0) {
    lines.push('## Follow-ups', '');
    for (const a of m.actionables) {
      const closed = a.status === 'done' || a.status === 'wont_do';
      const parts = [STATUS_LABELS[a.status], m.owners?.get(a.id) ? `owner ${md(m.owners.get(a.id)!.name)}${m.owners.get(a.id)!.kind === 'team' ? ' (team)' : ''}` : 'no owner', a.dueDate ? `due ${a.dueDate.toISOString().slice(0, 10)}` : null].filter(Boolean);
      lines.push(`- [${closed ? 'x' : ' '}] ${mdLink(a.title, `${url}#${anchorId('actionable', a.key)}`)}: ${parts.join(', ')}`);
      const refs = a.references.map((r) => (r.url ? mdLink(r.ref, r.url) : md(r.ref)));
      if (refs.length > 0) lines.push(`  - References: ${refs.join(', ')}`);
      const verdict = m.verdicts?.find((v) => v.actionableKey === a.key);
      if (verdict) lines.push(`  - Model (scenario “${md(verdict.scenarioTitle)}”): ${OUTCOME_WORDS[verdict.outcome] ?? verdict.outcome}. ${md(verdict.reason)}`);
    }
    lines.push('');
  }
  if (m.verdicts === null) lines.push('_The model could not be asked when this was exported; its verdicts are missing._', '');
  lines.push('## Narrative', '', i.narrative.trim(), '');
  return lines.join('\n');
}

export interface PatternExportModel {
  pattern: PatternWithCount;
  page: ListPage<IncidentListItem>;
  origin: string;
}

export function patternExportJson(m: PatternExportModel): Record<string, unknown> {
  const p = m.pattern;
  return {
    format: PATTERN_EXPORT_FORMAT,
    key: p.key,
    url: `${m.origin}/patterns/${encodeURIComponent(p.key)}`,
    name: p.name,
    description: p.description,
    incidentCount: p.incidentCount,
    incidents: m.page.items.map(({ incident }) => exportedIncidentRef(incident, m.origin)),
    // The first page only (as on the page itself); `next` carries the cursor for the rest.
    next: m.page.hasNextPage && m.page.endCursor ? `${m.origin}/patterns/${encodeURIComponent(p.key)}.json?after=${encodeURIComponent(m.page.endCursor)}` : null,
  };
}

export function patternExportMarkdown(m: PatternExportModel): string {
  const p = m.pattern;
  const lines = [`# ${md(p.name)}`, '', md(p.description), '', `${p.incidentCount} incident${p.incidentCount === 1 ? '' : 's'} show this pattern:`, ''];
  for (const { incident } of m.page.items) {
    const ref = exportedIncidentRef(incident, m.origin);
    lines.push(`- ${mdLink(ref.title, ref.url)} (${ref.organization ? md(ref.organization) : NOT_STATED}${ref.started ? `, ${ref.started.slice(0, 10)}` : ''})`);
  }
  if (m.page.hasNextPage) lines.push('', `More on ${m.origin}/patterns/${encodeURIComponent(p.key)}`);
  return `${lines.join('\n')}\n`;
}

function exportedIncidentRef(incident: IncidentRecord, origin: string): { slug: string; url: string; title: string; organization: string | null; started: string | null } {
  return { slug: incident.slug, url: pageUrl(origin, incident.slug), title: incident.title, organization: incident.organization, started: incident.startedAt ? incident.startedAt.toISOString() : null };
}
