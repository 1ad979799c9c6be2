import { RandomStream } from '../kernel/random.stream';
import type { Evaluate } from '../spec/expression.parser';
import * as constants from './runtime.constants';
import { SourceStats } from './run.stats';
import { firstAttempt } from './mean-field.port';
import type { Duration } from './value.compiler';
import { type EdgeRt, Call } from './call-edge';
import type { FlowSimulation } from './flow.runtime';
import { Root, Visit } from './visit';

/** Sources: open arrivals (rate, profile, trace) and closed users with think time. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
// The same for the runtime's constants: transpiled to CommonJS, an imported name is a getter
// on the module object, read at every use; bound once here, it is a local constant.
const { EV_SOURCE, EV_SOURCE_RATE, OK } = constants;
const Array = globalThis.Array;

export class SourceToken {
  constructor(
    readonly source: Source,
    readonly gen: number,
  ) {}
}

export class Source {
  readonly stats: SourceStats;
  readonly rng: RandomStream;
  /** Shared by every request this source starts: depth 0, this source. */
  readonly root: Root;
  /** The pending arrival's token; replacing it makes that arrival stale (DES rate change). */
  token: SourceToken;
  scale = 1;
  gen = 0;
  rate: Evaluate = () => 0;
  profile: Array<{ at: number; rate: Evaluate }> | null = null;
  trace: number[] | null = null;
  poisson = true;
  users = 0;
  think: Duration | null = null;
  work: Evaluate = () => 1;

  constructor(
    readonly rt: FlowSimulation,
    readonly key: string,
    readonly index: number,
    readonly kind: 'open' | 'closed',
    readonly edge: EdgeRt,
    seed: number,
  ) {
    this.stats = new SourceStats(rt.grid, rt.percentiles.has(`${key}.latency`));
    this.rng = new RandomStream(seed, `source:${key}`);
    this.root = new Root(rt.newId(), index, 0);
    this.token = new SourceToken(this, 0);
  }

  currentRate(): number {
    let r: number;
    if (this.profile) {
      const now = this.rt.kernel.now;
      r = 0;
      for (const seg of this.profile) {
        if (seg.at <= now) r = seg.rate();
        else break;
      }
    } else {
      r = this.rate();
    }
    r *= this.scale;
    return r > 0 ? r : 0;
  }

  start(): void {
    const rt = this.rt;
    if (this.kind === 'closed') {
      rt.mode.startClosedSource(this);
      return;
    }
    if (this.trace) {
      for (const t of this.trace) rt.injector.arrival(this, 1, t);
      return;
    }
    if (this.profile) for (const seg of this.profile) if (seg.at > 0) rt.kernel.schedule(seg.at, EV_SOURCE_RATE, this);
    rt.mode.startOpenSource(this);
  }

  /** DES: the next arrival after `from`. */
  scheduleNext(from: number): void {
    const r = this.currentRate();
    if (r <= 0) return;
    const gap = this.poisson ? this.rng.exponential(1 / r) : 1 / r;
    this.rt.kernel.schedule(from + gap, EV_SOURCE, this.token);
  }

  /** A rate change: memoryless for Poisson arrivals, a fresh spacing for constant ones. */
  reschedule(): void {
    if (this.kind === 'closed' || this.trace) return;
    this.rt.mode.rescheduleSource(this);
  }

  fire(token: SourceToken): void {
    if (token.gen !== this.gen) return;
    this.rt.mode.fireSource(this, token);
  }

  newRequest(mass: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (this.stats.offered.on) this.stats.offered.add(now, mass);
    if (this.edge.port) {
      this.edge.port.send(null, firstAttempt(mass), 0, 0, now, this.work());
      return;
    }
    if (this.edge.plain) {
      this.sendPlain(now);
      return;
    }
    const call = new Call(rt, this.edge, null, this, this.root, this.work());
    call.startAttempt(mass, 0, 1);
  }

  /**
   * DES, a plain edge: the attempt of Call.startAttempt without its objects (one visit of mass
   * 1, the same bookings and the same draw of the replica).
   */
  private sendPlain(now: number): void {
    const edge = this.edge;
    const work = this.work();
    if (edge.stats.attempts.on) edge.stats.attempts.add(now, 1);
    if (this.stats.attempts.on) this.stats.attempts.add(now, 1);
    const target = edge.target;
    const n = target.instances.length;
    const inst = n > 1 ? target.instances[edge.rng.int(n)] : target.instances[0];
    const v = new Visit(1, target, inst, null, this.root, work, now);
    v.client = this;
    target.arrive(v);
  }

  /** DES, a plain edge: the visit answered (Call.finish of its only attempt); `t0` is when it was sent. */
  answered(x: number, status: number, t0: number): void {
    const now = this.rt.kernel.now;
    if (this.edge.stats.resolved.on) this.edge.stats.resolved.add(now, x);
    if (this.stats.resolved.on) this.stats.resolved.add(now, x);
    if (status !== OK && this.edge.stats.failures.on) this.edge.stats.failures.add(now, x);
    this.onFinished(x, status, t0);
  }

  /** DES: a client retry, injected after its backoff. */
  retry(call: Call, mass: number, attemptNo: number): void {
    const rt = this.rt;
    rt.injector.retry(this, mass, attemptNo, call.t0, rt.kernel.now + this.edge.drawDelay(attemptNo - 1));
  }

  /** A request finished for good (after its retries); `t0` is when it was first sent. */
  onFinished(x: number, status: number, t0: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const st = this.stats;
    if (status === OK) {
      if (st.success.on) st.success.add(now, x);
      if (st.latency.on) st.latency.add(now, now - t0, x);
    } else if (st.failures.on) {
      st.failures.add(now, x);
    }
    if (this.kind === 'closed') {
      const think = this.think as Duration;
      rt.injector.user(this, x, now + rt.mode.duration(think, this.rng));
    }
  }
}
