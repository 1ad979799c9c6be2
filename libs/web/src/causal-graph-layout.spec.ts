import type { FactorRole } from '@hindsight/domain';
import { layoutCausalGraph, layoutCausalGraphColumn, type GraphNode } from './causal-graph-layout';
import { renderCausalGraphSvg } from './causal-graph-svg';
import { findFeedbackLoops, type GraphEdge } from './feedback-loops';

const node = (key: string, role: FactorRole = 'condition'): GraphNode => ({ key, role, component: 'C', label: key.replace(/-/g, ' '), description: `about ${key}` });

// A trigger feeding a three-step loop with a retry side loop, plus a latent condition.
const NODES = ['edit', 'request', 'render', 'event', 'error', 'retry', 'no-guard', 'lonely'].map((k) => node(k, k === 'edit' ? 'trigger' : 'condition'));
const EDGES: GraphEdge[] = [
  { from: 'edit', to: 'request', kind: 'causes' },
  { from: 'request', to: 'render', kind: 'causes' },
  { from: 'render', to: 'event', kind: 'causes' },
  { from: 'event', to: 'request', kind: 'causes' },
  { from: 'request', to: 'error', kind: 'enables' },
  { from: 'error', to: 'retry', kind: 'causes' },
  { from: 'retry', to: 'request', kind: 'amplifies' },
  { from: 'no-guard', to: 'request', kind: 'enables' },
];

describe('findFeedbackLoops', () => {
  it('lists each loop once, shortest first, and marks exactly the links on loops', () => {
    const loops = findFeedbackLoops(NODES.map((n) => n.key), EDGES);
    expect(loops.cycles).toEqual([
      ['request', 'render', 'event'],
      ['request', 'error', 'retry'],
    ]);
    expect(loops.truncated).toBe(false);
    expect(EDGES.filter((e) => loops.inLoop(e)).map((e) => `${e.from}>${e.to}`)).toEqual([
      'request>render',
      'render>event',
      'event>request',
      'request>error',
      'error>retry',
      'retry>request',
    ]);
    expect([...loops.nodesInLoops].sort()).toEqual(['error', 'event', 'render', 'request', 'retry']);
  });

  it('treats a factor feeding itself as a loop and a plain chain as none', () => {
    expect(findFeedbackLoops(['a'], [{ from: 'a', to: 'a', kind: 'amplifies' }]).cycles).toEqual([['a']]);
    const chain = findFeedbackLoops(['a', 'b', 'c'], [{ from: 'a', to: 'b', kind: 'causes' }, { from: 'b', to: 'c', kind: 'causes' }]);
    expect(chain.cycles).toEqual([]);
    expect(chain.nodesInLoops.size).toBe(0);
  });

  it('stays bounded on a dense graph and says when it stopped listing', () => {
    const keys = Array.from({ length: 9 }, (_, i) => `n${i}`);
    const edges = keys.flatMap((a) => keys.filter((b) => b !== a).map((b) => ({ from: a, to: b, kind: 'causes' as const })));
    const loops = findFeedbackLoops(keys, edges, 12);
    expect(loops.cycles).toHaveLength(12);
    expect(loops.truncated).toBe(true);
    expect(loops.cycles[0]).toHaveLength(2);
  });
});

describe('layoutCausalGraph', () => {
  const layout = layoutCausalGraph(NODES, EDGES);

  it('places boxes without overlap, inside the drawing', () => {
    for (const a of layout.nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart).toBe(true);
      }
    }
  });

  it('runs links downwards except the one link per loop drawn going back up', () => {
    const byKey = new Map(layout.nodes.map((n) => [n.key, n]));
    for (const e of layout.edges) {
      const from = byKey.get(e.from)!;
      const to = byKey.get(e.to)!;
      expect(e.upward ? to.layer < from.layer : to.layer > from.layer).toBe(true);
      // Every link starts on its source box and ends on its target box.
      const first = e.points[0]!;
      const last = e.points[e.points.length - 1]!;
      expect(first.x).toBeGreaterThanOrEqual(from.x);
      expect(first.x).toBeLessThanOrEqual(from.x + from.width);
      expect([from.y, from.y + from.height]).toContain(first.y);
      expect([to.y, to.y + to.height]).toContain(last.y);
    }
    expect(layout.edges.filter((e) => e.upward)).toHaveLength(2);
    expect(layout.edges.filter((e) => e.upward).every((e) => e.inLoop)).toBe(true);
    // The trigger starts the drawing.
    expect(byKey.get('edit')!.layer).toBe(0);
  });

  it('keeps rows to at most five boxes by lifting factors nothing leads to', () => {
    const many = [node('target'), ...Array.from({ length: 8 }, (_, i) => node(`cause-${i}`, 'latent'))];
    const wide = layoutCausalGraph(many, many.slice(1).map((n) => ({ from: n.key, to: 'target', kind: 'enables' as const })));
    const perRow = new Map<number, number>();
    for (const n of wide.nodes) perRow.set(n.layer, (perRow.get(n.layer) ?? 0) + 1);
    expect(Math.max(...perRow.values())).toBeLessThanOrEqual(5);
  });

  it('renders an SVG whose boxes link to their anchors and whose loop links stand out', () => {
    const svg = renderCausalGraphSvg(layout, { href: (k) => `#factor-${k}`, title: 'Causal graph <test>' }).value;
    expect(svg).toContain('<title id="cg-title">Causal graph &lt;test&gt;</title>');
    for (const n of NODES) expect(svg).toContain(`href="#factor-${n.key}"`);
    expect(svg.match(/class="edge [^"]*edge-loop"/g)).toHaveLength(6);
    expect(svg).toContain('marker-end="url(#cg-arrow-loop)"');
    expect(svg).toContain('stroke-dasharray="8 4"');
    expect(svg).not.toMatch(/\son[a-z]+=|style=/);
  });
});

describe('layoutCausalGraphColumn', () => {
  const wide = layoutCausalGraph(
    [...NODES, node('a-factor-whose-component-name-is-long', 'latent')].map((n) => (n.role === 'latent' ? { ...n, component: 'Apache (mpm_prefork) worker pool' } : n)),
    EDGES,
  );
  const column = layoutCausalGraphColumn(wide);

  it('stacks every box in one column, in the layered reading order, without overlap, narrow enough for a phone', () => {
    expect(column.nodes.map((n) => n.x)).toEqual(column.nodes.map(() => column.nodes[0]!.x));
    for (let i = 1; i < column.nodes.length; i++) expect(column.nodes[i]!.y).toBeGreaterThan(column.nodes[i - 1]!.y + column.nodes[i - 1]!.height);
    expect(column.nodes[0]!.key).toBe(wide.nodes.reduce((top, n) => (n.y < top.y || (n.y === top.y && n.x < top.x) ? n : top)).key);
    expect(column.width).toBeLessThanOrEqual(330);
    expect(column.height).toBeGreaterThan(column.nodes[column.nodes.length - 1]!.y);
  });

  it('draws every link as an arc on the right from its cause to its effect, inside the drawing', () => {
    const byKey = new Map(column.nodes.map((n) => [n.key, n]));
    expect(column.edges).toHaveLength(EDGES.length);
    for (const e of column.edges) {
      const [start, , , end] = e.points;
      const from = byKey.get(e.from)!;
      const to = byKey.get(e.to)!;
      expect(e.arc).toBe(true);
      expect(start!.y).toBeGreaterThan(from.y);
      expect(start!.y).toBeLessThan(from.y + from.height);
      expect(end!.y).toBeGreaterThan(to.y);
      expect(end!.y).toBeLessThan(to.y + to.height);
      // A cubic curve stays within its control points' hull, three quarters of the way out at most.
      expect(start!.x + (Math.max(...e.points.map((p) => p.x)) - start!.x) * 0.75).toBeLessThanOrEqual(column.width);
    }
  });

  it('gives a long caption a line of its own instead of cutting it, and names each node with the words it shows', () => {
    const latent = column.nodes.find((n) => n.role === 'latent')!;
    expect(latent.caption).toEqual(['latent condition ·', 'Apache (mpm_prefork)', 'worker pool']);
    const svg = renderCausalGraphSvg(column, { href: (k) => `#${k}`, title: 'Graph', idPrefix: 'n-' }).value;
    const label = new RegExp(`data-key="${latent.key}" aria-label="([^"]*)"`).exec(svg)![1];
    expect(label).toBe(`latent condition · Apache (mpm_prefork) worker pool ${latent.lines.join(' ')}`);
  });
});
