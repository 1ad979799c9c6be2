import { RandomStream } from '../kernel/random.stream';
import type { Evaluate } from '../spec/expression.parser';
import { CacheStats } from './run.stats';
import type { FlowSimulation } from './flow.runtime';

/** A look-aside cache partitioned over nodes, warmed by successful miss reads. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

export class CacheRt {
  readonly warm: Float64Array;
  readonly stats: CacheStats;
  readonly rng: RandomStream;
  cursor = 0;

  constructor(
    readonly rt: FlowSimulation,
    readonly key: string,
    readonly nodes: number,
    readonly keysPerNode: Evaluate,
    initialWarm: number,
    readonly ceiling: Evaluate,
    seed: number,
  ) {
    this.warm = new Float64Array(nodes).fill(initialWarm);
    this.stats = new CacheStats(rt.grid);
    this.stats.warm.set(0, initialWarm);
    this.rng = new RandomStream(seed, `cache:${key}`);
  }

  hitProb(node: number): number {
    return this.warm[node] * this.ceiling();
  }

  meanHitProb(): number {
    let s = 0;
    for (let i = 0; i < this.nodes; i++) s += this.warm[i];
    return (s / this.nodes) * this.ceiling();
  }

  /** DES: a successful miss read fills its keys; only cold keys raise a node's warm fraction. */
  fillNodes(nodes: number[]): void {
    const now = this.rt.kernel.now;
    const keys = this.keysPerNode();
    const c = this.ceiling();
    for (const node of nodes) {
      const w = this.warm[node];
      if (w >= 1) continue;
      this.warm[node] = Math.min(1, w + (1 - w) / (1 - c * w) / keys);
    }
    this.stats.fills.add(now, nodes.length);
    this.recordWarm();
  }

  /** Fluid: `fills` keys filled, spread over the nodes by how cold they are. */
  fillMass(fills: number): void {
    const now = this.rt.kernel.now;
    const keys = this.keysPerNode();
    const c = this.ceiling();
    let denom = 0;
    for (let i = 0; i < this.nodes; i++) denom += 1 - c * this.warm[i];
    if (denom <= 0) return;
    for (let i = 0; i < this.nodes; i++) {
      const w = this.warm[i];
      this.warm[i] = Math.min(1, w + (fills * (1 - w)) / denom / keys);
    }
    this.stats.fills.add(now, fills);
    this.recordWarm();
  }

  flushNode(): void {
    this.warm[this.cursor % this.nodes] = 0;
    this.cursor++;
    this.recordWarm();
  }

  private recordWarm(): void {
    let s = 0;
    for (let i = 0; i < this.nodes; i++) s += this.warm[i];
    this.stats.warm.set(this.rt.kernel.now, s / this.nodes);
  }
}
