import type { RandomStream } from '../../kernel/random.stream';
import type { Evaluate } from '../../spec/expression.parser';
import type { CacheRt } from '../cache';
import type { EdgeRt } from '../call-edge';
import type { FlowSimulation } from '../flow.runtime';
import { FluidGate, type Gate, type Instance } from '../gate';
import { Bucket } from '../injector';
import { firstAttempt, Port } from '../mean-field.port';
import { EPS, EV_FLUSH, EV_SERVICE_END, EV_SOURCE, EV_VISIT_FLUSH, Status } from '../runtime.constants';
import type { PoolStats } from '../run.stats';
import type { Source, SourceToken } from '../source';
import type { LookasideRt, Station } from '../station';
import type { Duration } from '../value.compiler';
import { Root, type Visit } from '../visit';
import type { FlowMode } from './flow-mode';

// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

/** Visits of one class due in one step, fired together at their mass-weighted mean time. */
export class VisitBucket {
  constructor(
    readonly rt: FlowSimulation,
    readonly mode: FluidFlowMode,
    readonly window: number,
    readonly kind: number,
    readonly visit: Visit,
    public tSum: number,
  ) {}

  /** EV_VISIT_FLUSH. */
  fire(): void {
    this.mode.flushVisit(this.rt, this);
  }
}

/**
 * Fluid mode: a token is a cohort. Sources emit one cohort per step; every random choice
 * splits the cohort's mass instead of drawing; durations take their means; one replica
 * stands for all; a call is answered through the caller edge's port (mean-field linkage).
 */
export class FluidFlowMode implements FlowMode {
  readonly kind = 'fluid' as const;
  readonly allowsRateRegime = true;
  readonly collapsesRepeats = true;
  private readonly roots = new Map<string, Root>();
  /** Merge buckets: window → class → bucket. */
  private readonly visitBuckets = new Map<number, Map<number, VisitBucket>>();

  instancesFor(): number {
    return 1;
  }

  replicaScale(replicas: number): number {
    return replicas;
  }

  createGate(rt: FlowSimulation, slots: Evaluate, limit: Evaluate, maxWait: Evaluate | null, dropAbandoned: boolean, pool: PoolStats | null): Gate {
    return new FluidGate(rt, slots, limit, maxWait, dropAbandoned, pool);
  }

  createPort(rt: FlowSimulation, edge: EdgeRt, source: Source | null): Port {
    return new Port(rt, edge, source);
  }

  /** Lineage objects are shared so that cohorts of the same lineage can merge. */
  rootFor(rt: FlowSimulation, source: number, depth: number): Root {
    const key = `${source}:${depth}`;
    let r = this.roots.get(key);
    if (!r) {
      r = new Root(rt.newId(), source, depth);
      this.roots.set(key, r);
    }
    return r;
  }

  /** Visits of the same class due in the same step merge into one cohort. */
  scheduleVisit(rt: FlowSimulation, time: number, kind: number, v: Visit): void {
    const w = Math.floor(time / rt.step);
    // Due within the step already under way: merging would mean waiting, so fire as is.
    if (w * rt.step <= rt.kernel.now) {
      rt.kernel.schedule(time, kind, v);
      return;
    }
    const key = v.classKey() * 4 + (kind === EV_SERVICE_END ? 0 : 1);
    let m = this.visitBuckets.get(w);
    if (m === undefined) {
      m = new Map();
      this.visitBuckets.set(w, m);
    }
    const b = m.get(key);
    if (b !== undefined) {
      b.tSum += v.mass * time;
      b.visit.absorb(v);
      return;
    }
    const nb = new VisitBucket(rt, this, w, kind, v, v.mass * time);
    m.set(key, nb);
    rt.kernel.schedule(w * rt.step, EV_VISIT_FLUSH, nb);
  }

  flushVisit(rt: FlowSimulation, b: VisitBucket): void {
    this.visitBuckets.delete(b.window);
    const v = b.visit;
    if (v.dead || v.mass <= 0) return;
    rt.kernel.schedule(Math.max(rt.kernel.now, b.tSum / v.mass), b.kind, v);
  }

  duration(d: Duration, _rng: RandomStream): number {
    return d.mean();
  }

  throttle(st: Station, v: Visit, a: number): boolean {
    const m = v.mass;
    const rejected = m * (1 - a);
    if (rejected >= m - EPS) {
      st.reject(v, Status.throttled);
      return false;
    }
    if (rejected > EPS) st.reject(v.splitOff(rejected), Status.throttled);
    return true;
  }

  partialCall(st: Station, v: Visit, edge: EdgeRt, p: number, i: number): boolean {
    if (p <= 0) return false;
    const skip = v.splitOff(v.mass * (1 - p));
    st.startCall(v, edge);
    st.continueAt(skip, i + 1);
    return true;
  }

  choose(st: Station, v: Visit, branches: EdgeRt[], i: number): void {
    const m = v.mass;
    let rest: Visit | null = v;
    for (const edge of branches) {
      const p = edge.probability();
      if (!(p > 0)) continue;
      const x = m * p;
      if (x >= rest.mass - EPS * Math.max(1, m)) {
        st.startCall(rest, edge);
        rest = null;
        break;
      }
      st.startCall(rest.splitOff(x), edge);
    }
    if (rest !== null) st.continueAt(rest, i + 1);
  }

  failShare(st: Station, v: Visit, e: number): void {
    if (e >= 1) {
      v.status = st.errorStatus;
      return;
    }
    const failed = v.splitOff(v.mass * e);
    failed.status = st.errorStatus;
    st.respond(failed);
  }

  emitMass(st: Station, v: Visit, p: number): number {
    return v.mass * p * st.scale;
  }

  lookup(st: Station, v: Visit, la: LookasideRt, K: number): void {
    const now = st.rt.kernel.now;
    const cache = la.cache;
    const scale = st.scale;
    const h = cache.meanHitProb();
    const pNone = Math.pow(h, K);
    const m = v.mass;
    cache.stats.lookups.add(now, m * K * scale);
    cache.stats.hits.add(now, m * K * h * scale);
    const missMass = m * (1 - pNone);
    if (missMass <= EPS) {
      st.continueAt(v, 0);
      return;
    }
    const missing = (K * (1 - h)) / (1 - pNone);
    const work = la.missAll() >= 0.5 ? K : missing;
    if (m - missMass > EPS) {
      const hit = v.splitOff(m - missMass);
      v.missing = missing;
      st.callLookaside(v, work);
      st.continueAt(hit, 0);
      return;
    }
    v.missing = missing;
    st.callLookaside(v, work);
  }

  fillCache(cache: CacheRt, v: Visit, scale: number): void {
    cache.fillMass(v.mass * v.missing * scale);
  }

  startCall(rt: FlowSimulation, v: Visit, edge: EdgeRt, work: number): void {
    (edge.port as Port).send(v, firstAttempt(v.mass), 0, 0, rt.kernel.now, work);
  }

  stopAbandoned(st: Station, v: Visit): Visit | null {
    // The share nobody awaits stops here instead of making its calls.
    const gone = (v.parent as Port).claimOrphaned(v.mass, v.arrivedAt);
    if (gone >= v.mass - EPS) {
      st.respond(v, true);
      return null;
    }
    if (gone > EPS) st.respond(v.splitOff(gone), true);
    // A caller further up gave up: its caller still waits, so it answers now, without the calls.
    if (this.abandonedAbove(v, v.mass) > 0) {
      st.respond(v);
      return null;
    }
    return v;
  }

  abandonedMass(v: Visit, m: number): number {
    return (v.parent as Port).claimOrphaned(m, v.arrivedAt);
  }

  abandonedAbove(v: Visit, m: number): number {
    return v.station.rt.kernel.now >= v.giveUpAbove() - 1e-9 ? m : 0;
  }

  answerCaller(v: Visit, m: number, abandoned: number): void {
    if (m - abandoned > EPS) (v.parent as Port).childResult(m - abandoned, v.status, v);
  }

  answer(v: Visit, m: number, status: number): void {
    const port = v.parent as Port;
    const live = m - port.claimOrphaned(m, v.arrivedAt);
    if (live > EPS) port.childResult(live, status, v);
  }

  startOpenSource(src: Source): void {
    const rt = src.rt;
    rt.kernel.schedule(rt.step / 2, EV_SOURCE, src.token);
  }

  startClosedSource(src: Source): void {
    src.rt.injector.user(src, src.users, (src.think as Duration).mean());
  }

  /** Fluid sources read their rate at every step: nothing to reschedule. */
  rescheduleSource(): void {}

  fireSource(src: Source, token: SourceToken): void {
    const rt = src.rt;
    const now = rt.kernel.now;
    const mass = src.currentRate() * rt.step;
    const port = src.edge.port as Port;
    const due = port.takeDueRetries(Math.floor(now / rt.step));
    if (due === null) {
      if (mass > EPS) src.newRequest(mass);
    } else {
      // New requests and retries due now leave together, as one cohort.
      src.stats.offered.add(now, mass);
      due.attempts[1] = (due.attempts[1] ?? 0) + mass;
      const total = due.mass + mass;
      port.send(null, due.attempts, 0, 0, (due.t0Sum + mass * now) / total, src.work());
    }
    rt.kernel.schedule(now + rt.step, EV_SOURCE, token);
  }

  /** Contributions due in the same step merge into one cohort, injected at their mean time. */
  inject(rt: FlowSimulation, kind: number, source: Source | null, station: Station | null, mass: number, attemptNo: number, depth: number, sourceIndex: number, t0: number, t: number): void {
    const injector = rt.injector;
    const d = depth < injector.depthCap ? depth : injector.depthCap;
    const w = Math.floor(t / rt.step);
    const key = `${kind}|${source ? source.index : -1}|${station ? station.index : -1}|${attemptNo}|${d}|${sourceIndex}|${w}`;
    let b = injector.buckets.get(key);
    if (!b) {
      b = new Bucket(key, kind, source, station, attemptNo, d, sourceIndex);
      injector.buckets.set(key, b);
      rt.kernel.schedule(Math.max(rt.kernel.now, w * rt.step), EV_FLUSH, b);
    }
    b.mass += mass;
    b.tSum += mass * t;
    b.t0Sum += mass * t0;
  }

  emitVisitMass(st: Station, mass: number): number {
    return mass / st.replicas;
  }

  emitInstance(st: Station): Instance {
    return st.instances[0];
  }
}
