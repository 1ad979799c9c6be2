import type { RandomStream } from '../../kernel/random.stream';
import type { Evaluate } from '../../spec/expression.parser';
import type { CacheRt } from '../cache';
import { Call, type Attempt, type EdgeRt } from '../call-edge';
import type { FlowSimulation } from '../flow.runtime';
import { DesGate, type Gate, type Instance } from '../gate';
import { EV_INJECT, Status } from '../runtime.constants';
import { Packet } from '../injector';
import type { PoolStats } from '../run.stats';
import { SourceToken, type Source } from '../source';
import type { LookasideRt, Station } from '../station';
import type { Duration } from '../value.compiler';
import { Root, type Visit } from '../visit';
import type { FlowMode } from './flow-mode';

/**
 * Discrete-event mode: every request is a token of mass 1; every random choice is drawn
 * from the block's own seeded stream; a call waits for its attempt (Call, Attempt).
 */
export class DesFlowMode implements FlowMode {
  readonly kind = 'des' as const;
  readonly allowsRateRegime = false;
  readonly collapsesRepeats = false;

  instancesFor(replicas: number): number {
    return replicas;
  }

  replicaScale(): number {
    return 1;
  }

  createGate(rt: FlowSimulation, slots: Evaluate, limit: Evaluate, maxWait: Evaluate | null, dropAbandoned: boolean, pool: PoolStats | null): Gate {
    return new DesGate(rt, slots, limit, maxWait, dropAbandoned, pool);
  }

  createPort(): null {
    return null;
  }

  rootFor(rt: FlowSimulation, source: number, depth: number): Root {
    return new Root(rt.newId(), source, depth);
  }

  scheduleVisit(rt: FlowSimulation, time: number, kind: number, v: Visit): void {
    rt.kernel.schedule(time, kind, v);
  }

  duration(d: Duration, rng: RandomStream): number {
    return d.isDeterministic ? d.mean() : d.sample(rng);
  }

  throttle(st: Station, v: Visit, a: number): boolean {
    if (st.rng.next() >= a) {
      st.reject(v, Status.throttled);
      return false;
    }
    return true;
  }

  partialCall(st: Station, v: Visit, edge: EdgeRt, p: number): boolean {
    if (p <= 0 || st.rng.next() >= p) return false;
    st.startCall(v, edge);
    return true;
  }

  choose(st: Station, v: Visit, branches: EdgeRt[], i: number): void {
    const u = st.rng.next();
    let acc = 0;
    for (const edge of branches) {
      acc += edge.probability();
      if (u < acc) {
        st.startCall(v, edge);
        return;
      }
    }
    st.continueAt(v, i + 1);
  }

  failShare(st: Station, v: Visit, e: number): void {
    if (e >= 1 || st.rng.next() < e) v.status = st.errorStatus;
  }

  emitMass(st: Station, _v: Visit, p: number): number {
    if (p <= 0 || (p < 1 && st.rng.next() >= p)) return 0;
    return 1;
  }

  lookup(st: Station, v: Visit, la: LookasideRt, K: number): void {
    const now = st.rt.kernel.now;
    const cache = la.cache;
    let missing = 0;
    let nodes: number[] | null = null;
    for (let k = 0; k < K; k++) {
      const node = cache.rng.int(cache.nodes);
      if (cache.rng.next() < cache.hitProb(node)) continue;
      missing++;
      (nodes ??= []).push(node);
    }
    cache.stats.lookups.add(now, K);
    cache.stats.hits.add(now, K - missing);
    if (missing === 0) {
      st.continueAt(v, 0);
      return;
    }
    v.missing = missing;
    v.missNodes = nodes;
    st.callLookaside(v, la.missAll() >= 0.5 ? K : missing);
  }

  fillCache(cache: CacheRt, v: Visit): void {
    if (v.missNodes) cache.fillNodes(v.missNodes);
  }

  startCall(rt: FlowSimulation, v: Visit, edge: EdgeRt, work: number): void {
    new Call(rt, edge, v, null, v.root, work).startAttempt(v.mass, 0, 1);
  }

  stopAbandoned(st: Station, v: Visit): Visit | null {
    if (v.isAbandoned()) {
      st.respond(v);
      return null;
    }
    return v;
  }

  abandonedMass(v: Visit, m: number): number {
    return v.isAbandoned() ? m : 0;
  }

  abandonedAbove(): number {
    return 0;
  }

  answerCaller(v: Visit, m: number): void {
    (v.parent as Attempt).childResult(m, v.status);
  }

  answer(v: Visit, m: number, status: number): void {
    (v.parent as Attempt).childResult(m, status);
  }

  startOpenSource(src: Source): void {
    src.scheduleNext(0);
  }

  startClosedSource(src: Source): void {
    const think = src.think as Duration;
    for (let u = 0; u < src.users; u++) src.rt.injector.user(src, 1, this.duration(think, src.rng));
  }

  rescheduleSource(src: Source): void {
    src.gen++;
    // A new token makes the arrival already in the queue stale.
    src.token = new SourceToken(src, src.gen);
    src.scheduleNext(src.rt.kernel.now);
  }

  fireSource(src: Source): void {
    src.newRequest(1);
    src.scheduleNext(src.rt.kernel.now);
  }

  inject(rt: FlowSimulation, kind: number, source: Source | null, station: Station | null, mass: number, attemptNo: number, depth: number, sourceIndex: number, t0: number, t: number): void {
    rt.kernel.schedule(t, EV_INJECT, new Packet(kind, source, station, mass, attemptNo, depth, sourceIndex, t0));
  }

  emitVisitMass(_st: Station, mass: number): number {
    return mass;
  }

  emitInstance(st: Station): Instance {
    return st.pickInstance(st.rng);
  }
}
