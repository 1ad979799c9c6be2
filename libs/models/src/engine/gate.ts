import type { Evaluate } from '../spec/expression.parser';
import * as constants from './runtime.constants';
import type { PoolStats } from './run.stats';
import type { Port } from './mean-field.port';
import type { FlowSimulation } from './flow.runtime';
import type { Visit } from './visit';

/** Slots and the queue in front of them (per station instance, or a shared pool). */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
// The same for the runtime's constants: transpiled to CommonJS, an imported name is a getter
// on the module object, read at every use; bound once here, it is a local constant.
const { EPS, EV_QUEUE_DEADLINE, EV_TICK, S_NEW, S_QUEUED, Status } = constants;
const Infinity = globalThis.Infinity;

/** Fluid rate regime: a cohort waiting for its planned start. */
export class RatePlan {
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

/**
 * Slots and the queue in front of them; one per station instance, or shared (a pool). The
 * accounting is common to both engine modes; when waiting work is admitted differs, so each
 * mode has its own subclass (DesGate: at once, one request per free slot; FluidGate: on the
 * step grid, cohorts in proportion).
 */
export abstract class Gate {
  holding = 0;
  /** FIFO; entries that left early stay as tombstones (state no longer queued) until the head. */
  queue: Visit[] = [];
  qHead = 0;
  queueMass = 0;
  protected live = 0;
  override: number | null = null;

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

  /** A visit asks for a slot: admitted now, queued, or (queue full) shed. */
  abstract offer(v: Visit): void;

  /** Admits from the head of the queue while slots are free. */
  abstract drain(): void;

  /** Slots or parameters changed: re-admit (now, or at the next step). */
  abstract kick(): void;

  /** `m` slots were released at `now` while visits wait. */
  protected abstract onReleased(m: number, now: number): void;

  /** A caller of a queued visit gave up (gates that drop abandoned work): drop it now. */
  abstract onQueueDeadline(v: Visit): void;

  /** Books a visit as waiting; the caller puts it in the queue (or merges it). */
  protected markQueued(v: Visit, now: number): void {
    v.state = S_QUEUED;
    v.enqueuedAt = now;
    v.station.stats.queue.change(now, v.mass);
    if (this.poolStats) this.poolStats.queue.change(now, v.mass);
    this.queueMass += v.mass;
  }


  /** Accounts for a queued visit leaving the queue; its array slot is cleared lazily. */
  unqueue(v: Visit): void {
    this.unqueuePart(v, v.mass);
    this.live--;
    // The array is kept as it is (truncating it would free its storage, and the next push
    // allocate it again); shiftHead compacts it once the head has moved far enough.
    if (this.live === 0) this.queueMass = 0;
  }


  /** Part of a queued cohort leaves (fluid partial admission); the rest keeps its place. */
  protected unqueuePart(v: Visit, mass: number): void {
    const now = this.rt.kernel.now;
    this.queueMass -= mass;
    if (this.queueMass < EPS) this.queueMass = 0;
    v.station.stats.queue.change(now, -mass);
    if (this.poolStats) this.poolStats.queue.change(now, -mass);
  }


  /** Moves the head past `count` entries (already accounted for). */
  protected shiftHead(count = 1): void {
    if (count === 1 && this.qHead < this.queue.length) {
      this.queue[this.qHead++] = undefined as unknown as Visit;
      if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.qHead);
        this.qHead = 0;
      }
      return;
    }
    const end = Math.min(this.queue.length, this.qHead + count);
    for (let j = this.qHead; j < end; j++) this.queue[j] = undefined as unknown as Visit;
    this.qHead = end;
    if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.qHead);
      this.qHead = 0;
    }
  }


  admit(v: Visit, startClock: number): void {
    const now = this.rt.kernel.now;
    const m = v.mass;
    this.holding += m;
    const st = v.station;
    st.stats.holding.change(now, m);
    const by = st.stats.holdingBy.length > 0 ? st.stats.holdingBy[v.root.source] : undefined;
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
    if (st.stats.admitted.on) st.stats.admitted.add(now, m);
    st.stats.recordWait(now, Math.min(now, startClock) - v.enqueuedAt, m);
    st.startService(v, startClock);
  }


  release(v: Visit): void {
    const now = this.rt.kernel.now;
    const m = v.mass;
    this.holding -= m;
    if (this.holding < EPS) this.holding = 0;
    const st = v.station;
    st.stats.holding.change(now, -m);
    if (st.stats.holdingBy.length > 0) {
      const by = st.stats.holdingBy[v.root.source];
      if (by) by.change(now, -m);
    }
    if (this.poolStats) this.poolStats.holding.change(now, -m);
    if (this.queueLength === 0) return;
    this.onReleased(m, now);
  }
}

/** DES: a free slot takes the head of the queue at once; a full queue sheds on arrival. */
export class DesGate extends Gate {

  offer(v: Visit): void {
    const rt = this.rt;
    if (this.queueLength === 0) {
      const free = this.slots() - this.holding;
      if (free >= v.mass - EPS) {
        this.admit(v, rt.kernel.now);
        return;
      }
    }
    this.enqueue(v);
  }

  private enqueue(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (this.queueMass + v.mass > this.limitFn() + EPS) {
      v.station.reject(v, Status.shed);
      return;
    }
    this.markQueued(v, now);
    this.queue.push(v);
    this.live++;
    if (this.dropAbandoned) {
      // The caller gives up at its deadline; the request leaves the queue then, not when it
      // would have reached the head, so the queue shows who is really still waiting.
      const deadline = v.deadline();
      if (deadline < Infinity) rt.kernel.schedule(deadline, EV_QUEUE_DEADLINE, v);
    }
  }


  /** The caller of a queued visit gave up: drop it now (gates that drop abandoned work). */
  onQueueDeadline(v: Visit): void {
    if (v.state !== S_QUEUED || v.dead || !v.isAbandoned()) return;
    this.unqueue(v);
    v.station.drop(v, Status.timeout);
  }

  protected onReleased(): void {
    this.drain();
  }

  kick(): void {
    this.drain();
  }

  /** Drops the head visit if its caller is gone or it waited too long; true when dropped. */
  private dropStale(v: Visit, now: number, maxWait: number): boolean {
    if (this.dropAbandoned && v.isAbandoned()) {
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

  drain(): void {
    const now = this.rt.kernel.now;
    const slots = this.slots();
    const maxWait = this.maxWaitFn ? this.maxWaitFn() : Infinity;
    while (this.queueLength > 0) {
      const free = slots - this.holding;
      if (free < 1 - 1e-9) break;
      const head = this.queue[this.qHead];
      if (head.state !== S_QUEUED || head.dead) {
        this.shiftHead();
        continue;
      }
      if ((this.dropAbandoned || maxWait < Infinity) && this.dropStale(head, now, maxWait)) continue;
      this.shiftHead();
      this.unqueue(head);
      this.admit(head, now);
    }
  }
}

/**
 * Fluid: waiting cohorts are admitted once per step (work started between two ticks is
 * back-dated to the mean release time); cohorts queued in the same step share free slots in
 * proportion, and the queue limit trims the newest step's cohorts in proportion.
 */
export class FluidGate extends Gate {
  tickScheduled = false;
  releasedMass = 0;
  releasedTimeSum = 0;
  /** Queued visits whose drop waits for the end of the current instant. */
  private readonly deferred = new Set<Visit>();


  offer(v: Visit): void {
    const rt = this.rt;
    if (this.queueLength === 0) {
      const free = this.slots() - this.holding;
      if (free >= v.mass - EPS) {
        this.admit(v, rt.kernel.now);
        return;
      }
      if (free > EPS) this.admit(v.splitOff(free), rt.kernel.now);
    }
    this.enqueue(v);
  }

  private enqueue(v: Visit): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    // The limit is enforced at the next tick (trimTail), sharing the rejections among the
    // cohorts of a step instead of favouring whichever arrived first.
    this.markQueued(v, now);
    if (this.live > 0) {
      // Same class queued in the same step: one cohort.
      const tail = this.queue[this.queue.length - 1];
      if (tail.state === S_QUEUED && !tail.dead && Math.floor(tail.enqueuedAt / rt.step) === Math.floor(now / rt.step) && tail.classKey() === v.classKey()) {
        const before = tail.giveUpAbove();
        tail.absorb(v);
        if (tail.giveUpAbove() !== before) this.watchAbove(tail);
        return;
      }
    }
    this.queue.push(v);
    this.live++;
    this.watchAbove(v);
    this.ensureTick();
  }

  /**
   * When a caller further up the chain gives up, the visit leaves the queue, as in DES,
   * rather than when it would reach the head. (Its own caller's timeout drops it through
   * `cancelFrom`.)
   */
  private watchAbove(v: Visit): void {
    if (!this.dropAbandoned) return;
    const at = v.giveUpAbove();
    if (at < Infinity) this.rt.kernel.schedule(Math.max(this.rt.kernel.now, at), EV_QUEUE_DEADLINE, v);
  }

  /**
   * Its merged deadline may have moved since this was scheduled: only a due one drops. The
   * caller up the chain times out at a deadline sweep due at the same instant, which may come
   * later in the event queue: the drop waits until the end of the instant, so that the
   * caller books a timeout rather than the drop's answer.
   */
  onQueueDeadline(v: Visit): void {
    const deferred = this.deferred.delete(v);
    if (v.state !== S_QUEUED || v.dead || this.rt.kernel.now < v.giveUpAbove() - 1e-9) return;
    if (!deferred) {
      this.deferred.add(v);
      this.rt.kernel.schedule(this.rt.kernel.now, EV_QUEUE_DEADLINE, v);
      return;
    }
    this.unqueue(v);
    // Its own caller still waits: it is answered with a timeout.
    v.station.drop(v, Status.timeout);
  }

  protected onReleased(m: number, now: number): void {
    this.releasedMass += m;
    this.releasedTimeSum += m * now;
    this.ensureTick();
  }

  kick(): void {
    this.ensureTick();
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


  /** Fluid: a port timed out; its oldest queued children here are dropped at once. */
  cancelFrom(port: Port): void {
    for (let i = this.qHead; i < this.queue.length && port.orphan > EPS; i++) {
      const q = this.queue[i];
      if (q.state !== S_QUEUED || q.dead || q.parent !== port) continue;
      const gone = port.claimOrphaned(q.mass, q.arrivedAt);
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

  /** Drops the head visit if its caller is gone or it waited too long; true when dropped. */
  private dropStale(v: Visit, now: number, maxWait: number): boolean {
    if (this.dropAbandoned && v.parent !== null) {
      // Mean-field: the caller's port knows how much of its in-flight mass nobody awaits.
      const gone = (v.parent as Port).claimOrphaned(v.mass, v.arrivedAt);
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
      if (now >= v.giveUpAbove() - 1e-9) {
        this.unqueue(v);
        v.station.drop(v, Status.timeout);
        return true;
      }
    }
    if (now - v.enqueuedAt > maxWait) {
      this.unqueue(v);
      v.station.drop(v, Status.shed);
      return true;
    }
    return false;
  }


  drain(): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    // Slots freed between two ticks were idle until now; starting the admitted work at the
    // mean release time keeps the station's throughput what it would be without the grid.
    let startClock = now;
    if (this.releasedMass > 0) {
      startClock = this.releasedTimeSum / this.releasedMass;
      this.releasedMass = 0;
      this.releasedTimeSum = 0;
    }
    const slots = this.slots();
    const maxWait = this.maxWaitFn ? this.maxWaitFn() : Infinity;
    const step = rt.step;
    while (this.queueLength > 0) {
      const free = slots - this.holding;
      if (free <= EPS) break;
      const head = this.queue[this.qHead];
      if (head.state !== S_QUEUED || head.dead) {
        this.shiftHead();
        continue;
      }
      if (this.dropStale(head, now, maxWait)) continue;
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
    if (this.live > 0) {
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
