import type { CausalLinkKind, FactorRole } from '@hindsight/domain';
import { html, joinHtml, type SafeHtml } from './html';
import type { CausalGraphLayout, Point, RoutedEdge } from './causal-graph-layout';

/**
 * Colours and dash patterns shared by the drawing and its legend. Kinds differ by dash pattern
 * as well as colour and loops by width as well as colour, so neither depends on colour vision;
 * every stroke colour has at least 4.5:1 contrast on white.
 */
export const EDGE_STYLES: Record<CausalLinkKind, { stroke: string; width: number; dash: string | null; label: string }> = {
  causes: { stroke: '#1f2937', width: 1.6, dash: null, label: 'causes' },
  amplifies: { stroke: '#9a3412', width: 2.2, dash: '8 4', label: 'amplifies' },
  enables: { stroke: '#4b5563', width: 1.6, dash: '2 4', label: 'enables' },
};

/** Legend order: plain cause first, then the two kinds that change its strength. */
export const CAUSAL_LINK_KIND_ORDER: readonly CausalLinkKind[] = ['causes', 'amplifies', 'enables'];

export const LOOP_STROKE = '#be123c';
export const LOOP_WIDTH = 3.4;

export const ROLE_STYLES: Record<FactorRole, { fill: string; stroke: string; label: string }> = {
  trigger: { fill: '#fde2e2', stroke: '#b91c1c', label: 'trigger' },
  condition: { fill: '#e3ecfc', stroke: '#1d4ed8', label: 'condition' },
  amplifier: { fill: '#fff0d6', stroke: '#9a3412', label: 'amplifier' },
  latent: { fill: '#efe7ff', stroke: '#6d28d9', label: 'latent condition' },
  mitigating: { fill: '#dcfce7', stroke: '#15803d', label: 'mitigating' },
};

export interface CausalGraphSvgOptions {
  /** Where a node links to (the factor's entry in the list below the graph). */
  href(key: string): string;
  /** Accessible name of the drawing. */
  title: string;
  /** Id of the element holding the text summary (read after the name). */
  describedBy?: string;
  /** Prefix for ids inside the SVG, unique within the page. */
  idPrefix?: string;
}

const f = (n: number) => (Math.round(n * 10) / 10).toString();

/** Smooth path through the points with vertical tangents, the usual look of a layered graph. */
function pathThrough(points: readonly Point[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${f(first.x)},${f(first.y)}`;
  let prev = first;
  for (const p of rest) {
    const midY = (prev.y + p.y) / 2;
    d += ` C${f(prev.x)},${f(midY)} ${f(p.x)},${f(midY)} ${f(p.x)},${f(p.y)}`;
    prev = p;
  }
  return d;
}

function selfLoopPath(points: readonly Point[]): string {
  const [a, b, c, d] = points;
  if (!a || !b || !c || !d) return pathThrough(points);
  return `M${f(a.x)},${f(a.y)} C${f(b.x)},${f(b.y)} ${f(c.x)},${f(c.y)} ${f(d.x)},${f(d.y)}`;
}

function markerId(prefix: string, edge: Pick<RoutedEdge, 'kind' | 'inLoop'>): string {
  return `${prefix}arrow-${edge.inLoop ? 'loop' : edge.kind}`;
}

/** The arrowhead definitions; one per colour because `context-stroke` is not universal yet. */
export function arrowMarkers(prefix: string): SafeHtml {
  const defs = [
    ...Object.entries(EDGE_STYLES).map(([kind, style]) => ({ id: `${prefix}arrow-${kind}`, colour: style.stroke })),
    { id: `${prefix}arrow-loop`, colour: LOOP_STROKE },
  ];
  return joinHtml(
    defs.map(
      (m) => html`<marker id="${m.id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${m.colour}"/></marker>`,
    ),
  );
}

/** A short stroke in the style of a link kind, for legends (self-contained: no shared ids). */
export function edgeSample(kind: CausalLinkKind, inLoop: boolean): SafeHtml {
  const style = EDGE_STYLES[kind];
  const colour = inLoop ? LOOP_STROKE : style.stroke;
  return html`<svg class="edge-sample" width="46" height="14" viewBox="0 0 46 14" aria-hidden="true" focusable="false"><path d="M2,7 L36,7" fill="none" stroke="${colour}" stroke-width="${inLoop ? LOOP_WIDTH : style.width}" ${style.dash ? html`stroke-dasharray="${style.dash}"` : ''}/><path d="M35,2 L44,7 L35,12 z" fill="${colour}"/></svg>`;
}

/** A box in the colours of a factor role, for legends. */
export function roleSample(role: FactorRole): SafeHtml {
  const style = ROLE_STYLES[role];
  return html`<svg class="role-sample" width="22" height="14" viewBox="0 0 22 14" aria-hidden="true" focusable="false"><rect x="1" y="1" width="20" height="12" rx="3" fill="${style.fill}" stroke="${style.stroke}" stroke-width="1.4"/></svg>`;
}

/**
 * The causal graph as inline SVG. Every box links to its factor's anchor, every link carries a
 * tooltip in words ("A amplifies B, part of a feedback loop"), and links on a loop are drawn
 * last, in the loop colour, so loops stand out against the rest.
 */
export function renderCausalGraphSvg(layout: CausalGraphLayout, options: CausalGraphSvgOptions): SafeHtml {
  const prefix = options.idPrefix ?? 'cg-';
  const titleId = `${prefix}title`;
  const byKey = new Map(layout.nodes.map((n) => [n.key, n]));
  const ordered = [...layout.edges].sort((a, b) => Number(a.inLoop) - Number(b.inLoop));

  const edges = ordered.map((e) => {
    const style = EDGE_STYLES[e.kind];
    const from = byKey.get(e.from)?.label ?? e.from;
    const to = byKey.get(e.to)?.label ?? e.to;
    const d = e.from === e.to || e.arc ? selfLoopPath(e.points) : pathThrough(e.points);
    const classes = `edge edge-${e.kind}${e.inLoop ? ' edge-loop' : ''}`;
    return html`<path class="${classes}" d="${d}" fill="none" stroke="${e.inLoop ? LOOP_STROKE : style.stroke}" stroke-width="${e.inLoop ? LOOP_WIDTH : style.width}" ${style.dash ? html`stroke-dasharray="${style.dash}"` : ''} marker-end="url(#${markerId(prefix, e)})" data-from="${e.from}" data-to="${e.to}"><title>${from} ${style.label} ${to}${e.inLoop ? ' (part of a feedback loop)' : ''}</title></path>`;
  });

  const nodes = layout.nodes.map((n) => {
    const role = ROLE_STYLES[n.role];
    const cx = n.x + n.width / 2;
    const inLoop = layout.loops.nodesInLoops.has(n.key);
    const caption = n.caption.map((line, i) => html`<tspan class="node-caption" x="${f(cx)}" dy="${i === 0 ? '0.9em' : '1.2em'}" font-size="10.5" fill="#374151">${line}</tspan>`);
    const lines = n.lines.map((line, i) => html`<tspan x="${f(cx)}" dy="${i === 0 ? '1.35em' : '1.25em'}">${line}</tspan>`);
    // The name starts with the words the box shows (WCAG 2.5.3, label in name); the loop note follows.
    const name = `${n.caption.join(' ')} ${n.lines.join(' ')}${inLoop ? ' (in a feedback loop)' : ''}`;
    // The tooltip's <title> sits on a group around the link: inside it, it would count as the link's visible text.
    return html`<g class="node-group"><title>${n.component}: ${n.description}</title><a class="node node-${n.role}${inLoop ? ' node-loop' : ''}" href="${options.href(n.key)}" data-key="${n.key}" aria-label="${name}"><rect x="${f(n.x)}" y="${f(n.y)}" width="${f(n.width)}" height="${f(n.height)}" rx="6" fill="${role.fill}" stroke="${inLoop ? LOOP_STROKE : role.stroke}" stroke-width="${inLoop ? 2.4 : 1.4}"/><text x="${f(cx)}" y="${f(n.y + 8)}" text-anchor="middle" fill="#111827">${joinHtml([...caption, ...lines], ' ')}</text></a></g>`;
  });

  return html`<svg xmlns="http://www.w3.org/2000/svg" class="causal-graph-svg" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="group" aria-labelledby="${titleId}"${options.describedBy ? html` aria-describedby="${options.describedBy}"` : ''} font-size="12"><title id="${titleId}">${options.title}</title><defs>${arrowMarkers(prefix)}</defs><g class="edges">${edges}</g><g class="nodes">${nodes}</g></svg>`;
}
