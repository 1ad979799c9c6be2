import { RandomStream } from '../kernel/random.stream';
import { SimulationKernel, type RunBudget } from '../kernel/simulation.kernel';
import type { Evaluate } from '../spec/expression.parser';
import type {
  CallSpec,
  ClientPolicySpec,
  ControllerEventSpec,
  ModelSpec,
  RetryCondition,
  StationSpec,
} from '../spec/model-spec.types';
import { Domains } from '../spec/model-spec.validator';
import { Counter, Level, TimeGrid } from './probe.recorder';
import {
  EPS,
  EV_CONTROL,
  EV_FLUSH,
  EV_INJECT,
  EV_LINGER_END,
  EV_QUEUE_DEADLINE,
  EV_RATE_START,
  EV_RETRY,
  EV_RETRY_FLUSH,
  EV_SERVICE_END,
  EV_SOURCE,
  EV_SOURCE_RATE,
  EV_TICK,
  EV_TIMEOUT,
  EV_VISIT_FLUSH,
  EV_WAIT_DEADLINE,
  MAX_GUARD_DEPTH,
  MAX_SYNC_DEPTH,
  OK,
  STEP_LOOKASIDE,
  S_CALLING,
  S_DONE,
  S_HUNG,
  S_LINGER,
  S_NEW,
  S_QUEUED,
  S_SERVICE,
  Status,
} from './runtime.constants';
import { CacheStats, EdgeStats, PoolStats, SourceStats, StationStats } from './run.stats';
import { firstAttempt, Port, type RetryBucket } from './mean-field.port';

import { checkedNow, compileDuration, compileValue, type Duration, ParameterStore } from './value.compiler';

// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
const Infinity = globalThis.Infinity;
const Number = globalThis.Number;
const Array = globalThis.Array;

/*
 * One runtime serves both engine modes. In DES mode every request is a token of mass 1
 * and random choices are drawn. In fluid mode a token is a cohort: sources emit one
 * cohort per step, and every random choice splits the cohort's mass deterministically
 * instead of drawing (a 30 % error rate sends 30 % of the mass down the error path).
 * Service times use their means, and a station whose queue is not empty admits waiting
 * mass once per step, which bounds how finely cohorts get cut. The block semantics are
 * the same code in both modes, which is what makes the two comparable.
 */

/** What an emitted or retried request inherits from the request tree it came from. */
class Root {
  private static next = 0;
  readonly id = Root.next++;
  constructor(
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
  startClock = 0;
  /** Fluid: sequential repeats served back to back by a simple unlimited station. */
  repeat = 1;
  /** Fluid: number standing for (station, instance, caller port, lineage); -1 until needed. */
  prefix = -1;

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
    this.startClock = this.startClock * a + o.startClock * b;
    this.work = this.work * a + o.work * b;
    this.missing = this.missing * a + o.missing * b;
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
    p.startClock = this.startClock;
    p.repeat = this.repeat;
    p.prefix = this.prefix;
    this.mass -= x;
    if (this.station.registry) this.station.registry.add(p);
    return p;
  }

  /** DES: true when nobody up the call chain is still waiting for this visit. */
  isAbandoned(): boolean {
    if (this.dead) return true;
    let a = this.parent as Attempt | null;
    while (a !== null) {
      if (a.abandoned) return true;
      const pv = a.call.parentVisit;
      if (pv === null) return false;
      if (pv.dead) return true;
      a = pv.parent as Attempt | null;
    }
    return false;
  }

  /** Earliest deadline of any attempt up the call chain. */
  deadline(): number {
    if (this.station.rt.fluid) return Infinity;
    let d = Infinity;
    let a = this.parent as Attempt | null;
    while (a !== null) {
      if (a.deadline < d) d = a.deadline;
      const pv = a.call.parentVisit;
      if (pv === null) break;
      a = pv.parent as Attempt | null;
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
        la.cache.fill(v, station.scale);
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
    station.continueAt(v, v.step + 1);
  }
}

/** Fluid rate regime: a cohort waiting for its planned start. */
class RatePlan {
  cancelled = false;
  constructor(
    readonly visit: Visit,
    readonly inst: Instance,
    readonly start: number,
    readonly hold: number,
    readonly service: number,
  ) {}
}

export class Instance {
  readonly hung: Visit[] = [];
  /** Fluid rate regime: time until which this instance's capacity is committed. */
  vft = 0;
  /** Fluid rate regime: the service rate (slots / mean hold) the committed times were planned at. */
  plannedRate = 0;
  /** Fluid rate regime: cohorts planned to start later, in start order. */
  planned: RatePlan[] = [];
  constructor(
    readonly index: number,
    readonly gate: Gate,
  ) {}
}

/** Slots and the queue in front of them; one per station instance, or shared (a pool). */
export class Gate {
  holding = 0;
  /** FIFO; entries that left early stay as tombstones (state no longer queued) until the head. */
  queue: Visit[] = [];
  qHead = 0;
  queueMass = 0;
  private live = 0;
  override: number | null = null;
  tickScheduled = false;
  releasedMass = 0;
  releasedTimeSum = 0;

  constructor(
    readonly rt: FlowSimulation,
    readonly slotsFn: Evaluate,
    readonly limitFn: Evaluate,
    readonly maxWaitFn: Evaluate | null,
    readonly dropAbandoned: boolean,
    readonly poolStats: PoolStats | null,
  ) {}

  slots(): number {
    return this.override ?? this.slotsFn();
  }

  /** Visits really waiting (tombstones excluded). */
  get queueLength(): number {
    return this.live;
  }

  offer(v: Visit): void {
    const rt = this.rt;
    if (this.queueLength === 0) {
      const free = this.slots() - this.holding;
      if (free >= v.mass - EPS) {
        this.admit(v, rt.kernel.now);
        return;
      }
      if (rt.fluid && free > EPS) this.admit(v.splitOff(free), rt.kernel.now);
    }
    this.enqueue(v);
  }

  private enqueue(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    // Fluid mode enforces the limit at the next tick (trimTail), sharing the rejections
    // among the cohorts of a step instead of favouring whichever arrived first.
    if (!rt.fluid && this.queueMass + v.mass > this.limitFn() + EPS) {
      v.station.reject(v, Status.shed);
      return;
    }
    v.state = S_QUEUED;
    v.enqueuedAt = now;
    v.station.stats.queue.change(now, v.mass);
    if (this.poolStats) this.poolStats.queue.change(now, v.mass);
    this.queueMass += v.mass;
    if (rt.fluid && this.live > 0) {
      // Same class queued in the same step: one cohort.
      const tail = this.queue[this.queue.length - 1];
      if (tail.state === S_QUEUED && !tail.dead && Math.floor(tail.enqueuedAt / rt.step) === Math.floor(now / rt.step) && tail.classKey() === v.classKey()) {
        tail.absorb(v);
        return;
      }
    }
    this.queue.push(v);
    this.live++;
    if (!rt.fluid && this.dropAbandoned) {
      // The caller gives up at its deadline; the request leaves the queue then, not when it
      // would have reached the head, so the queue shows who is really still waiting.
      const deadline = v.deadline();
      if (deadline < Infinity) rt.kernel.schedule(deadline, EV_QUEUE_DEADLINE, v);
    }
    if (rt.fluid) this.ensureTick();
  }

  /** Accounts for a queued visit leaving the queue; its array slot is cleared lazily. */
  unqueue(v: Visit): void {
    this.unqueuePart(v, v.mass);
    this.live--;
    if (this.live === 0) {
      this.queue = [];
      this.qHead = 0;
      this.queueMass = 0;
    }
  }

  /** Part of a queued cohort leaves (fluid partial admission); the rest keeps its place. */
  private unqueuePart(v: Visit, mass: number): void {
    const now = this.rt.kernel.now;
    this.queueMass -= mass;
    if (this.queueMass < EPS) this.queueMass = 0;
    v.station.stats.queue.change(now, -mass);
    if (this.poolStats) this.poolStats.queue.change(now, -mass);
  }

  /** Moves the head past `count` entries (already accounted for). */
  private shiftHead(count = 1): void {
    const end = Math.min(this.queue.length, this.qHead + count);
    for (let j = this.qHead; j < end; j++) this.queue[j] = undefined as unknown as Visit;
    this.qHead = end;
    if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.qHead);
      this.qHead = 0;
    }
  }

  /** Fluid: a port timed out; its oldest queued children here are dropped at once. */
  cancelFrom(port: Port): void {
    for (let i = this.qHead; i < this.queue.length && port.orphan > EPS; i++) {
      const q = this.queue[i];
      if (q.state !== S_QUEUED || q.dead || q.parent !== port) continue;
      const gone = port.claimOrphaned(q.mass);
      if (gone >= q.mass - EPS) {
        this.unqueue(q);
        q.station.drop(q, Status.timeout, true);
        if (this.live === 0) return;
      } else if (gone > EPS) {
        const piece = q.splitOff(gone);
        this.unqueuePart(q, gone);
        piece.state = S_NEW;
        q.station.drop(piece, Status.timeout, true);
      }
    }
  }

  /** The caller of a queued visit gave up: drop it now (gates that drop abandoned work). */
  onQueueDeadline(v: Visit): void {
    if (v.state !== S_QUEUED || v.dead || !v.isAbandoned()) return;
    this.unqueue(v);
    v.station.drop(v, Status.timeout);
  }

  admit(v: Visit, startClock: number): void {
    const now = this.rt.kernel.now;
    const m = v.mass;
    this.holding += m;
    const st = v.station;
    st.stats.holding.change(now, m);
    const by = st.stats.holdingBy[v.root.source];
    if (by) by.change(now, m);
    if (this.poolStats) this.poolStats.holding.change(now, m);
    if (startClock < now) {
      // Fluid tick: the work really started when the slots were freed; book that time as
      // busy, not as waiting, so utilisation and queue length stay exact.
      st.stats.holding.addInterval(startClock, now, m);
      st.stats.queue.addInterval(startClock, now, -m);
      st.stats.working.addInterval(startClock, now, m);
      if (by) by.addInterval(startClock, now, m);
      if (this.poolStats) {
        this.poolStats.holding.addInterval(startClock, now, m);
        this.poolStats.queue.addInterval(startClock, now, -m);
      }
    }
    st.stats.admitted.add(now, m);
    st.stats.waitSum.add(now, m * (Math.min(now, startClock) - v.enqueuedAt));
    st.stats.waitMass.add(now, m);
    st.startService(v, startClock);
  }

  release(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const m = v.mass;
    this.holding -= m;
    if (this.holding < EPS) this.holding = 0;
    const st = v.station;
    st.stats.holding.change(now, -m);
    const by = st.stats.holdingBy[v.root.source];
    if (by) by.change(now, -m);
    if (this.poolStats) this.poolStats.holding.change(now, -m);
    if (this.queueLength === 0) return;
    if (rt.fluid) {
      this.releasedMass += m;
      this.releasedTimeSum += m * now;
      this.ensureTick();
    } else {
      this.drain();
    }
  }

  /** Fluid mode: admissions from a non-empty queue happen on the step grid. */
  ensureTick(): void {
    if (this.tickScheduled || this.queueLength === 0) return;
    this.tickScheduled = true;
    const step = this.rt.step;
    const now = this.rt.kernel.now;
    this.rt.kernel.schedule(Math.ceil(now / step + 1e-9) * step, EV_TICK, this);
  }

  tick(): void {
    this.tickScheduled = false;
    this.drain();
  }

  /** Drops the head visit if its caller is gone or it waited too long; true when dropped. */
  private dropStale(v: Visit, now: number, maxWait: number): boolean {
    if (this.dropAbandoned && this.rt.fluid && v.parent !== null) {
      // Mean-field: the caller's port knows how much of its in-flight mass nobody awaits.
      const gone = (v.parent as Port).claimOrphaned(v.mass);
      if (gone >= v.mass - EPS) {
        this.unqueue(v);
        v.station.drop(v, Status.timeout, true);
        return true;
      }
      if (gone > EPS) {
        const piece = v.splitOff(gone);
        this.unqueuePart(v, gone);
        piece.state = S_NEW;
        v.station.drop(piece, Status.timeout, true);
      }
    } else if (this.dropAbandoned && !this.rt.fluid && v.isAbandoned()) {
      this.unqueue(v);
      v.station.drop(v, Status.timeout);
      return true;
    }
    if (now - v.enqueuedAt > maxWait) {
      this.unqueue(v);
      v.station.drop(v, Status.shed);
      return true;
    }
    return false;
  }

  /** Admits from the head of the queue while slots are free. */
  drain(): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const fluid = rt.fluid;
    // Slots freed between two ticks were idle until now; starting the admitted work at the
    // mean release time keeps the station's throughput what it would be without the grid.
    let startClock = now;
    if (fluid && this.releasedMass > 0) {
      startClock = this.releasedTimeSum / this.releasedMass;
      this.releasedMass = 0;
      this.releasedTimeSum = 0;
    }
    const slots = this.slots();
    const maxWait = this.maxWaitFn ? this.maxWaitFn() : Infinity;
    const step = rt.step;
    while (this.queueLength > 0) {
      const free = slots - this.holding;
      if (fluid ? free <= EPS : free < 1 - 1e-9) break;
      const head = this.queue[this.qHead];
      if (head.state !== S_QUEUED || head.dead) {
        this.shiftHead();
        continue;
      }
      if (this.dropStale(head, now, maxWait)) continue;
      if (!fluid) {
        this.shiftHead();
        this.unqueue(head);
        this.admit(head, now);
        continue;
      }
      // Cohorts queued in the same step arrived interleaved: serve them in proportion, not
      // one after the other, or the first source in the spec would always get in first.
      const w = Math.floor(head.enqueuedAt / step + 1e-9);
      let total = 0;
      let end = this.qHead;
      for (; end < this.queue.length; end++) {
        const q = this.queue[end];
        if (q.state !== S_QUEUED || q.dead) continue;
        if (Math.floor(q.enqueuedAt / step + 1e-9) !== w) break;
        if (end > this.qHead && this.dropStale(q, now, maxWait)) continue;
        total += q.mass;
      }
      const clock = startClock > head.enqueuedAt ? startClock : head.enqueuedAt;
      if (total <= free + EPS) {
        const group = this.queue.slice(this.qHead, end);
        for (const q of group) {
          if (q.state !== S_QUEUED || q.dead) continue;
          this.unqueue(q);
          this.admit(q, clock);
        }
        if (this.live > 0) this.shiftHead(end - this.qHead);
        continue;
      }
      const frac = free / total;
      for (let j = this.qHead; j < end; j++) {
        const q = this.queue[j];
        if (q.state !== S_QUEUED || q.dead) continue;
        const piece = q.splitOff(q.mass * frac);
        this.unqueuePart(q, piece.mass);
        this.admit(piece, clock);
      }
      break;
    }
    if (fluid && this.live > 0) {
      const excess = this.queueMass - this.limitFn();
      if (excess > EPS) this.trimTail(excess);
    }
  }

  /** Fluid queue limit: sheds `excess` from the newest step's cohorts, in proportion. */
  private trimTail(excess: number): void {
    const step = this.rt.step;
    let end = this.queue.length;
    while (excess > EPS && this.live > 0 && end > this.qHead) {
      let start = end - 1;
      while (start >= this.qHead && this.queue[start].state !== S_QUEUED) start--;
      if (start < this.qHead) break;
      const w = Math.floor(this.queue[start].enqueuedAt / step + 1e-9);
      let total = 0;
      let first = start;
      for (let j = start; j >= this.qHead; j--) {
        const q = this.queue[j];
        if (q.state !== S_QUEUED) continue;
        if (Math.floor(q.enqueuedAt / step + 1e-9) !== w) break;
        total += q.mass;
        first = j;
      }
      const group = this.queue.slice(first, start + 1);
      if (total <= excess + EPS) {
        for (const q of group) {
          if (q.state !== S_QUEUED) continue;
          this.unqueue(q);
          q.station.reject(q, Status.shed);
        }
        excess -= total;
        end = first;
        continue;
      }
      const frac = excess / total;
      for (const q of group) {
        if (q.state !== S_QUEUED) continue;
        const piece = q.splitOff(q.mass * frac);
        this.unqueuePart(q, piece.mass);
        q.station.reject(piece, Status.shed);
      }
      break;
    }
  }

}

class RetryBudget {
  private tokens: number;
  private last = 0;
  constructor(
    private readonly ratio: Evaluate,
    private readonly minPerSecond: Evaluate,
    private readonly burst: Evaluate,
  ) {
    this.tokens = burst();
  }

  private refill(now: number): void {
    const cap = this.burst();
    this.tokens = Math.min(cap, this.tokens + this.minPerSecond() * (now - this.last));
    this.last = now;
  }

  earn(now: number, mass: number): void {
    this.refill(now);
    this.tokens = Math.min(this.burst(), this.tokens + this.ratio() * mass);
  }

  /** Mass of retries allowed now (DES: all or nothing). */
  take(now: number, mass: number, fluid: boolean): number {
    this.refill(now);
    const allowed = fluid ? Math.min(mass, this.tokens) : this.tokens >= 1 ? mass : 0;
    this.tokens -= allowed;
    return allowed;
  }
}

interface Backoff {
  kind: 'none' | 'constant' | 'exponential';
  base: Evaluate;
  multiplier: Evaluate;
  max: Evaluate;
  jitter: 'none' | 'full' | 'equal';
}

/** A compiled call edge: target, probability, multiplicity and the caller's client policy. */
export class EdgeRt {
  target!: Station;
  probability: Evaluate = () => 1;
  sequential: Evaluate = () => 1;
  parallel: Evaluate = () => 1;
  /** Replicas reached per call: 1 = one (picked at random), the replica count = all. */
  fan: Evaluate = () => 1;
  timeout: Evaluate = () => 0;
  retries: Evaluate = () => 0;
  backoff: Backoff | null = null;
  retryOn: (status: number) => boolean = (s) => s >= 500;
  budget: RetryBudget | null = null;
  errorMap = new Map<number, number>();
  onErrorIgnore = false;
  work: Evaluate | null = null;
  rng!: RandomStream;
  /** Fluid mode only. */
  port: Port | null = null;

  constructor(
    readonly key: string,
    readonly stats: EdgeStats,
    /** Fluid mode: replicas the caller's representative cohort stands for (1 for a source). */
    readonly callerScale: number,
  ) {}

  /** Delay before retry number `r` (1-based); fluid mode uses the mean of the jitter. */
  delay(r: number, fluid: boolean, quantile = -1): number {
    const b = this.backoff;
    if (!b || b.kind === 'none') return 0;
    let d = b.kind === 'constant' ? b.base() : b.base() * Math.pow(b.multiplier(), r - 1);
    const max = b.max();
    if (max > 0 && d > max) d = max;
    if (b.jitter === 'none') return d;
    const u = quantile >= 0 ? quantile : fluid ? 0.5 : this.rng.next();
    return b.jitter === 'full' ? d * u : d / 2 + (d / 2) * u;
  }
}

export class Call {
  t0: number;
  constructor(
    readonly rt: FlowSimulation,
    readonly edge: EdgeRt,
    readonly parentVisit: Visit | null,
    readonly source: Source | null,
    readonly root: Root,
    readonly work: number,
  ) {
    this.t0 = rt.kernel.now;
  }

  /** `repetitions` carries a sequential call's count across its attempts (0: read it now). */
  startAttempt(mass: number, rep: number, attemptNo: number, repetitions = 0): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const edge = this.edge;
    edge.stats.attempts.add(now, mass);
    if (attemptNo > 1) edge.stats.retries.add(now, mass);
    if (this.source) {
      this.source.stats.attempts.add(now, mass);
      if (attemptNo > 1) this.source.stats.retries.add(now, mass);
    }
    if (attemptNo === 1 && edge.budget) edge.budget.earn(now, mass);
    const reps = repetitions > 0 ? repetitions : Math.max(1, Math.round(edge.sequential()));
    const att = new Attempt(this, mass, rep, attemptNo, reps);
    const timeout = edge.timeout();
    if (timeout > 0) {
      att.deadline = now + timeout;
      rt.kernel.schedule(att.deadline, EV_TIMEOUT, att);
    }
    const target = edge.target;
    const k = Math.max(1, Math.round(edge.parallel()));
    const fan = edge.fan();
    att.pending = k * fan;
    // Distinct replicas: a random offset, then consecutive ones (all of them when fan = replicas).
    const n = target.instances.length;
    const first = fan >= n ? 0 : edge.rng.int(n);
    for (let r = 0; r < fan; r++) {
      const inst = target.instances[(first + r) % n];
      for (let j = 0; j < k; j++) target.arrive(new Visit(1, target, inst, att, this.root, this.work, now));
    }
  }

  onAttemptResult(att: Attempt, x: number, status: number): void {
    const rt = this.rt;
    if (this.parentVisit !== null && this.parentVisit.dead) return;
    if (status === OK) {
      if (att.rep + 1 < att.repetitions) {
        this.startAttempt(x, att.rep + 1, 1, att.repetitions);
        return;
      }
      this.finish(x, OK);
      return;
    }
    const edge = this.edge;
    if (att.attemptNo <= edge.retries() && edge.retryOn(status)) {
      const allowed = edge.budget ? edge.budget.take(rt.kernel.now, x, rt.fluid) : x;
      if (allowed > EPS) this.scheduleRetry(allowed, att.rep, att.attemptNo + 1, att.repetitions);
      if (x - allowed > EPS) this.finish(x - allowed, status);
      return;
    }
    this.finish(x, status);
  }

  private scheduleRetry(mass: number, rep: number, attemptNo: number, repetitions: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (this.source) {
      this.source.retry(this, mass, attemptNo);
      return;
    }
    const delay = this.edge.delay(attemptNo - 1, rt.fluid);
    rt.kernel.schedule(now + delay, EV_RETRY, new RetryPacket(this, mass, rep, attemptNo, repetitions));
  }

  finish(x: number, status: number): void {
    const now = this.rt.kernel.now;
    if (status !== OK) this.edge.stats.failures.add(now, x);
    if (this.parentVisit !== null) {
      const mapped = status === OK ? OK : (this.edge.errorMap.get(status) ?? status);
      this.parentVisit.onCallResult(x, mapped);
    } else if (this.source !== null) {
      this.source.onFinished(x, status, this.t0);
    }
  }
}

class RetryPacket {
  constructor(
    readonly call: Call,
    readonly mass: number,
    readonly rep: number,
    readonly attemptNo: number,
    readonly repetitions: number,
  ) {}

  fire(): void {
    const pv = this.call.parentVisit;
    if (pv !== null && pv.dead) return;
    this.call.startAttempt(this.mass, this.rep, this.attemptNo, this.repetitions);
  }
}

/** DES: one try of a call, waiting for its child visits (several for a scatter). */
export class Attempt {
  remaining: number;
  deadline = Infinity;
  abandoned = false;
  pending = 0;
  worst = OK;
  readonly start: number;

  constructor(
    readonly call: Call,
    readonly mass: number,
    readonly rep: number,
    readonly attemptNo: number,
    readonly repetitions: number,
  ) {
    this.remaining = mass;
    this.start = call.rt.kernel.now;
  }

  childResult(x: number, status: number): void {
    if (this.abandoned || this.remaining <= EPS) return;
    if (status !== OK && this.worst === OK) this.worst = status;
    if (--this.pending === 0) this.resolve(this.remaining, this.worst);
    void x;
  }

  resolve(x: number, status: number): void {
    this.remaining -= x;
    if (this.remaining < EPS) this.remaining = 0;
    this.call.onAttemptResult(this, x, status);
  }

  onTimeout(): void {
    if (this.abandoned || this.remaining <= EPS) return;
    this.abandoned = true;
    this.call.edge.stats.timeouts.add(this.start, this.remaining);
    if (this.call.source) this.call.source.stats.timeouts.add(this.start, this.remaining);
    this.resolve(this.remaining, Status.timeout);
  }
}

class VisitBucket {
  constructor(
    readonly window: number,
    readonly kind: number,
    readonly visit: Visit,
    public tSum: number,
  ) {}
}

interface EmitRt {
  target: Station;
  probability: Evaluate;
  on: 'success' | 'failure' | 'any';
  delay: Evaluate;
  maxDepth: Evaluate;
}

interface LookasideRt {
  cache: CacheRt;
  keys: Evaluate;
  edge: EdgeRt;
  /** 1: the miss call re-reads every key; 0: only the missing ones. */
  missAll: Evaluate;
}

interface Slowdown {
  kind: 'utilisation' | 'concurrency';
  at: Evaluate;
  factor: Evaluate;
}

export class Station {
  readonly instances: Instance[] = [];
  readonly stats: StationStats;
  readonly rng: RandomStream;
  calls: EdgeRt[] = [];
  emits: EmitRt[] = [];
  lookaside: LookasideRt | null = null;
  registry: Set<Visit> | null = null;
  stopped = false;
  blackholed = false;
  rateRegime = false;
  admitOverride: number | null = null;
  errorOverride: number | null = null;
  readonly replicas: number;
  /** Fluid mode simulates one representative replica; totals are multiplied by this. */
  readonly scale: number;
  service!: Duration;
  linger!: Duration;
  serviceWork: Evaluate | null = null;
  slowdown: Slowdown | null = null;
  continueAfterTimeout = true;
  errorRate: Evaluate = () => 0;
  errorStatus = 500;
  admit: Evaluate | null = null;
  pool: Gate | null = null;

  constructor(
    readonly rt: FlowSimulation,
    readonly key: string,
    readonly index: number,
    replicas: number,
    seed: number,
  ) {
    this.replicas = replicas;
    this.scale = rt.fluid ? replicas : 1;
    this.stats = new StationStats(rt.grid, rt.percentiles.has(key));
    this.rng = new RandomStream(seed, `station:${key}`);
  }

  /** Cached by refreshCollapsible (parameters can change it). */
  collapsible = false;

  canCollapseRepeats(): boolean {
    return this.collapsible;
  }

  refreshCollapsible(): void {
    this.collapsible = (
      this.rt.fluid &&
      this.calls.length === 0 &&
      this.lookaside === null &&
      this.emits.length === 0 &&
      this.registry === null &&
      !this.rateRegime &&
      this.pool === null &&
      this.slowdown === null &&
      this.linger.isZero &&
      this.errorOverride === null &&
      this.errorRate() === 0 &&
      this.instances.every((i) => i.gate.slots() === Infinity)
    );
  }

  pickInstance(rng: RandomStream): Instance {
    return this.instances.length === 1 ? this.instances[0] : this.instances[rng.int(this.instances.length)];
  }

  arrive(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const st = this.stats;
    const m = v.mass;
    st.offered.add(now, m);
    const ob = st.offeredBy[v.root.source];
    if (ob) ob.add(now, m);
    st.arrivals += m;
    st.insideMass += m;
    st.insideArrivalSum += m * now;
    if (this.registry) this.registry.add(v);
    if (this.stopped) {
      this.reject(v, Status.stopped);
      return;
    }
    const a = this.admitOverride ?? (this.admit ? this.admit() : 1);
    if (a < 1) {
      if (!rt.fluid) {
        if (this.rng.next() >= a) {
          this.reject(v, Status.throttled);
          return;
        }
      } else {
        const rejected = m * (1 - a);
        if (rejected >= m - EPS) {
          this.reject(v, Status.throttled);
          return;
        }
        if (rejected > EPS) this.reject(v.splitOff(rejected), Status.throttled);
      }
    }
    if (this.rateRegime) this.rateArrive(v);
    else v.inst.gate.offer(v);
  }

  /**
   * Fluid rate regime, for stations whose hold is short next to the step: the instance is a
   * FIFO work queue drained at `slots / hold` requests per second. A cohort is taken as
   * spread over its step, so a station below saturation adds no waiting.
   */
  private rateArrive(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const inst = v.inst;
    const gate = inst.gate;
    const c = gate.slots();
    const st = this.stats;
    let serviceD = this.service.mean();
    if (this.serviceWork) serviceD += this.serviceWork() * v.work;
    const h = serviceD + this.linger.mean();
    if (!(c > 0) || !(h > 0)) {
      gate.offer(v);
      return;
    }
    const startBase = Math.max(inst.vft, now - rt.step / 2);
    const limit = gate.limitFn();
    if (limit < Infinity) {
      const backlog = Math.max(0, startBase - now) * (c / h);
      const room = limit - backlog;
      if (room <= EPS) {
        this.reject(v, Status.shed);
        return;
      }
      if (room < v.mass) this.reject(v.splitOff(v.mass - room), Status.shed);
    }
    const m = v.mass;
    const work = (m * h) / c;
    const meanStart = startBase + work / 2;
    const wait = meanStart > now ? meanStart - now : 0;
    if (gate.dropAbandoned) {
      const dl = v.deadline();
      if (now + wait > dl) {
        st.queue.addInterval(now, dl, m);
        st.dropped.add(now, m);
        this.depart(v, dl);
        return;
      }
    }
    inst.vft = startBase + work;
    inst.plannedRate = c / (this.service.mean() + this.linger.mean());
    const s0 = now + wait;
    if (s0 > now) {
      // Waits until its planned start; the plan moves if the capacity changes meanwhile.
      st.queue.change(now, m);
      v.state = S_QUEUED;
      v.enqueuedAt = now;
      const plan = new RatePlan(v, inst, s0, h, serviceD);
      inst.planned.push(plan);
      rt.kernel.schedule(s0, EV_RATE_START, plan);
      return;
    }
    this.rateStart(v, h, serviceD, 0);
  }

  /** Fluid rate regime: a cohort's service starts now, having waited `wait` seconds. */
  private rateStart(v: Visit, h: number, serviceD: number, wait: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const st = this.stats;
    const m = v.mass;
    st.holding.addInterval(now, now + h, m);
    st.working.addInterval(now, now + serviceD, m);
    const by = st.holdingBy[v.root.source];
    if (by) by.addInterval(now, now + h, m);
    st.admitted.add(now, m);
    st.waitSum.add(now, m * wait);
    st.waitMass.add(now, m);
    v.rate = true;
    v.state = S_SERVICE;
    rt.scheduleVisit(now + serviceD, EV_SERVICE_END, v);
  }

  /** EV_RATE_START: a planned cohort leaves the queue and starts. */
  onRatePlan(plan: RatePlan): void {
    if (plan.cancelled) return;
    const inst = plan.inst;
    const i = inst.planned.indexOf(plan);
    if (i === 0) inst.planned.shift();
    else if (i > 0) inst.planned.splice(i, 1);
    const v = plan.visit;
    const now = this.rt.kernel.now;
    this.stats.queue.change(now, -v.mass);
    this.rateStart(v, plan.hold, plan.service, now - v.enqueuedAt);
  }

  /**
   * Fluid rate regime after a capacity or parameter change: the committed backlog is worked
   * off at the new rate, so every planned start moves (time after now scales by old / new rate).
   */
  replanRates(): void {
    if (!this.rateRegime) return;
    const rt = this.rt;
    const now = rt.kernel.now;
    const h = this.service.mean() + this.linger.mean();
    for (const inst of this.instances) {
      const rate = inst.gate.slots() / h;
      const old = inst.plannedRate;
      if (!(rate > 0) || !(old > 0) || rate === old || inst.vft <= now) continue;
      const f = old / rate;
      inst.vft = now + (inst.vft - now) * f;
      inst.plannedRate = rate;
      const plans = inst.planned;
      inst.planned = [];
      for (const p of plans) {
        if (p.cancelled) continue;
        p.cancelled = true;
        const moved = new RatePlan(p.visit, inst, p.start > now ? now + (p.start - now) * f : now, p.hold, p.service);
        inst.planned.push(moved);
        rt.kernel.schedule(moved.start, EV_RATE_START, moved);
      }
    }
  }

  startService(v: Visit, startClock: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    let d = rt.fluid || this.service.isDeterministic ? this.service.mean() : this.service.sample(this.rng);
    if (this.serviceWork) d += this.serviceWork() * v.work;
    if (v.repeat > 1) {
      // Each repeat counts as an arrival, a slot-time and a completion.
      const extra = v.mass * (v.repeat - 1);
      this.stats.offered.add(now, extra);
      this.stats.arrivals += extra;
      this.stats.admitted.add(now, extra);
      this.stats.waitMass.add(now, extra);
      d *= v.repeat;
    }
    if (this.slowdown) d *= this.slowdownFactor(v.inst.gate);
    let end = now + d;
    if (rt.fluid && startClock < now) end = Math.max(now, startClock + d);
    v.state = S_SERVICE;
    this.stats.working.change(now, v.mass);
    if (end <= now && rt.syncDepth < MAX_SYNC_DEPTH) {
      // No work to wait for: continue now, without an event (bounded, so that a cycle of
      // zero-time stations cannot recurse without end).
      rt.syncDepth++;
      this.onServiceEnd(v);
      rt.syncDepth--;
      return;
    }
    rt.scheduleVisit(end, EV_SERVICE_END, v);
  }

  private slowdownFactor(gate: Gate): number {
    const s = this.slowdown as Slowdown;
    if (s.kind === 'utilisation') {
      const slots = gate.slots();
      if (!(slots < Infinity) || slots <= 0) return 1;
      const u = gate.holding / slots;
      const thr = s.at();
      return u <= thr || thr >= 1 ? 1 : 1 + (s.factor() * (u - thr)) / (1 - thr);
    }
    const knee = s.at();
    return gate.holding <= knee ? 1 : 1 + (s.factor() * (gate.holding - knee)) / knee;
  }

  onServiceEnd(v: Visit): void {
    if (v.dead) return;
    if (!v.rate) this.stats.working.change(this.rt.kernel.now, -v.mass);
    if (this.blackholed) {
      v.state = S_HUNG;
      v.inst.hung.push(v);
      return;
    }
    if (this.lookaside) this.lookup(v);
    else this.continueAt(v, 0);
  }

  private lookup(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const la = this.lookaside as LookasideRt;
    const cache = la.cache;
    const K = Math.max(1, Math.round(la.keys()));
    const scale = this.scale;
    if (!rt.fluid) {
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
        this.continueAt(v, 0);
        return;
      }
      v.missing = missing;
      v.missNodes = nodes;
      this.callLookaside(v, la.missAll() >= 0.5 ? K : missing);
      return;
    }
    const h = cache.meanHitProb();
    const pNone = Math.pow(h, K);
    const m = v.mass;
    cache.stats.lookups.add(now, m * K * scale);
    cache.stats.hits.add(now, m * K * h * scale);
    const missMass = m * (1 - pNone);
    if (missMass <= EPS) {
      this.continueAt(v, 0);
      return;
    }
    const missing = (K * (1 - h)) / (1 - pNone);
    const work = la.missAll() >= 0.5 ? K : missing;
    if (m - missMass > EPS) {
      const hit = v.splitOff(m - missMass);
      v.missing = missing;
      this.callLookaside(v, work);
      this.continueAt(hit, 0);
      return;
    }
    v.missing = missing;
    this.callLookaside(v, work);
  }

  private callLookaside(v: Visit, work: number): void {
    const la = this.lookaside as LookasideRt;
    v.step = STEP_LOOKASIDE;
    v.state = S_CALLING;
    if (la.edge.port) la.edge.port.send(v, firstAttempt(v.mass), 0, 0, this.rt.kernel.now, work);
    else new Call(this.rt, la.edge, v, null, v.root, work).startAttempt(v.mass, 0, 1);
  }

  /** Runs the calls from index `i` on; each call either happens or is skipped (probability). */
  continueAt(v: Visit, i: number): void {
    const rt = this.rt;
    const calls = this.calls;
    while (i < calls.length) {
      if (!this.continueAfterTimeout && v.parent !== null) {
        if (!rt.fluid) {
          if (v.isAbandoned()) {
            this.respond(v);
            return;
          }
        } else {
          // The share nobody awaits stops here instead of making its calls.
          const gone = (v.parent as Port).claimOrphaned(v.mass);
          if (gone >= v.mass - EPS) {
            this.respond(v, true);
            return;
          }
          if (gone > EPS) this.respond(v.splitOff(gone), true);
        }
      }
      const edge = calls[i];
      const p = edge.probability();
      if (p < 1) {
        if (!rt.fluid) {
          if (p <= 0 || this.rng.next() >= p) {
            i++;
            continue;
          }
        } else {
          if (p <= 0) {
            i++;
            continue;
          }
          const skip = v.splitOff(v.mass * (1 - p));
          this.startCall(v, edge, i);
          this.continueAt(skip, i + 1);
          return;
        }
      }
      this.startCall(v, edge, i);
      return;
    }
    this.finish(v);
  }

  private startCall(v: Visit, edge: EdgeRt, i: number): void {
    v.step = i;
    v.state = S_CALLING;
    const work = edge.work ? edge.work() : v.work;
    if (edge.port) edge.port.send(v, firstAttempt(v.mass), 0, 0, this.rt.kernel.now, work);
    else new Call(this.rt, edge, v, null, v.root, work).startAttempt(v.mass, 0, 1);
  }

  /** After the calls: the station's own failure share, then the response. */
  finish(v: Visit): void {
    if (v.status === OK) {
      const e = this.errorOverride ?? this.errorRate();
      if (e > 0) {
        if (!this.rt.fluid) {
          if (e >= 1 || this.rng.next() < e) v.status = this.errorStatus;
        } else if (e >= 1) {
          v.status = this.errorStatus;
        } else {
          const failed = v.splitOff(v.mass * e);
          failed.status = this.errorStatus;
          this.respond(failed);
        }
      }
    }
    this.respond(v);
  }

  /** `orphaned`: fluid mode, nobody awaits this mass any more (already claimed from the port). */
  respond(v: Visit, orphaned = false): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const st = this.stats;
    const m = v.mass;
    const reps = v.repeat;
    st.throughput.add(now, m * reps);
    const tb = st.throughputBy[v.root.source];
    if (tb) tb.add(now, m * reps);
    st.latency.add(now, (now - v.arrivedAt) / reps, m * reps);
    let abandoned = 0;
    if (orphaned) abandoned = m;
    else if (v.parent !== null) abandoned = rt.fluid ? (v.parent as Port).claimOrphaned(m) : v.isAbandoned() ? m : 0;
    if (v.status === OK) {
      if (m - abandoned > EPS) {
        st.goodput.add(now, (m - abandoned) * reps);
        const gb = st.goodputBy[v.root.source];
        if (gb) gb.add(now, (m - abandoned) * reps);
      }
    } else {
      st.errors.add(now, m * reps);
    }
    if (abandoned > 0) st.abandonedDone.add(now, abandoned * reps);
    if (this.emits.length > 0) this.emit(v);
    if (v.parent !== null) {
      if (!rt.fluid) (v.parent as Attempt).childResult(m, v.status);
      else if (m - abandoned > EPS) (v.parent as Port).childResult(m - abandoned, v.status, v);
    }
    if (v.rate) {
      const l = this.linger.mean();
      if (l > 0) {
        v.state = S_LINGER;
        rt.scheduleVisit(now + l, EV_LINGER_END, v);
      } else {
        this.depart(v, now);
      }
      return;
    }
    const l = this.linger.isZero ? 0 : rt.fluid || this.linger.isDeterministic ? this.linger.mean() : this.linger.sample(this.rng);
    if (l > 0) {
      v.state = S_LINGER;
      rt.scheduleVisit(now + l, EV_LINGER_END, v);
    } else {
      this.release(v);
    }
  }

  private emit(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    for (const e of this.emits) {
      if (e.on === 'success' && v.status !== OK) continue;
      if (e.on === 'failure' && v.status === OK) continue;
      const p = e.probability();
      let mass: number;
      if (rt.fluid) {
        mass = v.mass * p * this.scale;
      } else {
        if (p <= 0 || (p < 1 && this.rng.next() >= p)) continue;
        mass = 1;
      }
      if (mass <= EPS) continue;
      const depth = v.root.depth + 1;
      if (depth > e.maxDepth()) continue;
      this.stats.emitted.add(now, mass / this.scale);
      rt.injector.emit(e.target, mass, now + e.delay(), depth, v.root.source);
    }
  }

  release(v: Visit): void {
    if (v.dead) return;
    if (!v.rate) v.inst.gate.release(v);
    this.depart(v, this.rt.kernel.now);
  }

  depart(v: Visit, at: number): void {
    v.state = S_DONE;
    const st = this.stats;
    const m = v.mass;
    if (v.repeat > 1) {
      // Repeats ran back to back: m × repeat departures sharing the visit's time inside.
      st.departed += m * v.repeat;
      st.sojournSum += m * (at - v.arrivedAt);
      st.insideMass -= m;
      st.insideArrivalSum -= m * v.arrivedAt;
      return;
    }
    st.departed += m;
    st.sojournSum += m * (at - v.arrivedAt);
    st.insideMass -= m;
    st.insideArrivalSum -= m * v.arrivedAt;
    if (this.registry) this.registry.delete(v);
  }

  /** Turned away before getting a slot: answers the caller at once. */
  reject(v: Visit, status: number): void {
    const now = this.rt.kernel.now;
    this.stats.rejected.add(now, v.mass);
    this.depart(v, now);
    this.answer(v, v.mass, status);
  }

  /** Taken out of the queue without service; `orphaned`: nobody awaits it (fluid). */
  drop(v: Visit, status: number, orphaned = false): void {
    const now = this.rt.kernel.now;
    this.stats.dropped.add(now, v.mass);
    this.depart(v, now);
    if (!orphaned) this.answer(v, v.mass, status);
  }

  private answer(v: Visit, m: number, status: number): void {
    if (v.parent === null) return;
    if (this.rt.fluid) {
      const port = v.parent as Port;
      const live = m - port.claimOrphaned(m);
      if (live > EPS) port.childResult(live, status, v);
    } else {
      (v.parent as Attempt).childResult(m, status);
    }
  }

  /** Process stop: everything inside fails at once and new arrivals are refused. */
  stop(): void {
    this.stopped = true;
    const registry = this.registry;
    if (!registry) return;
    const now = this.rt.kernel.now;
    for (const v of [...registry]) {
      if (v.state === S_DONE || v.dead) continue;
      const state = v.state;
      v.dead = true;
      const gate = v.inst.gate;
      if (state === S_QUEUED) gate.unqueue(v);
      if (state === S_SERVICE) this.stats.working.change(now, -v.mass);
      if (state === S_SERVICE || state === S_CALLING || state === S_LINGER || state === S_HUNG) {
        gate.holding -= v.mass;
        if (gate.holding < EPS) gate.holding = 0;
        this.stats.holding.change(now, -v.mass);
        const by = this.stats.holdingBy[v.root.source];
        if (by) by.change(now, -v.mass);
        if (gate.poolStats) gate.poolStats.holding.change(now, -v.mass);
      }
      this.depart(v, now);
      if (state !== S_LINGER) this.answer(v, v.mass, Status.stopped);
    }
    for (const inst of this.instances) inst.hung.length = 0;
    // Fluid: callers of this station no longer wait; what they sent becomes orphaned.
    for (const edge of this.calls) edge.port?.abandonAll();
    this.lookaside?.edge.port?.abandonAll();
  }

  start(): void {
    this.stopped = false;
  }

  restore(): void {
    this.blackholed = false;
    for (const inst of this.instances) {
      const hung = inst.hung.splice(0);
      for (const v of hung) {
        if (v.dead) continue;
        v.status = Status.shed;
        this.respond(v);
      }
    }
  }
}

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

  /** A successful miss read fills its keys; only cold keys raise a node's warm fraction. */
  fill(v: Visit, scale: number): void {
    const now = this.rt.kernel.now;
    const keys = this.keysPerNode();
    const c = this.ceiling();
    if (!this.rt.fluid) {
      const nodes = v.missNodes;
      if (!nodes) return;
      for (const node of nodes) {
        const w = this.warm[node];
        if (w >= 1) continue;
        this.warm[node] = Math.min(1, w + (1 - w) / (1 - c * w) / keys);
      }
      this.stats.fills.add(now, nodes.length);
    } else {
      const fills = v.mass * v.missing * scale;
      let denom = 0;
      for (let i = 0; i < this.nodes; i++) denom += 1 - c * this.warm[i];
      if (denom <= 0) return;
      for (let i = 0; i < this.nodes; i++) {
        const w = this.warm[i];
        this.warm[i] = Math.min(1, w + (fills * (1 - w)) / denom / keys);
      }
      this.stats.fills.add(now, fills);
    }
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

class SourceToken {
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
  private token: SourceToken;
  scale = 1;
  private gen = 0;
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
    this.stats = new SourceStats(rt.grid, rt.percentiles.has(key));
    this.rng = new RandomStream(seed, `source:${key}`);
    this.root = new Root(index, 0);
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
      const think = this.think as Duration;
      if (rt.fluid) rt.injector.user(this, this.users, think.mean());
      else for (let u = 0; u < this.users; u++) rt.injector.user(this, 1, think.isDeterministic ? think.mean() : think.sample(this.rng));
      return;
    }
    if (this.trace) {
      for (const t of this.trace) rt.injector.arrival(this, 1, t);
      return;
    }
    if (this.profile) for (const seg of this.profile) if (seg.at > 0) rt.kernel.schedule(seg.at, EV_SOURCE_RATE, this);
    if (rt.fluid) rt.kernel.schedule(rt.step / 2, EV_SOURCE, this.token);
    else this.scheduleNext(0);
  }

  private scheduleNext(from: number): void {
    const r = this.currentRate();
    if (r <= 0) return;
    const gap = this.poisson ? this.rng.exponential(1 / r) : 1 / r;
    this.rt.kernel.schedule(from + gap, EV_SOURCE, this.token);
  }

  /** A rate change: memoryless for Poisson arrivals, a fresh spacing for constant ones. */
  reschedule(): void {
    if (this.kind === 'closed' || this.trace || this.rt.fluid) return;
    this.gen++;
    // A new token makes the arrival already in the queue stale.
    this.token = new SourceToken(this, this.gen);
    this.scheduleNext(this.rt.kernel.now);
  }

  fire(token: SourceToken): void {
    if (token.gen !== this.gen) return;
    const rt = this.rt;
    const now = rt.kernel.now;
    if (rt.fluid) {
      const mass = this.currentRate() * rt.step;
      const port = this.edge.port as Port;
      const due = port.takeDueRetries(Math.floor(now / rt.step));
      if (due === null) {
        if (mass > EPS) this.newRequest(mass);
      } else {
        // New requests and retries due now leave together, as one cohort.
        this.stats.offered.add(now, mass);
        due.attempts[1] = (due.attempts[1] ?? 0) + mass;
        const total = due.mass + mass;
        port.send(null, due.attempts, 0, 0, (due.t0Sum + mass * now) / total, this.work());
      }
      rt.kernel.schedule(now + rt.step, EV_SOURCE, token);
      return;
    }
    this.newRequest(1);
    this.scheduleNext(now);
  }

  newRequest(mass: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    this.stats.offered.add(now, mass);
    if (this.edge.port) {
      this.edge.port.send(null, firstAttempt(mass), 0, 0, now, this.work());
      return;
    }
    const call = new Call(rt, this.edge, null, this, this.root, this.work());
    call.startAttempt(mass, 0, 1);
  }

  /** DES: a client retry, injected after its backoff. */
  retry(call: Call, mass: number, attemptNo: number): void {
    const rt = this.rt;
    rt.injector.retry(this, mass, attemptNo, call.t0, rt.kernel.now + this.edge.delay(attemptNo - 1, false));
  }

  /** A request finished for good (after its retries); `t0` is when it was first sent. */
  onFinished(x: number, status: number, t0: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (status === OK) {
      this.stats.success.add(now, x);
      this.stats.latency.add(now, now - t0, x);
    } else {
      this.stats.failures.add(now, x);
    }
    if (this.kind === 'closed') {
      const think = this.think as Duration;
      rt.injector.user(this, x, now + (rt.fluid || think.isDeterministic ? think.mean() : think.sample(this.rng)));
    }
  }
}

const P_ARRIVAL = 0;
const P_RETRY = 1;
const P_EMIT = 2;
const P_USER = 3;

class Packet {
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

class Bucket {
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
class Injector {
  private readonly buckets = new Map<string, Bucket>();
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
    const rt = this.rt;
    if (!rt.fluid) {
      rt.kernel.schedule(t, EV_INJECT, new Packet(kind, source, station, mass, attemptNo, depth, sourceIndex, t0));
      return;
    }
    const d = depth < this.depthCap ? depth : this.depthCap;
    const w = Math.floor(t / rt.step);
    const key = `${kind}|${source ? source.index : -1}|${station ? station.index : -1}|${attemptNo}|${d}|${sourceIndex}|${w}`;
    let b = this.buckets.get(key);
    if (!b) {
      b = new Bucket(key, kind, source, station, attemptNo, d, sourceIndex);
      this.buckets.set(key, b);
      rt.kernel.schedule(Math.max(rt.kernel.now, w * rt.step), EV_FLUSH, b);
    }
    b.mass += mass;
    b.tSum += mass * t;
    b.t0Sum += mass * t0;
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
      const mass = rt.fluid ? p.mass / st.replicas : p.mass;
      const inst = rt.fluid ? st.instances[0] : st.pickInstance(st.rng);
      st.arrive(new Visit(mass, st, inst, null, rt.rootFor(p.sourceIndex, p.depth), 1, now));
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

export interface FiredEvent {
  key: string;
  at: number;
  kind: string;
  label: string;
}

class ControlStep {
  constructor(
    readonly key: string,
    readonly apply: () => void,
  ) {}
}

export interface FlowSimulationOptions {
  spec: ModelSpec;
  params: ParameterStore;
  events: ControllerEventSpec[];
  seed: number;
  fluid: boolean;
  step: number;
  horizon: number;
  points: number;
  fine: number;
  /** Station keys targeted by stop events (they keep a registry of their visits). */
  stoppable: Set<string>;
  /** Station keys targeted by blackhole events. */
  blackholable: Set<string>;
  /** `station@source` pairs whose per-source metrics are read. */
  bySource: Set<string>;
  /** Station and source keys whose latency percentiles are read. */
  percentiles: Set<string>;
}

/** The assembled model of one run: blocks, their wiring, the controller timeline. */
export class FlowSimulation {
  readonly kernel = new SimulationKernel(4096);
  readonly fluid: boolean;
  readonly step: number;
  readonly grid: TimeGrid;
  readonly stations: Station[] = [];
  readonly stationByKey = new Map<string, Station>();
  readonly sources: Source[] = [];
  readonly sourceByKey = new Map<string, Source>();
  readonly caches = new Map<string, CacheRt>();
  readonly pools = new Map<string, { gate: Gate; stats: PoolStats }>();
  readonly edges = new Map<string, EdgeStats>();
  readonly injector: Injector;
  readonly fired: FiredEvent[] = [];
  readonly cancelled = new Set<string>();
  readonly params: ParameterStore;
  readonly entry: Station;
  readonly percentiles: Set<string>;
  /** Nesting of zero-duration steps taken without an event. */
  syncDepth = 0;
  private readonly seed: number;

  constructor(private readonly o: FlowSimulationOptions) {
    this.percentiles = o.percentiles;
    this.fluid = o.fluid;
    this.step = o.step;
    this.seed = o.seed;
    this.params = o.params;
    this.grid = new TimeGrid(o.horizon, o.points, o.fine);
    this.injector = new Injector(this);
    const spec = o.spec;
    const store = o.params;

    for (const p of spec.pools ?? []) {
      const stats = new PoolStats(this.grid);
      const q = p.queue ?? {};
      const gate = new Gate(
        this,
        p.slots === null ? () => Infinity : compileValue(p.slots, Infinity, store),
        compileValue(q.limit, Infinity, store),
        q.maxWait === undefined ? null : compileValue(q.maxWait, Infinity, store),
        q.dropAbandoned === true,
        stats,
      );
      this.pools.set(p.key, { gate, stats });
    }
    for (const c of spec.caches ?? []) {
      const warm = compileValue(c.initialWarm, 1, store)();
      this.caches.set(
        c.key,
        new CacheRt(this, c.key, c.nodes, compileValue(c.keysPerNode, 1, store), warm, compileValue(c.hitCeiling, 1, store), o.seed),
      );
    }
    spec.stations.forEach((s, i) => this.addStation(s, i));
    spec.stations.forEach((s) => this.wireStation(s));
    spec.sources.forEach((s, i) => {
      const target = this.stationByKey.get(s.target) as Station;
      const edge = this.compileEdge(`${s.key}->${s.target}`, { to: s.target, policy: s.policy }, 1, `source:${s.key}`);
      void target;
      const src = new Source(this, s.key, i, s.kind, edge, o.seed);
      if (this.fluid) edge.port = new Port(this, edge, src);
      if (s.kind === 'open') {
        src.poisson = (s.arrivals ?? 'poisson') === 'poisson';
        if (s.rate !== undefined) src.rate = compileValue(s.rate, 0, store);
        if (s.profile) src.profile = s.profile.map((e) => ({ at: compileValue(e.at, 0, store)(), rate: compileValue(e.rate, 0, store) })).sort((a, b) => a.at - b.at);
        if (s.trace) src.trace = [...s.trace].sort((a, b) => a - b);
      } else {
        src.users = checkedNow(compileValue(s.users, 1, store), Domains.users, `sources.${s.key}.users`);
        src.think = compileDuration(s.thinkTime, store);
      }
      if (s.work !== undefined) src.work = compileValue(s.work, 1, store);
      this.sources.push(src);
      this.sourceByKey.set(s.key, src);
    });
    this.entry = this.stationByKey.get(spec.sources[0].target) as Station;

    for (const pair of o.bySource) {
      const [stationKey, sourceKey] = pair.split('@');
      const st = this.stationByKey.get(stationKey);
      const src = this.sourceByKey.get(sourceKey);
      if (!st || !src) continue;
      st.stats.offeredBy[src.index] = new Counter(this.grid);
      st.stats.throughputBy[src.index] = new Counter(this.grid);
      st.stats.goodputBy[src.index] = new Counter(this.grid);
      st.stats.holdingBy[src.index] = new Level(this.grid);
    }

    // Fluid cohorts of different emit depths cannot merge, so depths are only told apart up
    // to the deepest loop guard in use (guards above MAX_GUARD_DEPTH count as none).
    let cap = 0;
    for (const st of this.stations) {
      for (const e of st.emits) {
        const d = e.maxDepth();
        if (d <= MAX_GUARD_DEPTH) cap = Math.max(cap, Math.floor(d) + 1);
      }
    }
    this.injector.depthCap = cap;
  }

  private addStation(s: StationSpec, index: number): void {
    const store = this.o.params;
    const replicas = s.replicas ?? 1;
    const st = new Station(this, s.key, index, replicas, this.seed);
    st.service = compileDuration(s.service, store);
    st.linger = compileDuration(s.linger, store);
    if (s.serviceWork !== undefined) st.serviceWork = compileValue(s.serviceWork, 0, store);
    if (s.slowdown) {
      st.slowdown = {
        kind: s.slowdown.kind,
        at: compileValue(s.slowdown.kind === 'utilisation' ? s.slowdown.threshold : s.slowdown.knee, 1, store),
        factor: compileValue(s.slowdown.factor, 0, store),
      };
    }
    st.continueAfterTimeout = s.continueAfterTimeout !== false;
    st.errorRate = compileValue(s.errorRate, 0, store);
    st.errorStatus = s.errorStatus ?? 500;
    if (s.admit !== undefined) st.admit = compileValue(s.admit, 1, store);
    if (this.o.stoppable.has(s.key)) st.registry = new Set();
    const slots = s.slots;
    if (typeof slots === 'object' && slots !== null && 'pool' in slots) {
      const pool = this.pools.get(slots.pool) as { gate: Gate };
      st.pool = pool.gate;
      st.instances.push(new Instance(0, pool.gate));
    } else {
      const slotsFn = slots === undefined || slots === null ? () => Infinity : compileValue(slots, Infinity, store);
      const q = s.queue ?? {};
      const count = this.fluid ? 1 : replicas;
      for (let r = 0; r < count; r++) {
        const gate = new Gate(
          this,
          slotsFn,
          compileValue(q.limit, Infinity, store),
          q.maxWait === undefined ? null : compileValue(q.maxWait, Infinity, store),
          q.dropAbandoned === true,
          null,
        );
        st.instances.push(new Instance(r, gate));
      }
    }
    this.stations.push(st);
    this.stationByKey.set(s.key, st);
  }

  private wireStation(s: StationSpec): void {
    const st = this.stationByKey.get(s.key) as Station;
    const store = this.o.params;
    st.calls = (s.calls ?? []).map((c, i) => this.compileEdge(`${s.key}->${c.to}`, c, st.scale, `edge:${s.key}:${i}`));
    st.emits = (s.emits ?? []).map((e) => ({
      target: this.stationByKey.get(e.to) as Station,
      probability: compileValue(e.probability, 1, store),
      on: e.on ?? 'success',
      delay: compileValue(e.delay, 0, store),
      maxDepth: compileValue(e.maxDepth, Infinity, store),
    }));
    if (s.lookaside) {
      st.lookaside = {
        cache: this.caches.get(s.lookaside.cache) as CacheRt,
        keys: compileValue(s.lookaside.keys, 1, store),
        edge: this.compileEdge(`${s.key}->${s.lookaside.onMiss.to}`, s.lookaside.onMiss, st.scale, `lookaside:${s.key}`),
        missAll:
          s.lookaside.missWork === 'missing'
            ? () => 0
            : s.lookaside.missWork === undefined || s.lookaside.missWork === 'all'
              ? () => 1
              : compileValue(s.lookaside.missWork, 1, store),
      };
    }
    const hold = st.service.mean() + st.linger.mean();
    const finite = st.instances.every((i) => Number.isFinite(i.gate.slots()));
    st.rateRegime =
      this.fluid &&
      !st.pool &&
      finite &&
      st.calls.length === 0 &&
      !st.lookaside &&
      !st.slowdown &&
      !this.o.stoppable.has(s.key) &&
      !this.o.blackholable.has(s.key) &&
      hold > 0 &&
      // A slot admitted on the step grid is reused at most once per step, so stations that
      // hold slots for less than a step are served as a rate instead.
      hold < this.step;
  }

  private compileEdge(key: string, c: CallSpec, scale: number, stream: string): EdgeRt {
    const store = this.o.params;
    let stats = this.edges.get(key);
    if (!stats) {
      stats = new EdgeStats(this.grid, scale);
      this.edges.set(key, stats);
    }
    const edge = new EdgeRt(key, stats, scale);
    edge.rng = new RandomStream(this.seed, stream);
    const policy: ClientPolicySpec = c.policy ?? {};
    const target = this.stationByKey.get(c.to) as Station;
    edge.probability = compileValue(c.probability, 1, store);
    const mult = compileValue(c.multiplicity, 1, store);
    if ((c.mode ?? 'sequential') === 'sequential') edge.sequential = mult;
    else edge.parallel = mult;
    const replicas = target.replicas;
    if (c.fanOut === 'all') edge.fan = () => replicas;
    else if (c.fanOut !== undefined && c.fanOut !== 'one') {
      const f = compileValue(c.fanOut, 1, store);
      edge.fan = () => Math.max(1, Math.min(replicas, Math.round(f())));
    }
    edge.timeout = compileValue(policy.timeout, 0, store);
    edge.retries = compileValue(policy.retries, 0, store);
    if (policy.backoff) {
      const b = policy.backoff;
      edge.backoff = {
        kind: b.kind,
        base: compileValue(b.base, 0, store),
        multiplier: compileValue(b.multiplier, 2, store),
        max: compileValue(b.max, 0, store),
        jitter: b.jitter ?? 'none',
      };
    }
    edge.retryOn = retryPredicate(policy.retryOn ?? ['5xx']);
    if (policy.retryBudget) {
      const rb = policy.retryBudget;
      edge.budget = new RetryBudget(compileValue(rb.ratio, 0.1, store), compileValue(rb.minPerSecond, 0, store), compileValue(rb.burst, 10, store));
    }
    for (const [from, to] of Object.entries(c.errorMap ?? {})) edge.errorMap.set(Number(from), to);
    edge.onErrorIgnore = c.onError === 'ignore';
    if (c.work !== undefined) edge.work = compileValue(c.work, 1, store);
    edge.target = target;
    if (this.fluid && !stream.startsWith('source:')) edge.port = new Port(this, edge, null);
    if (policy.concurrencyLimit !== undefined) {
      // A client-side limit is a gate in front of the callee: a hidden station whose slots
      // are permits, held for the whole attempt. The caller keeps timeouts and retries.
      const proxyKey = `${key}#limit`;
      const proxy = new Station(this, proxyKey, this.stations.length, 1, this.seed);
      proxy.service = compileDuration(undefined, store);
      proxy.linger = compileDuration(undefined, store);
      proxy.continueAfterTimeout = false;
      proxy.instances.push(new Instance(0, new Gate(this, compileValue(policy.concurrencyLimit, Infinity, store), () => Infinity, null, true, null)));
      const inner = this.compileEdge(`${key}#inner`, { ...c, policy: undefined, errorMap: undefined, onError: undefined }, 1, `${stream}:inner`);
      proxy.calls = [inner];
      this.stations.push(proxy);
      edge.target = proxy;
      edge.fan = () => 1;
      edge.parallel = () => 1;
    }
    return edge;
  }

  private readonly roots = new Map<string, Root>();
  /** Fluid merge buckets: window → kind and class → bucket. */
  private readonly visitBuckets = new Map<number, Map<number, VisitBucket>>();
  private readonly prefixes = new Map<string, number>();

  /** Number for the fixed part of a visit's class (station, instance, caller port, lineage). */
  prefixOf(v: Visit): number {
    const parent = v.parent as Port | null;
    const key = `${v.station.index}.${v.inst.index}.${parent ? parent.id : -1}.${v.root.id}`;
    let n = this.prefixes.get(key);
    if (n === undefined) {
      n = this.prefixes.size;
      this.prefixes.set(key, n);
    }
    return n;
  }

  /** Lineage objects are shared so that cohorts of the same lineage can merge. */
  rootFor(source: number, depth: number): Root {
    if (!this.fluid) return new Root(source, depth);
    const key = `${source}:${depth}`;
    let r = this.roots.get(key);
    if (!r) {
      r = new Root(source, depth);
      this.roots.set(key, r);
    }
    return r;
  }

  /**
   * Schedules a visit's next step. Fluid mode merges visits of the same class due in the
   * same step into one cohort, fired at their mass-weighted mean time.
   */
  scheduleVisit(time: number, kind: number, v: Visit): void {
    if (!this.fluid) {
      this.kernel.schedule(time, kind, v);
      return;
    }
    const w = Math.floor(time / this.step);
    // Due within the step already under way: merging would mean waiting, so fire as is.
    if (w * this.step <= this.kernel.now) {
      this.kernel.schedule(time, kind, v);
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
    const nb = new VisitBucket(w, kind, v, v.mass * time);
    m.set(key, nb);
    this.kernel.schedule(w * this.step, EV_VISIT_FLUSH, nb);
  }

  private flushVisit(b: VisitBucket): void {
    this.visitBuckets.delete(b.window);
    const v = b.visit;
    if (v.dead || v.mass <= 0) return;
    this.kernel.schedule(Math.max(this.kernel.now, b.tSum / v.mass), b.kind, v);
  }

  dispatch = (kind: number, target: unknown): void => {
    switch (kind) {
      case EV_VISIT_FLUSH:
        this.flushVisit(target as VisitBucket);
        break;
      case EV_WAIT_DEADLINE:
        (target as Port).sweep();
        break;
      case EV_RETRY_FLUSH: {
        const b = target as RetryBucket;
        b.port.onRetryBucket(b);
        break;
      }
      case EV_SERVICE_END: {
        const v = target as Visit;
        v.station.onServiceEnd(v);
        break;
      }
      case EV_LINGER_END: {
        const v = target as Visit;
        if (v.rate) {
          if (!v.dead) v.station.depart(v, this.kernel.now);
        } else {
          v.station.release(v);
        }
        break;
      }
      case EV_TIMEOUT:
        (target as Attempt).onTimeout();
        break;
      case EV_RETRY:
        (target as RetryPacket).fire();
        break;
      case EV_TICK:
        (target as Gate).tick();
        break;
      case EV_RATE_START: {
        const plan = target as RatePlan;
        plan.visit.station.onRatePlan(plan);
        break;
      }
      case EV_SOURCE: {
        const token = target as SourceToken;
        token.source.fire(token);
        break;
      }
      case EV_SOURCE_RATE:
        (target as Source).reschedule();
        break;
      case EV_INJECT:
        this.injector.inject(target as Packet);
        break;
      case EV_FLUSH:
        this.injector.flush(target as Bucket);
        break;
      case EV_QUEUE_DEADLINE: {
        const v = target as Visit;
        v.inst.gate.onQueueDeadline(v);
        break;
      }
      case EV_CONTROL: {
        const step = target as ControlStep;
        if (!this.cancelled.has(step.key)) step.apply();
        break;
      }
      default:
        break;
    }
  };

  run(budget: RunBudget): void {
    for (const st of this.stations) st.refreshCollapsible();
    this.recordCapacity();
    for (const e of this.o.events) this.scheduleControl(e);
    for (const s of this.sources) s.start();
    this.kernel.run(this.grid.horizon, this.dispatch, budget);
    const h = this.grid.horizon;
    for (const st of this.stations) {
      st.stats.queue.finish(h);
      st.stats.holding.finish(h);
      st.stats.working.finish(h);
      st.stats.capacity.finish(h);
      for (const l of st.stats.holdingBy) if (l) l.finish(h);
    }
    for (const p of this.pools.values()) {
      p.stats.holding.finish(h);
      p.stats.queue.finish(h);
      p.stats.capacity.finish(h);
    }
    for (const c of this.caches.values()) c.stats.warm.finish(h);
  }

  private recordCapacity(): void {
    const now = this.kernel.now;
    for (const st of this.stations) {
      if (st.pool) continue;
      let total = 0;
      for (const inst of st.instances) total += inst.gate.slots();
      st.stats.capacity.set(now, Number.isFinite(total) ? total : 0);
    }
    for (const p of this.pools.values()) {
      const s = p.gate.slots();
      p.stats.capacity.set(now, Number.isFinite(s) ? s : 0);
    }
  }

  /** Something a parameter may drive has changed: sources re-pace, gates re-admit. */
  private refresh(): void {
    for (const st of this.stations) st.refreshCollapsible();
    for (const st of this.stations) st.replanRates();
    this.recordCapacity();
    for (const s of this.sources) s.reschedule();
    for (const st of this.stations) for (const inst of st.instances) this.kick(inst.gate);
    for (const p of this.pools.values()) this.kick(p.gate);
  }

  private kick(gate: Gate): void {
    if (this.fluid) gate.ensureTick();
    else gate.drain();
  }

  private at(time: number, key: string, apply: () => void): void {
    this.kernel.schedule(time, EV_CONTROL, new ControlStep(key, apply));
  }

  /** Schedules a value change, spread over `ramp` seconds in up to 20 equal steps. */
  private ramped(e: ControllerEventSpec, start: number, rampSec: number, read: () => number, target: number, write: (v: number) => void): void {
    if (!(rampSec > 0)) {
      this.at(start, e.key, () => write(target));
      return;
    }
    const steps = 20;
    let from = 0;
    this.at(start, e.key, () => {
      from = read();
    });
    for (let k = 1; k <= steps; k++) {
      this.at(start + (rampSec * k) / steps, e.key, () => write(from + ((target - from) * k) / steps));
    }
  }

  private scheduleControl(e: ControllerEventSpec): void {
    const store = this.o.params;
    const start = compileValue(e.at, 0, store)();
    this.at(start, e.key, () => this.fired.push({ key: e.key, at: start, kind: e.kind, label: e.label }));
    const ramp = 'ramp' in e && e.ramp !== undefined ? compileValue(e.ramp, 0, store)() : 0;
    switch (e.kind) {
      case 'setParameter': {
        const value = compileValue(e.value, 0, store)();
        this.ramped(e, start, ramp, () => store.get(e.parameter), value, (v) => {
          store.set(e.parameter, v);
          this.refresh();
        });
        break;
      }
      case 'scaleSource': {
        const src = this.sourceByKey.get(e.source) as Source;
        const factor = compileValue(e.factor, 1, store)();
        this.ramped(e, start, ramp, () => src.scale, factor, (v) => {
          src.scale = v;
          src.reschedule();
        });
        break;
      }
      case 'setSlots': {
        const st = this.stationByKey.get(e.station) as Station;
        const slots = compileValue(e.slots, 0, store)();
        const gates = st.pool ? [st.pool] : st.instances.map((i) => i.gate);
        this.ramped(e, start, ramp, () => gates[0].slots(), slots, (v) => {
          for (const g of gates) g.override = Math.round(v);
          this.refresh();
        });
        break;
      }
      case 'setErrorRate': {
        const st = this.stationByKey.get(e.station) as Station;
        const value = compileValue(e.value, 0, store)();
        this.at(start, e.key, () => {
          st.errorOverride = value;
        });
        break;
      }
      case 'blackhole': {
        const st = this.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => {
          st.blackholed = true;
        });
        break;
      }
      case 'restore': {
        const st = this.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.restore());
        break;
      }
      case 'cacheFlush': {
        const cache = this.caches.get(e.cache) as CacheRt;
        const nodes = Math.round(compileValue(e.fraction, 0, store)() * cache.nodes);
        const over = e.over === undefined ? 0 : compileValue(e.over, 0, store)();
        for (let i = 0; i < nodes; i++) {
          const t = start + (nodes > 1 ? (over * i) / (nodes - 1) : 0);
          this.at(t, e.key, () => cache.flushNode());
        }
        break;
      }
      case 'throttle': {
        const st = this.stationByKey.get(e.station) as Station;
        const admit = compileValue(e.admit, 1, store)();
        this.ramped(e, start, ramp, () => st.admitOverride ?? (st.admit ? st.admit() : 1), admit, (v) => {
          st.admitOverride = v;
        });
        break;
      }
      case 'stop': {
        const st = this.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.stop());
        break;
      }
      case 'start': {
        const st = this.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.start());
        break;
      }
      case 'cancelEvents': {
        this.at(start, e.key, () => {
          for (const k of e.keys) this.cancelled.add(k);
        });
        break;
      }
    }
  }
}

function retryPredicate(conditions: RetryCondition[]): (status: number) => boolean {
  const set = new Set<number>();
  let any5 = false;
  let any4 = false;
  for (const c of conditions) {
    if (c === '5xx') any5 = true;
    else if (c === '4xx') any4 = true;
    else if (c === 'timeout') set.add(Status.timeout);
    else if (c === 'shed') set.add(Status.shed);
    else set.add(c);
  }
  return (s) => set.has(s) || (any5 && s >= 500 && s < 600) || (any4 && s >= 400 && s < 500);
}

export { Status } from './runtime.constants';
export { StationStats, EdgeStats, SourceStats, CacheStats, PoolStats } from './run.stats';
export { Port } from './mean-field.port';
