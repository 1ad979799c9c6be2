import { EPS, EV_INJECT } from './runtime.constants';
import { Call } from './call-edge';
import type { FlowSimulation } from './flow.runtime';
import type { Source } from './source';
import type { Station } from './station';
import { Visit } from './visit';

/** The emitter: every request without a waiting caller enters here (arrivals, client retries, emits, users). */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

export const P_ARRIVAL = 0;
const P_RETRY = 1;
const P_EMIT = 2;
const P_USER = 3;

export class Packet {
  constructor(
    readonly kind: number,
    readonly source: Source | null,
    readonly station: Station | null,
    readonly mass: number,
    readonly attemptNo: number,
    readonly depth: number,
    readonly sourceIndex: number,
    readonly t0: number,
  ) {}
}

export class Bucket {
  mass = 0;
  tSum = 0;
  t0Sum = 0;
  constructor(
    readonly key: string,
    readonly kind: number,
    readonly source: Source | null,
    readonly station: Station | null,
    readonly attemptNo: number,
    readonly depth: number,
    readonly sourceIndex: number,
  ) {}
}

/**
 * Entry point of every request that has no waiting caller: source arrivals, retries
 * decided by a source's client, emitted events, closed users coming back. In fluid mode
 * contributions due in the same step are merged into one cohort injected at their
 * mass-weighted mean time, which bounds the number of cohorts without shifting load in time.
 */
export class Injector {
  /** Fluid: contributions due in the same step, by class. */
  readonly buckets = new Map<string, Bucket>();
  depthCap = 0;

  constructor(private readonly rt: FlowSimulation) {}

  arrival(source: Source, mass: number, t: number): void {
    this.rt.kernel.schedule(t, EV_INJECT, new Packet(P_ARRIVAL, source, null, mass, 1, 0, source.index, t));
  }

  retry(source: Source, mass: number, attemptNo: number, t0: number, t: number): void {
    this.add(P_RETRY, source, null, mass, attemptNo, 0, source.index, t0, t);
  }

  user(source: Source, mass: number, t: number): void {
    this.add(P_USER, source, null, mass, 1, 0, source.index, t, t);
  }

  emit(station: Station, mass: number, t: number, depth: number, sourceIndex: number): void {
    this.add(P_EMIT, null, station, mass, 1, depth, sourceIndex, t, t);
  }

  private add(
    kind: number,
    source: Source | null,
    station: Station | null,
    mass: number,
    attemptNo: number,
    depth: number,
    sourceIndex: number,
    t0: number,
    t: number,
  ): void {
    this.rt.mode.inject(this.rt, kind, source, station, mass, attemptNo, depth, sourceIndex, t0, t);
  }

  flush(b: Bucket): void {
    this.buckets.delete(b.key);
    if (b.mass <= EPS) return;
    const rt = this.rt;
    const t = Math.max(rt.kernel.now, b.tSum / b.mass);
    const p = new Packet(b.kind, b.source, b.station, b.mass, b.attemptNo, b.depth, b.sourceIndex, b.t0Sum / b.mass);
    if (t <= rt.kernel.now) this.inject(p);
    else rt.kernel.schedule(t, EV_INJECT, p);
  }

  inject(p: Packet): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (p.kind === P_EMIT) {
      const st = p.station as Station;
      st.arrive(new Visit(rt.mode.emitVisitMass(st, p.mass), st, rt.mode.emitInstance(st), null, rt.rootFor(p.sourceIndex, p.depth), 1, now));
      return;
    }
    const source = p.source as Source;
    if (p.kind === P_RETRY) {
      const call = new Call(rt, source.edge, null, source, source.root, source.work());
      call.t0 = p.t0;
      call.startAttempt(p.mass, 0, p.attemptNo);
      return;
    }
    source.newRequest(p.mass);
  }
}
