import { RandomStream } from '../kernel/random.stream';
import type { Evaluate } from '../spec/expression.parser';
import * as constants from './runtime.constants';
import { StationStats } from './run.stats';
import type { Duration } from './value.compiler';
import type { CacheRt } from './cache';
import type { EdgeRt } from './call-edge';
import type { FlowSimulation } from './flow.runtime';
import { RatePlan, type Instance, type Gate } from './gate';
import type { Visit } from './visit';

/** A station: admission, service, look-aside lookup, calls, own errors, response, linger, emits. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
// The same for the runtime's constants: transpiled to CommonJS, an imported name is a getter
// on the module object, read at every use; bound once here, it is a local constant.
const { EPS, EV_LINGER_END, EV_RATE_START, EV_SERVICE_END, MAX_SYNC_DEPTH, OK, STEP_LOOKASIDE, S_CALLING, S_DONE, S_HUNG, S_LINGER, S_QUEUED, S_SERVICE, Status } = constants;
const Array = globalThis.Array;
const Infinity = globalThis.Infinity;

export interface EmitRt {
  target: Station;
  probability: Evaluate;
  on: 'success' | 'failure' | 'any';
  delay: Evaluate;
  maxDepth: Evaluate;
}

export interface LookasideRt {
  cache: CacheRt;
  keys: Evaluate;
  edge: EdgeRt;
  /** 1: the miss call re-reads every key; 0: only the missing ones. */
  missAll: Evaluate;
}

export interface Slowdown {
  kind: 'utilisation' | 'concurrency';
  at: Evaluate;
  factor: Evaluate;
}

export class Station {
  readonly instances: Instance[] = [];
  readonly stats: StationStats;
  readonly rng: RandomStream;
  /** Every call edge of the station, in order (`Visit.step` indexes it while a call is out). */
  calls: EdgeRt[] = [];
  /** The call steps in order: one edge, or the branches of an exclusive choice. */
  steps: Array<EdgeRt | EdgeRt[]> = [];
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
    this.scale = rt.mode.replicaScale(replicas);
    this.stats = new StationStats(rt.grid, rt.percentiles.has(`${key}.latency`), rt.percentiles.has(`${key}.wait`));
    this.rng = new RandomStream(seed, `station:${key}`);
  }

  /** Cached by refreshCollapsible (parameters can change it). */
  collapsible = false;

  canCollapseRepeats(): boolean {
    return this.collapsible;
  }

  refreshCollapsible(): void {
    this.collapsible = (
      this.rt.mode.collapsesRepeats &&
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
    if (st.offered.on) st.offered.add(now, m);
    if (st.offeredBy.length > 0) {
      const ob = st.offeredBy[v.root.source];
      if (ob) ob.add(now, m);
    }
    st.arrivals += m;
    st.insideMass += m;
    st.insideArrivalSum += m * now;
    if (this.registry) this.registry.add(v);
    if (this.stopped) {
      this.reject(v, Status.stopped);
      return;
    }
    const a = this.admitOverride ?? (this.admit ? this.admit() : 1);
    if (a < 1 && !rt.mode.throttle(this, v, a)) return;
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
    this.rateStart(v, h, serviceD, 0, meanStart);
  }

  /**
   * Fluid rate regime: a cohort's service starts now, having waited `wait` seconds. Its slots
   * are busy over its share of the instance's work, `m × hold / slots` seconds centred on its
   * mean start `centre`, at the level of every slot: booked as one burst of `m` for one hold
   * instead, consecutive cohorts piled up in some windows and left others empty, and a
   * saturated station showed utilisation well above 1.
   */
  private rateStart(v: Visit, h: number, serviceD: number, wait: number, centre: number): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const st = this.stats;
    const m = v.mass;
    const c = v.inst.gate.slots();
    const span = (m * h) / c;
    const t0 = centre - span / 2;
    st.holding.addInterval(t0, t0 + span, c);
    st.working.addInterval(t0, t0 + span, (c * serviceD) / h);
    const by = st.holdingBy[v.root.source];
    if (by) by.addInterval(t0, t0 + span, c);
    st.admitted.add(now, m);
    st.recordWait(now, wait, m);
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
    this.rateStart(v, plan.hold, plan.service, now - v.enqueuedAt, now);
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
    let d = rt.mode.duration(this.service, this.rng);
    if (this.serviceWork) d += this.serviceWork() * v.work;
    if (v.repeat > 1) {
      // Each repeat counts as an arrival, a slot-time and a completion.
      const extra = v.mass * (v.repeat - 1);
      this.stats.offered.add(now, extra);
      this.stats.arrivals += extra;
      this.stats.admitted.add(now, extra);
      this.stats.recordWait(now, 0, extra);
      d *= v.repeat;
    }
    if (this.slowdown) d *= this.slowdownFactor(v.inst.gate);
    let end = now + d;
    // Fluid admissions on the step grid are back-dated to when the slot was freed.
    if (startClock < now) end = Math.max(now, startClock + d);
    v.state = S_SERVICE;
    // Nothing reads the total of `working` (only its windows): unread, it is not kept at all.
    if (this.stats.working.on) this.stats.working.change(now, v.mass);
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
    if (!v.rate && this.stats.working.on) this.stats.working.change(this.rt.kernel.now, -v.mass);
    if (this.blackholed) {
      v.state = S_HUNG;
      v.inst.hung.push(v);
      return;
    }
    if (this.lookaside) this.lookup(v);
    else this.continueAt(v, 0);
  }

  private lookup(v: Visit): void {
    const la = this.lookaside as LookasideRt;
    this.rt.mode.lookup(this, v, la, Math.max(1, Math.round(la.keys())));
  }

  /** Some keys missed: the miss call, carrying `work`. */
  callLookaside(v: Visit, work: number): void {
    const la = this.lookaside as LookasideRt;
    v.step = STEP_LOOKASIDE;
    v.state = S_CALLING;
    this.rt.mode.startCall(this.rt, v, la.edge, work);
  }

  /** Runs the call steps from index `i` on; each call either happens or is skipped (probability). */
  continueAt(v: Visit, i: number): void {
    const rt = this.rt;
    const steps = this.steps;
    while (i < steps.length) {
      if (!this.continueAfterTimeout && v.parent !== null) {
        const awaited = rt.mode.stopAbandoned(this, v);
        if (awaited === null) return;
        v = awaited;
      }
      const step = steps[i];
      if (Array.isArray(step)) {
        rt.mode.choose(this, v, step, i);
        return;
      }
      const edge = step;
      const p = edge.probability();
      if (p < 1) {
        if (rt.mode.partialCall(this, v, edge, p, i)) return;
        i++;
        continue;
      }
      this.startCall(v, edge);
      return;
    }
    this.finish(v);
  }

  /** Sends the visit's call on `edge` (one step of its calls). */
  startCall(v: Visit, edge: EdgeRt): void {
    v.step = edge.index;
    v.state = S_CALLING;
    this.rt.mode.startCall(this.rt, v, edge, edge.work ? edge.work() : v.work);
  }

  /** After the calls: the station's own failure share, then the response. */
  finish(v: Visit): void {
    if (v.status === OK) {
      const e = this.errorOverride ?? this.errorRate();
      if (e > 0) this.rt.mode.failShare(this, v, e);
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
    const bySource = st.throughputBy.length > 0;
    if (st.throughput.on) st.throughput.add(now, m * reps);
    if (bySource) {
      const tb = st.throughputBy[v.root.source];
      if (tb) tb.add(now, m * reps);
    }
    if (st.latency.on) st.latency.add(now, (now - v.arrivedAt) / reps, m * reps);
    // `unawaited`: nobody waits for it at all; `abandoned` adds what its caller still waits
    // for on behalf of a caller further up that gave up. Neither is goodput.
    let unawaited = 0;
    let abandoned = 0;
    if (orphaned) {
      unawaited = abandoned = m;
    } else if (v.parent !== null) {
      unawaited = rt.mode.abandonedMass(v, m);
      abandoned = m - unawaited > EPS ? unawaited + rt.mode.abandonedAbove(v, m - unawaited) : unawaited;
    }
    if (v.status === OK) {
      if (m - abandoned > EPS) {
        if (st.goodput.on) st.goodput.add(now, (m - abandoned) * reps);
        if (bySource) {
          const gb = st.goodputBy[v.root.source];
          if (gb) gb.add(now, (m - abandoned) * reps);
        }
      }
    } else if (st.errors.on) {
      st.errors.add(now, m * reps);
    }
    if (abandoned > 0 && st.abandonedDone.on) st.abandonedDone.add(now, abandoned * reps);
    if (this.emits.length > 0) this.emit(v);
    if (v.parent !== null) rt.mode.answerCaller(v, m, unawaited);
    else if (v.client !== null) v.client.answered(m, v.status, v.arrivedAt);
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
    const l = this.linger.isZero ? 0 : rt.mode.duration(this.linger, this.rng);
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
      const mass = rt.mode.emitMass(this, v, e.probability());
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
    if (v.parent !== null) this.rt.mode.answer(v, m, status);
    else if (v.client !== null) v.client.answered(m, status, v.arrivedAt);
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
      if (state === S_SERVICE && this.stats.working.on) this.stats.working.change(now, -v.mass);
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
