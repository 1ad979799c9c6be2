import type { CausalLinkKind } from '@hindsight/domain';

export interface GraphEdge {
  from: string;
  to: string;
  kind: CausalLinkKind;
}

export interface FeedbackLoops {
  /**
   * Elementary cycles as factor keys in link order (the last key links back to the first),
   * shortest first. Capped: a dense graph has exponentially many, and a reader needs a few.
   */
  cycles: string[][];
  /** True when more cycles exist than `cycles` lists. */
  truncated: boolean;
  /** Factors that lie on at least one cycle. */
  nodesInLoops: ReadonlySet<string>;
  /** Whether the edge lies on a cycle: its ends are in the same strongly connected component. */
  inLoop(edge: Pick<GraphEdge, 'from' | 'to'>): boolean;
}

/**
 * Finds the feedback loops of a causal graph. An edge is on a loop exactly when its target can
 * reach its source again, i.e. both ends share a strongly connected component (Tarjan), so edge
 * highlighting never depends on how many cycles were enumerated for the text.
 */
export function findFeedbackLoops(keys: readonly string[], edges: readonly GraphEdge[], maxCycles = 12): FeedbackLoops {
  const index = new Map(keys.map((k, i) => [k, i]));
  const next: number[][] = keys.map(() => []);
  const selfLoops = new Set<number>();
  for (const e of edges) {
    const from = index.get(e.from);
    const to = index.get(e.to);
    if (from === undefined || to === undefined) continue;
    if (from === to) selfLoops.add(from);
    else if (!next[from]!.includes(to)) next[from]!.push(to);
  }

  const component = strongComponents(next);
  const size = new Map<number, number>();
  for (const c of component) size.set(c, (size.get(c) ?? 0) + 1);
  const looping = (i: number) => selfLoops.has(i) || (size.get(component[i]!) ?? 0) > 1;

  const { cycles, truncated } = elementaryCycles(next, component, selfLoops, maxCycles);
  return {
    cycles: cycles.map((c) => c.map((i) => keys[i]!)),
    truncated,
    nodesInLoops: new Set(keys.filter((_, i) => looping(i))),
    inLoop(edge) {
      const from = index.get(edge.from);
      const to = index.get(edge.to);
      if (from === undefined || to === undefined) return false;
      if (from === to) return true;
      return component[from] === component[to] && looping(from);
    },
  };
}

/** Tarjan's algorithm; returns the component number of every node. */
function strongComponents(next: number[][]): number[] {
  const n = next.length;
  const order = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const component = new Array<number>(n).fill(-1);
  const stack: number[] = [];
  let counter = 0;
  let components = 0;
  const visit = (v: number): void => {
    order[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = true;
    for (const w of next[v]!) {
      if (order[w] === -1) {
        visit(w);
        low[v] = Math.min(low[v]!, low[w]!);
      } else if (onStack[w]) {
        low[v] = Math.min(low[v]!, order[w]!);
      }
    }
    if (low[v] === order[v]) {
      for (;;) {
        const w = stack.pop()!;
        onStack[w] = false;
        component[w] = components;
        if (w === v) break;
      }
      components++;
    }
  };
  for (let v = 0; v < n; v++) if (order[v] === -1) visit(v);
  return component;
}

/**
 * Each elementary cycle once, rooted at its lowest-numbered node: from every start node, walk
 * simple paths through higher-numbered nodes of the same component back to the start. A step
 * budget bounds the work on adversarial input.
 */
function elementaryCycles(
  next: number[][],
  component: number[],
  selfLoops: ReadonlySet<number>,
  maxCycles: number,
): { cycles: number[][]; truncated: boolean } {
  const cycles: number[][] = [...selfLoops].sort((a, b) => a - b).map((v) => [v]);
  let budget = 50_000;
  let truncated = false;
  const onPath = new Array<boolean>(next.length).fill(false);
  const path: number[] = [];
  const walk = (start: number, v: number): void => {
    if (truncated) return;
    path.push(v);
    onPath[v] = true;
    for (const w of next[v]!) {
      if (--budget < 0 || cycles.length >= maxCycles * 4) {
        truncated = true;
        break;
      }
      if (w === start) cycles.push([...path]);
      else if (w > start && !onPath[w] && component[w] === component[start]) walk(start, w);
    }
    onPath[v] = false;
    path.pop();
  };
  for (let s = 0; s < next.length && !truncated; s++) walk(s, s);
  cycles.sort((a, b) => a.length - b.length || a[0]! - b[0]!);
  if (cycles.length > maxCycles) truncated = true;
  return { cycles: cycles.slice(0, maxCycles), truncated };
}
