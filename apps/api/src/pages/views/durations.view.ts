import {
  DURATION_BUCKETS,
  DURATION_GROUPS,
  RESOLVED_LATE_FACTOR,
  RESOLVED_LATE_MINUTES,
  type DurationDistribution,
  type DurationExclusions,
  type DurationGroup,
  type DurationMetric,
} from '@hindsight/incidents';
import { html, type SafeHtml } from '@hindsight/web';
import { layoutView } from './layout.view';

const METRIC_LABELS: Record<DurationMetric, string> = { TIME_TO_DETECT: 'Time to detect', TIME_TO_MITIGATE: 'Time to mitigate', TIME_TO_RESOLVE: 'Time to resolve' };
const GROUP_LABELS: Record<DurationGroup, string> = { ALL: 'All incidents', PATTERN: 'By pattern', ORGANIZATION: 'By organization', YEAR: 'By year' };
const BUCKET_LABELS = ['< 5 min', '5–15 min', '15–60 min', '1–4 h', '4–24 h', '≥ 24 h'];
const CHECK_REASONS: Record<DurationExclusions['byCheck'][number]['code'], (n: number) => string> = {
  OUT_OF_ORDER: (n) => `${n} with key times out of order`,
  RESOLVED_LONG_AFTER_MITIGATION: (n) => `${n} whose “resolved” comes long after mitigation (likely a later follow-up, not the end of the impact)`,
};

export interface DurationTable {
  metric: DurationMetric;
  rows: DurationDistribution[];
  exclusions: DurationExclusions;
}

function minutes(m: number | null): string {
  if (m === null) return '—';
  return m < 90 ? `${m.toFixed(m < 10 ? 1 : 0)} min` : `${(m / 60).toFixed(1)} h`;
}

/** What a table leaves out and why, in one sentence. */
function exclusionsView(e: DurationExclusions): SafeHtml {
  if (e.total === 0) return html`<p class="section-note">No incident left out: no check flags these times.</p>`;
  const reasons = e.byCheck.filter((c) => c.count > 0).map((c) => CHECK_REASONS[c.code](c.count));
  return html`<p class="section-note excluded-note">${e.total === 1 ? '1 incident is' : `${e.total} incidents are`} left out of these figures: ${reasons.join('; ')}. Their own pages show the times and the check.</p>`;
}

function table(t: DurationTable): SafeHtml {
  const { metric, rows } = t;
  return html`<section aria-labelledby="h-${metric}"><h2 id="h-${metric}">${METRIC_LABELS[metric]}</h2>
${exclusionsView(t.exclusions)}
${rows.length === 0 ? html`<p class="muted">No published incident gives both key times.</p>` : html`<table class="durations"><thead><tr><th scope="col">Group</th><th scope="col">Incidents</th><th scope="col">of them approximate</th><th scope="col">left out (flagged)</th><th scope="col">median</th><th scope="col">90th percentile</th><th scope="col">longest</th>${BUCKET_LABELS.map((b) => html`<th scope="col">${b}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr><th scope="row">${r.group}</th><td>${r.count}</td><td>${r.approximateCount}</td><td>${r.excludedCount}</td><td>${minutes(r.p50)}</td><td>${minutes(r.p90)}</td><td>${minutes(r.max)}</td>${r.histogram.map((n) => html`<td>${n}</td>`)}</tr>`)}</tbody></table>`}
</section>`;
}

export function durationsView(m: { groupBy: DurationGroup; tables: DurationTable[] }): SafeHtml {
  const main = html`<h1>How long incidents took</h1>
<p class="lede">Measured from each incident's start to its detection, mitigation and resolution, over the published incidents that give both times. Percentiles interpolate between incidents; a duration counts as approximate when either time is coarser than a minute. Buckets are under ${DURATION_BUCKETS[0]} minutes, then up to ${DURATION_BUCKETS.map((b) => minutes(b)).slice(1).join(', ')}, then longer.</p>
<p>Durations a consistency check flags are left out: every duration of an incident whose key times are out of order, and the time to resolve of one whose “resolved” comes more than ${RESOLVED_LATE_MINUTES / 60} h and more than ${RESOLVED_LATE_FACTOR} times its time to mitigate after mitigation.</p>
<nav class="facets" aria-label="Group by"><ul>${DURATION_GROUPS.map((g) => html`<li>${g === m.groupBy ? html`<strong>${GROUP_LABELS[g]}</strong>` : html`<a href="/durations${g === 'ALL' ? '' : `?by=${g.toLowerCase()}`}">${GROUP_LABELS[g]}</a>`}</li>`)}</ul></nav>
${m.tables.map((t) => table(t))}`;
  return layoutView({ title: 'Durations', main, active: 'durations' });
}
