import type { CausalLinkKind, FactorRole } from '@hindsight/domain';
import type { CausalFactorRecord, CausalLinkRecord } from '@hindsight/incidents';
import {
  anchorId,
  CAUSAL_LINK_KIND_ORDER,
  edgeSample,
  html,
  joinHtml,
  layoutCausalGraph,
  layoutCausalGraphColumn,
  renderCausalGraphSvg,
  roleSample,
  type CausalGraphLayout,
  type SafeHtml,
} from '@hindsight/web';
import { factorLabel, LINK_KIND_VERBS, NOT_STATED, ROLE_LABELS } from './labels';

export interface KeyedLink {
  from: string;
  to: string;
  kind: CausalLinkKind;
}

/** Links by factor key rather than row id: keys are what anchors and the layout speak. */
export function keyedLinks(factors: readonly CausalFactorRecord[], links: readonly CausalLinkRecord[]): KeyedLink[] {
  const keyOf = new Map(factors.map((f) => [f.id, f.key]));
  return links.flatMap((l) => {
    const from = keyOf.get(l.fromId);
    const to = keyOf.get(l.toId);
    return from && to ? [{ from, to, kind: l.kind }] : [];
  });
}

export function causalGraphLayout(factors: readonly CausalFactorRecord[], links: readonly KeyedLink[]): CausalGraphLayout {
  return layoutCausalGraph(
    factors.map((f) => ({ key: f.key, role: f.role, component: f.component ?? NOT_STATED, label: factorLabel(f.key, f.title), description: f.text })),
    links,
  );
}

/** Links to the factors' entries, named by their titles. */
function factorLinks(factors: readonly CausalFactorRecord[]): (key: string) => SafeHtml {
  const titles = new Map(factors.map((f) => [f.key, f.title]));
  return (key) => html`<a href="#${anchorId('factor', key)}">${factorLabel(key, titles.get(key))}</a>`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One loop in words: A causes B, which amplifies C, … which causes A again. */
function loopSentence(cycle: readonly string[], links: readonly KeyedLink[], factorLink: (key: string) => SafeHtml): SafeHtml {
  const steps = cycle.map((from, i) => {
    const to = cycle[(i + 1) % cycle.length]!;
    const kind = links.find((l) => l.from === from && l.to === to)?.kind ?? 'causes';
    return html`${factorLink(from)} <span class="link-kind">${LINK_KIND_VERBS[kind]}</span> `;
  });
  return html`${steps}${factorLink(cycle[0]!)} again.`;
}

/**
 * The graph as a figure: the SVG in a sideways-scrolling box (boxes stay legible at 360 px
 * instead of shrinking), a legend, and a text summary that says everything the drawing says,
 * loops included, for readers who cannot see it.
 */
export function causalGraphView(factors: readonly CausalFactorRecord[], links: readonly KeyedLink[], layout: CausalGraphLayout): SafeHtml {
  if (factors.length === 0) return html`<p class="empty">No causal factors are recorded for this incident.</p>`;
  const count = (kind: CausalLinkKind) => links.filter((l) => l.kind === kind).length;
  const kinds = CAUSAL_LINK_KIND_ORDER.filter((k) => count(k) > 0).map((k) => `${count(k)} ${LINK_KIND_VERBS[k]}`);
  const triggers = factors.filter((f) => f.role === 'trigger');
  const { cycles, truncated } = layout.loops;
  const roles = [...new Set(factors.map((f) => f.role))] as FactorRole[];
  const factorLink = factorLinks(factors);

  const loopText =
    cycles.length === 0
      ? html`<p>There are no feedback loops: every chain of links ends.</p>`
      : html`<p class="loop-summary"><strong>${cycles.length === 1 ? 'One feedback loop' : `${truncated ? 'At least ' : ''}${cycles.length} feedback loops`}</strong> (cycles where an effect feeds back into its own cause), drawn with thick red links:</p>
<ol class="loop-list">${cycles.map((c) => html`<li>${loopSentence(c, links, factorLink)}</li>`)}</ol>`;

  const title = `Causal graph: ${plural(factors.length, 'factor')}, ${plural(links.length, 'link')}${cycles.length > 0 ? `, ${plural(cycles.length, 'feedback loop')}` : ''}`;
  const href = (key: string) => `#${anchorId('factor', key)}`;
  const svg = renderCausalGraphSvg(layout, { href, title, describedBy: 'graph-summary' });
  // Both drawings scale to the column; a narrow screen shows the column of boxes (the stylesheet
  // picks), which fits a phone at its natural size, so its text stays legible.
  const column = layoutCausalGraphColumn(layout);
  const narrow = column.width < layout.width * 0.8 ? renderCausalGraphSvg(column, { href, title, describedBy: 'graph-summary', idPrefix: 'cgn-' }) : null;

  return html`<figure class="causal-graph">
<div class="graph-scroll graph-wide${narrow ? ' has-narrow' : ''}">${svg}</div>
${narrow ? html`<div class="graph-scroll graph-narrow">${narrow}</div>` : ''}
<figcaption>
<ul class="graph-legend" aria-label="Legend">
${CAUSAL_LINK_KIND_ORDER.map((k) => html`<li>${edgeSample(k, false)} ${LINK_KIND_VERBS[k]}</li>`)}
<li>${edgeSample('causes', true)} part of a feedback loop</li>
${roles.map((r) => html`<li>${roleSample(r)} ${ROLE_LABELS[r].toLowerCase()}</li>`)}
</ul>
<div id="graph-summary" class="graph-summary">
<p>${plural(factors.length, 'causal factor')} joined by ${plural(links.length, 'link')}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}.${triggers.length > 0 ? html` ${triggers.length === 1 ? 'Trigger' : 'Triggers'}: ${joinHtml(triggers.map((t) => factorLink(t.key)), ', ')}.` : ''}</p>
${loopText}
</div>
</figcaption>
</figure>`;
}
