import * as constants from './runtime.constants';
import type { Port } from './mean-field.port';
import type { Attempt } from './call-edge';
import type { Instance } from './gate';
import type { Source } from './source';
import type { LookasideRt, Station } from './station';

/** A visit: one request (DES) or one cohort of requests (fluid) at one station, and its lineage. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
// The same for the runtime's constants: transpiled to CommonJS, an imported name is a getter
// on the module object, read at every use; bound once here, it is a local constant.
const { EPS, OK, STEP_LOOKASIDE, S_DONE, S_NEW } = constants;
const Infinity = globalThis.Infinity;

/** The DES attempt waiting for a visit; null for none, or for a fluid port. */
function attemptOf(parent: Attempt | Port | null): Attempt | null {
  return parent !== null && parent.kind === 'attempt' ? parent : null;
}

/**
 * Fluid: when the callers up a cohort's call chain give up (immutable, shared by the pieces
 * of a split cohort). `wait`: the deadline of its own caller's wait in the port (at the
 * deadline sweep); `up`: the earliest deadline of the waits further up (its caller's,
 * its caller's caller's, ...). Infinity: none.
 */
export class Deadlines {
  constructor(
    readonly wait: number,
    readonly up: number,
  ) {}
}

/** Fluid: one deadline of a cohort merged from a share `a` with deadline `x` and the rest with `y`. */
function mergeDeadline(x: number, y: number, a: number): number {
  if (x === y) return x;
  if (x < Infinity && y < Infinity) return x * a + y * (1 - a);
  // Only one part has a deadline: the larger share decides (a cohort gives up as a whole).
  return a >= 0.5 ? x : y;
}

function mergeDeadlines(x: Deadlines | null, y: Deadlines | null, a: number): Deadlines | null {
  const wait = mergeDeadline(x === null ? Infinity : x.wait, y === null ? Infinity : y.wait, a);
  const up = mergeDeadline(x === null ? Infinity : x.up, y === null ? Infinity : y.up, a);
  return wait === Infinity && up === Infinity ? null : new Deadlines(wait, up);
}

/** What an emitted or retried request inherits from the request tree it came from. */
export class Root {
  constructor(
    /** Unique within its run (FlowSimulation.newId): a key of lineage maps, never a global count. */
    readonly id: number,
    readonly source: number,
    readonly depth: number,
  ) {}
}

export class Visit {
  enqueuedAt: number;
  status = OK;
  step = -1;
  state = S_NEW;
  missing = 0;
  missNodes: number[] | null = null;
  dead = false;
  rate = false;
  /** Fluid: sequential repeats served back to back by a simple unlimited station. */
  repeat = 1;
  /** Fluid: number standing for (station, instance, caller port, lineage); -1 until needed. */
  prefix = -1;
  /**
   * DES: the source waiting for this visit when its call has no client policy (a plain edge:
   * no timeout, no retries, one callee). Such a call needs no Call or Attempt; `parent` is null.
   */
  client: Source | null = null;
  /** Fluid: when the callers up its chain give up; null when none has a timeout (and in DES). */
  deadlines: Deadlines | null = null;

  constructor(
    public mass: number,
    readonly station: Station,
    readonly inst: Instance,
    /** DES: the attempt waiting for this visit. Fluid: the caller's port (mean-field linkage). */
    readonly parent: Attempt | Port | null,
    readonly root: Root,
    public work: number,
    public arrivedAt: number,
  ) {
    this.enqueuedAt = arrivedAt;
  }

  /**
   * Fluid mode: visits with equal keys are interchangeable (same station, instance, step,
   * caller port, lineage and outcome) and are merged into one cohort.
   */
  classKey(): number {
    if (this.prefix < 0) this.prefix = this.station.rt.prefixOf(this);
    const local = ((((this.step + 2) * 8 + this.state) * 1024 + (this.status & 1023)) * 2 + (this.rate ? 1 : 0)) * 128 + (this.repeat & 127);
    return this.prefix * 1073741824 + local;
  }

  /** Fluid mode: takes over another cohort of the same class, averaging its clocks. */
  absorb(o: Visit): void {
    const m = this.mass + o.mass;
    if (m <= 0) return;
    const a = this.mass / m;
    const b = o.mass / m;
    this.arrivedAt = this.arrivedAt * a + o.arrivedAt * b;
    this.enqueuedAt = this.enqueuedAt * a + o.enqueuedAt * b;
    this.work = this.work * a + o.work * b;
    this.missing = this.missing * a + o.missing * b;
    if (this.deadlines !== o.deadlines) this.deadlines = mergeDeadlines(this.deadlines, o.deadlines, a);
    this.mass = m;
    o.mass = 0;
    o.state = S_DONE;
    if (this.station.registry) this.station.registry.delete(o);
  }

  /** Detaches mass `x` into a new visit at the same point of its journey (fluid mode). */
  splitOff(x: number): Visit {
    const p = new Visit(x, this.station, this.inst, this.parent, this.root, this.work, this.arrivedAt);
    p.enqueuedAt = this.enqueuedAt;
    p.status = this.status;
    p.step = this.step;
    p.state = this.state;
    p.missing = this.missing;
    p.rate = this.rate;
    p.repeat = this.repeat;
    p.prefix = this.prefix;
    p.deadlines = this.deadlines;
    this.mass -= x;
    if (this.station.registry) this.station.registry.add(p);
    return p;
  }

  /**
   * Fluid: when a caller further up than its own gives up (Infinity: never). Past it, the
   * visit's work is still answered to its caller, but nobody at the top waits for it.
   */
  giveUpAbove(): number {
    return this.deadlines === null ? Infinity : this.deadlines.up;
  }

  /** DES: true when nobody up the call chain is still waiting for this visit. */
  isAbandoned(): boolean {
    if (this.dead) return true;
    let a = attemptOf(this.parent);
    while (a !== null) {
      if (a.abandoned) return true;
      const pv = a.call.parentVisit;
      if (pv === null) return false;
      if (pv.dead) return true;
      a = attemptOf(pv.parent);
    }
    return false;
  }

  /** Earliest deadline of any attempt up the call chain. */
  deadline(): number {
    let d = Infinity;
    let a = attemptOf(this.parent);
    while (a !== null) {
      if (a.deadline < d) d = a.deadline;
      const pv = a.call.parentVisit;
      if (pv === null) break;
      a = attemptOf(pv.parent);
    }
    return d;
  }

  onCallResult(x: number, status: number): void {
    if (this.dead) return;
    const v = this.mass - x > EPS * Math.max(1, this.mass) ? this.splitOff(x) : this;
    const station = this.station;
    if (v.step === STEP_LOOKASIDE) {
      const la = station.lookaside as LookasideRt;
      if (status === OK) {
        station.rt.mode.fillCache(la.cache, v, station.scale);
        station.continueAt(v, 0);
      } else if (la.edge.onErrorIgnore) {
        station.continueAt(v, 0);
      } else {
        v.status = status;
        station.respond(v);
      }
      return;
    }
    const edge = station.calls[v.step];
    if (status !== OK && !edge.onErrorIgnore) {
      v.status = status;
      station.finish(v);
      return;
    }
    station.continueAt(v, edge.nextStep);
  }
}
