import type { FactorRole } from '@hindsight/domain';
import { findFeedbackLoops, type FeedbackLoops, type GraphEdge } from './feedback-loops';

export interface GraphNode {
  key: string;
  role: FactorRole;
  component: string;
  /** Short name drawn in the box. */
  label: string;
  /** Full text, offered as the node's tooltip. */
  description: string;
}

export interface Point {
  x: number;
  y: number;
}

export interface PositionedNode extends GraphNode {
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  layer: number;
  /** The label wrapped to fit the box. */
  lines: string[];
  /** The small line(s) above the label: the factor's role and component, never cut short. */
  caption: string[];
}

export interface RoutedEdge extends GraphEdge {
  /** From the source port to the target port, through the bends. */
  points: Point[];
  /** Drawn against the layer direction: the link that closes a loop. */
  upward: boolean;
  inLoop: boolean;
  /** The four points are one cubic curve (start, two control points, end): a side arc of the column layout. */
  arc?: boolean;
}

export interface CausalGraphLayout {
  width: number;
  height: number;
  nodes: PositionedNode[];
  edges: RoutedEdge[];
  loops: FeedbackLoops;
}

// Sizes in SVG user units (px at 1:1). The box width keeps a wrapped label to about 22
// characters a line at 12 px, which stays legible when the page is 360 px wide.
const NODE_WIDTH = 164;
const LINE_HEIGHT = 15;
const NODE_PADDING = 8;
const CHARS_PER_LINE = 22;
/** Real boxes per row before factors that nothing leads to are lifted into a row of their own. */
const MAX_PER_ROW = 5;
/** Characters of 10.5 px caption text that fit the box on one line. */
const CAPTION_CHARS = 26;

/** What a box's caption calls each role. */
export const ROLE_CAPTIONS: Record<FactorRole, string> = {
  trigger: 'trigger',
  condition: 'condition',
  amplifier: 'amplifier',
  latent: 'latent condition',
  mitigating: 'mitigating',
};

/** "trigger · HAProxy" on one line when it fits, else the role and the component on a line each. */
function captionLines(role: FactorRole, component: string): string[] {
  const one = `${ROLE_CAPTIONS[role]} · ${component}`;
  return one.length <= CAPTION_CHARS ? [one] : [`${ROLE_CAPTIONS[role]} ·`, ...wrap(component, CAPTION_CHARS)];
}

const MAX_LABEL_LINES = 3;
const DUMMY_WIDTH = 14;
const GAP_X = 26;
const GAP_Y = 60;
const MARGIN = 16;

interface Slot {
  id: number;
  /** Index into `nodes`, or -1 for a bend point of a long edge. */
  node: number;
  layer: number;
  width: number;
  height: number;
  x: number;
}

/**
 * Layered (Sugiyama-style) layout, top to bottom, that keeps loops readable: a depth-first pass
 * picks the links that close cycles and lays them out backwards, so every loop shows as a chain
 * going down plus one link going back up. Long links bend through placeholder slots so they do
 * not cut through boxes; a few barycentre sweeps reduce crossings.
 */
export function layoutCausalGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): CausalGraphLayout {
  const keys = nodes.map((n) => n.key);
  const index = new Map(keys.map((k, i) => [k, i]));
  const known = edges.filter((e) => index.has(e.from) && index.has(e.to));
  const loops = findFeedbackLoops(keys, known);
  const n = nodes.length;

  const upward = closingLinks(n, known.map((e) => [index.get(e.from)!, index.get(e.to)!] as const));
  // Layering graph: every link points down; links that close a loop are turned round.
  const down: [number, number][] = [];
  known.forEach((e, i) => {
    const a = index.get(e.from)!;
    const b = index.get(e.to)!;
    if (a === b) return;
    down.push(upward.has(i) ? [b, a] : [a, b]);
  });
  const layer = limitRowWidth(assignLayers(n, down), down);

  // Slots: one per node, plus one per layer crossed by a long link.
  const lines = nodes.map((node) => wrap(node.label));
  const captions = nodes.map((node) => captionLines(node.role, node.component));
  const slots: Slot[] = nodes.map((_, i) => ({
    id: i,
    node: i,
    layer: layer[i]!,
    width: NODE_WIDTH,
    height: NODE_PADDING * 2 + LINE_HEIGHT * (lines[i]!.length + captions[i]!.length),
    x: 0,
  }));
  const chains: number[][] = []; // per known edge: slot ids from the upper end to the lower end
  const links: [number, number][] = []; // slot-level links between adjacent layers
  known.forEach((e, i) => {
    const a = index.get(e.from)!;
    const b = index.get(e.to)!;
    const [top, bottom] = upward.has(i) ? [b, a] : [a, b];
    const chain = [top];
    for (let l = layer[top]! + 1; l < layer[bottom]!; l++) {
      const id = slots.length;
      slots.push({ id, node: -1, layer: l, width: DUMMY_WIDTH, height: 0, x: 0 });
      chain.push(id);
    }
    if (a !== b) chain.push(bottom);
    for (let j = 1; j < chain.length; j++) links.push([chain[j - 1]!, chain[j]!]);
    chains.push(chain);
  });

  const layers = orderLayers(slots, links);
  placeHorizontally(layers, slots, links);

  // Vertical placement: each layer is a row as tall as its tallest box, boxes centred in it.
  const rowTop: number[] = [];
  const rowHeight = layers.map((row) => Math.max(LINE_HEIGHT, ...row.map((id) => slots[id]!.height)));
  let y = MARGIN;
  for (let l = 0; l < layers.length; l++) {
    rowTop.push(y);
    y += rowHeight[l]! + GAP_Y;
  }
  const height = y - GAP_Y + MARGIN;
  const minX = Math.min(...slots.map((s) => s.x - s.width / 2));
  const shift = MARGIN - minX;
  for (const s of slots) s.x += shift;
  const width = Math.max(...slots.map((s) => s.x + s.width / 2)) + MARGIN;
  const centreY = (s: Slot) => rowTop[s.layer]! + rowHeight[s.layer]! / 2;

  const positioned: PositionedNode[] = nodes.map((node, i) => {
    const s = slots[i]!;
    return { ...node, x: s.x - s.width / 2, y: centreY(s) - s.height / 2, width: s.width, height: s.height, layer: s.layer, lines: lines[i]!, caption: captions[i]! };
  });

  const routed: RoutedEdge[] = known.map((e, i) => {
    const chain = chains[i]!;
    const isUp = upward.has(i);
    const inLoop = loops.inLoop(e);
    if (chain.length === 1) {
      // A factor that feeds itself: a small loop off the right side of its box.
      const box = positioned[chain[0]!]!;
      const right = box.x + box.width;
      const mid = box.y + box.height / 2;
      return { ...e, upward: false, inLoop, points: [{ x: right, y: mid - 8 }, { x: right + 26, y: mid - 14 }, { x: right + 26, y: mid + 14 }, { x: right, y: mid + 8 }] };
    }
    const points: Point[] = chain.map((id) => ({ x: slots[id]!.x, y: centreY(slots[id]!) }));
    const first = slots[chain[0]!]!;
    const last = slots[chain[chain.length - 1]!]!;
    points[0] = { x: first.x, y: centreY(first) + first.height / 2 };
    points[points.length - 1] = { x: last.x, y: centreY(last) - last.height / 2 };
    // A loop-closing link was laid out top to bottom; it is drawn from its real source, going up.
    if (isUp) points.reverse();
    return { ...e, upward: isUp, inLoop, points };
  });
  spreadPorts(routed, positioned);

  return { width: Math.ceil(width), height: Math.ceil(height), nodes: positioned, edges: routed, loops };
}

/** Gap between boxes of the column layout, and between arcs side by side. */
const COLUMN_GAP = 14;
const ARC_STEP = 9;
const ARC_LEVELS = 12;

/**
 * The same graph as one column of boxes, for narrow screens: the boxes in the reading order of the
 * layered layout (row by row, left to right), every link an arc on the right-hand side from its
 * cause to its effect, longer links further out. About 320 units wide whatever the graph, so it
 * fits a phone at its natural size.
 */
export function layoutCausalGraphColumn(layered: CausalGraphLayout): CausalGraphLayout {
  const order = [...layered.nodes].sort((a, b) => a.y - b.y || a.x - b.x);
  let y = MARGIN;
  const nodes: PositionedNode[] = order.map((n) => {
    const placed = { ...n, x: MARGIN, y };
    y += n.height + COLUMN_GAP;
    return placed;
  });
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const right = MARGIN + Math.max(0, ...nodes.map((n) => n.width));
  const rank = new Map(nodes.map((n, i) => [n.key, i]));
  // Longer links go further out, so short ones nest inside them.
  const spans = layered.edges.map((e) => Math.abs(rank.get(e.to)! - rank.get(e.from)!));
  const distinct = [...new Set(spans)].sort((a, b) => a - b);
  // Each box's ends spread down its right-hand side, in the order of the boxes they lead to.
  const ends = new Map<string, Array<{ edge: number; towards: number }>>();
  layered.edges.forEach((e, i) => {
    if (e.from === e.to) return;
    for (const [at, other] of [[e.from, e.to], [e.to, e.from]] as const) {
      ends.set(at, [...(ends.get(at) ?? []), { edge: i, towards: rank.get(other)! }]);
    }
  });
  const port = (key: string, edge: number): number => {
    const box = byKey.get(key)!;
    const list = [...(ends.get(key) ?? [])].sort((a, b) => a.towards - b.towards);
    const i = list.findIndex((x) => x.edge === edge);
    return box.y + 8 + ((box.height - 16) * (i + 1)) / (list.length + 1);
  };
  const edges: RoutedEdge[] = layered.edges.map((e, i) => {
    const from = byKey.get(e.from)!;
    if (e.from === e.to) {
      const mid = from.y + from.height / 2;
      return { ...e, upward: false, arc: true, points: [{ x: right, y: mid - 8 }, { x: right + 26, y: mid - 14 }, { x: right + 26, y: mid + 14 }, { x: right, y: mid + 8 }] };
    }
    const out = 18 + ARC_STEP * Math.min(distinct.indexOf(spans[i]!), ARC_LEVELS);
    const y1 = port(e.from, i);
    const y2 = port(e.to, i);
    return { ...e, upward: rank.get(e.to)! < rank.get(e.from)!, arc: true, points: [{ x: right, y: y1 }, { x: right + out, y: y1 }, { x: right + out, y: y2 }, { x: right + 2, y: y2 }] };
  });
  const reach = Math.max(26, ...edges.map((e) => Math.max(...e.points.map((p) => p.x)) - right));
  return { width: Math.ceil(right + reach * 0.75 + MARGIN), height: Math.ceil(y - COLUMN_GAP + MARGIN), nodes, edges, loops: layered.loops };
}

/** Depth-first from the factors nothing leads to; a link back into the current path closes a loop. */
function closingLinks(n: number, links: readonly (readonly [number, number])[]): Set<number> {
  const out: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  links.forEach(([a, b], i) => {
    out[a]!.push(i);
    if (a !== b) indegree[b]!++;
  });
  const state = new Array<0 | 1 | 2>(n).fill(0);
  const closing = new Set<number>();
  const visit = (v: number): void => {
    state[v] = 1;
    for (const i of out[v]!) {
      const w = links[i]![1];
      if (w === v) continue;
      if (state[w] === 1) closing.add(i);
      else if (state[w] === 0) visit(w);
    }
    state[v] = 2;
  };
  const roots = [...Array(n).keys()].sort((a, b) => Number(indegree[a]! > 0) - Number(indegree[b]! > 0) || a - b);
  for (const v of roots) if (state[v] === 0) visit(v);
  return closing;
}

/**
 * Longest-path layering, then each factor nothing leads to is moved down to sit just above the
 * first factor it affects, so latent conditions appear next to what they enable rather than all
 * in the top row.
 */
function assignLayers(n: number, down: readonly [number, number][]): number[] {
  const out: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  for (const [a, b] of down) {
    out[a]!.push(b);
    indegree[b]!++;
  }
  const layer = new Array<number>(n).fill(0);
  const remaining = [...indegree];
  const queue = [...Array(n).keys()].filter((v) => remaining[v] === 0);
  const topo: number[] = [];
  while (queue.length > 0) {
    const v = queue.shift()!;
    topo.push(v);
    for (const w of out[v]!) {
      layer[w] = Math.max(layer[w]!, layer[v]! + 1);
      if (--remaining[w]! === 0) queue.push(w);
    }
  }
  for (const v of [...topo].reverse()) {
    if (indegree[v] === 0 && out[v]!.length > 0) layer[v] = Math.min(...out[v]!.map((w) => layer[w]!)) - 1;
  }
  const min = Math.min(0, ...layer);
  return layer.map((l) => l - min);
}

/**
 * Keeps rows narrow enough to read on a phone: when a row holds more than MAX_PER_ROW boxes,
 * factors nothing leads to are lifted into the row above (a new top row if needed), and factors
 * with no links at all go to the least crowded row.
 */
function limitRowWidth(layer: number[], down: readonly [number, number][]): number[] {
  const result = [...layer];
  const hasIn = new Set(down.map(([, b]) => b));
  const hasOut = new Set(down.map(([a]) => a));
  const isolated = result.map((_, v) => !hasIn.has(v) && !hasOut.has(v));
  const rows = () => {
    const depth = Math.max(0, ...result) + 1;
    const count = new Array<number>(depth).fill(0);
    result.forEach((l, v) => {
      if (!isolated[v]) count[l]!++;
    });
    return count;
  };
  // Bottom-up, so a row that receives lifted factors is itself checked next.
  for (let l = Math.max(0, ...result); l >= 0; l--) {
    const members = result.map((x, v) => (x === l && !isolated[v] ? v : -1)).filter((v) => v >= 0);
    const liftable = members.filter((v) => !hasIn.has(v));
    const excess = Math.min(liftable.length, members.length - MAX_PER_ROW);
    if (excess <= 0) continue;
    if (l === 0) {
      for (let v = 0; v < result.length; v++) result[v]!++;
      l++;
    }
    for (const v of liftable.slice(-excess)) result[v] = l - 1;
  }
  const count = rows();
  result.forEach((_, v) => {
    if (!isolated[v]) return;
    const least = count.indexOf(Math.min(...count));
    result[v] = least;
    count[least]!++;
  });
  return result;
}

function orderLayers(slots: Slot[], links: readonly [number, number][]): number[][] {
  const depth = Math.max(0, ...slots.map((s) => s.layer)) + 1;
  const layers: number[][] = Array.from({ length: depth }, () => []);
  for (const s of slots) layers[s.layer]!.push(s.id);
  const up = new Map<number, number[]>();
  const below = new Map<number, number[]>();
  for (const [a, b] of links) {
    below.set(a, [...(below.get(a) ?? []), b]);
    up.set(b, [...(up.get(b) ?? []), a]);
  }
  const position = new Map<number, number>();
  const remember = () => layers.forEach((row) => row.forEach((id, i) => position.set(id, i)));
  remember();

  const crossings = (): number => {
    let count = 0;
    for (let l = 0; l + 1 < layers.length; l++) {
      const pairs: [number, number][] = [];
      for (const a of layers[l]!) for (const b of below.get(a) ?? []) pairs.push([position.get(a)!, position.get(b)!]);
      for (let i = 0; i < pairs.length; i++) {
        for (let j = i + 1; j < pairs.length; j++) {
          const [a1, b1] = pairs[i]!;
          const [a2, b2] = pairs[j]!;
          if ((a1 - a2) * (b1 - b2) < 0) count++;
        }
      }
    }
    return count;
  };

  const sweep = (row: number[], neighbours: Map<number, number[]>) => {
    const weight = new Map<number, number>();
    row.forEach((id, i) => {
      const ns = neighbours.get(id) ?? [];
      weight.set(id, ns.length > 0 ? ns.reduce((sum, m) => sum + position.get(m)!, 0) / ns.length : i);
    });
    row.sort((a, b) => weight.get(a)! - weight.get(b)! || position.get(a)! - position.get(b)!);
    row.forEach((id, i) => position.set(id, i));
  };

  let best = layers.map((row) => [...row]);
  let bestCrossings = crossings();
  for (let iteration = 0; iteration < 12 && bestCrossings > 0; iteration++) {
    if (iteration % 2 === 0) for (let l = 1; l < layers.length; l++) sweep(layers[l]!, up);
    else for (let l = layers.length - 2; l >= 0; l--) sweep(layers[l]!, below);
    const c = crossings();
    if (c < bestCrossings) {
      bestCrossings = c;
      best = layers.map((row) => [...row]);
    }
  }
  return best;
}

/**
 * Pulls every slot towards the mean position of its neighbours, row by row, while keeping the
 * order within the row and a minimum gap; then the row is re-centred on what its slots wanted.
 */
function placeHorizontally(layers: number[][], slots: Slot[], links: readonly [number, number][]): void {
  const neighbours = new Map<number, number[]>();
  for (const [a, b] of links) {
    neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
    neighbours.set(b, [...(neighbours.get(b) ?? []), a]);
  }
  // A slot with no neighbours has no wish (NaN) and simply follows the slot to its left.
  const pack = (row: number[], wanted: (id: number) => number) => {
    let edge = -Infinity;
    const placed: number[] = [];
    let drift = 0;
    let wishes = 0;
    for (const id of row) {
      const s = slots[id]!;
      const wish = wanted(id);
      const x = Number.isNaN(wish) ? (edge === -Infinity ? 0 : edge + s.width / 2) : Math.max(wish, edge + s.width / 2);
      placed.push(x);
      if (!Number.isNaN(wish)) {
        drift += x - wish;
        wishes++;
      }
      edge = x + s.width / 2 + GAP_X;
    }
    drift /= Math.max(1, wishes);
    row.forEach((id, i) => (slots[id]!.x = placed[i]! - drift));
  };
  // Start with every row packed and centred on the same axis.
  for (const row of layers) pack(row, () => 0);
  for (let iteration = 0; iteration < 8; iteration++) {
    const order = iteration % 2 === 0 ? layers : [...layers].reverse();
    for (const row of order) {
      pack(row, (id) => {
        const ns = neighbours.get(id) ?? [];
        return ns.length > 0 ? ns.reduce((sum, m) => sum + slots[m]!.x, 0) / ns.length : Number.NaN;
      });
    }
  }
}

/**
 * Links that meet the same side of a box get their own attachment points, ordered by where the
 * link comes from, so arrowheads do not pile onto one spot.
 */
function spreadPorts(edges: RoutedEdge[], nodes: PositionedNode[]): void {
  const near = (p: Point, y: number) => Math.abs(p.y - y) < 0.5;
  for (const node of nodes) {
    const top = node.y;
    const bottom = node.y + node.height;
    const centre = node.x + node.width / 2;
    for (const side of [top, bottom]) {
      const ends: { point: Point; towards: number }[] = [];
      for (const e of edges) {
        if (e.points.length < 2 || e.from === e.to) continue;
        const first = e.points[0]!;
        const last = e.points[e.points.length - 1]!;
        if (near(first, side) && Math.abs(first.x - centre) < 0.5 && e.from === node.key) ends.push({ point: first, towards: e.points[1]!.x });
        if (near(last, side) && Math.abs(last.x - centre) < 0.5 && e.to === node.key) ends.push({ point: last, towards: e.points[e.points.length - 2]!.x });
      }
      if (ends.length < 2) continue;
      ends.sort((a, b) => a.towards - b.towards);
      const span = node.width * 0.7;
      ends.forEach((end, i) => (end.point.x = centre - span / 2 + (span * i) / (ends.length - 1)));
    }
  }
}

/** Wraps a label to the box: whole words, at most three lines, an ellipsis when cut. */
function wrap(label: string, perLine = CHARS_PER_LINE): string[] {
  const words = label.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (candidate.length <= perLine) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = word.length > perLine ? `${word.slice(0, perLine - 1)}…` : word;
  }
  if (current) lines.push(current);
  if (lines.length > MAX_LABEL_LINES) {
    const kept = lines.slice(0, MAX_LABEL_LINES);
    kept[MAX_LABEL_LINES - 1] = `${kept[MAX_LABEL_LINES - 1]!.slice(0, perLine - 1)}…`;
    return kept;
  }
  return lines.length > 0 ? lines : [''];
}
