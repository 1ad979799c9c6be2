import { EPS, EV_RETRY_FLUSH, EV_WAIT_DEADLINE, OK, Status } from './runtime.constants';
import type { EdgeRt } from './call-edge';
import type { FluidGate } from './gate';
import type { FlowSimulation } from './flow.runtime';
import type { Source } from './source';
import { Deadlines, Visit } from './visit';

// Local bindings for globals read in hot loops (see flow.runtime.ts).
const Math = globalThis.Math;
const Array = globalThis.Array;
const Infinity = globalThis.Infinity;

/** Adds `vec` into `into` (mass by attempt number), growing it as needed. */
export function addInto(into: number[], vec: number[]): number[] {
  while (into.length < vec.length) into.push(0);
  for (let i = 1; i < vec.length; i++) into[i] += vec[i];
  return into;
}

export function firstAttempt(mass: number): number[] {
  return [0, mass];
}

/** Small code for a status, used in merge keys. */
export function statusCode(status: number): number {
  switch (status) {
    case OK:
      return 0;
    case 400:
      return 1;
    case 429:
      return 2;
    case 500:
      return 3;
    case 502:
      return 4;
    case 503:
      return 5;
    case 504:
      return 6;
    default:
      return 7;
  }
}

/** Fluid: a caller's share of a call in progress, waiting in its port. */
export class Wait {
  remaining: number;
  deadline = Infinity;
  childMass = 0;
  done = 0;
  okDone = 0;
  reportedAll = 0;
  reportedOk = 0;
  worst = OK;
  dead = false;
  /** Its child carries all the remaining sequential repeats. */
  collapsed = false;

  constructor(
    public caller: Visit | null,
    public mass: number,
    /** Remaining mass by attempt number (index 1 = first attempt): retry generations share a cohort. */
    public attempts: number[],
    readonly rep: number,
    readonly reps: number,
    readonly sentAt: number,
    public t0: number,
    readonly exponent: number,
    readonly work: number,
  ) {
    this.remaining = mass;
  }

  get outstanding(): number {
    return this.childMass - this.done;
  }

  /** Removes `x` of the remaining mass, taking every attempt number in proportion. */
  take(x: number): number[] {
    const f = this.remaining > 0 ? Math.min(1, x / this.remaining) : 1;
    const out = new Array<number>(this.attempts.length).fill(0);
    for (let i = 1; i < out.length; i++) {
      out[i] = this.attempts[i] * f;
      this.attempts[i] -= out[i];
    }
    this.remaining -= x;
    if (this.remaining < EPS) this.remaining = 0;
    return out;
  }
}

/**
 * Fluid: mass a port's callers stopped waiting for, still on its way back. Only an answer
 * that can belong to it repays it: one at least `minAge` old (sent long enough ago for its
 * caller to have given up) and sent no later than `sentBy`.
 */
export class OrphanDebt {
  constructor(
    public mass: number,
    readonly minAge: number,
    readonly sentBy: number,
  ) {}
}

export class RetryBucket {
  mass = 0;
  dueSum = 0;
  t0Sum = 0;
  fired = false;
  attempts: number[] = [0, 0];
  constructor(
    readonly port: Port,
    readonly window: number,
    readonly classKey: number,
    public caller: Visit | null,
    readonly rep: number,
    readonly reps: number,
    readonly work: number,
  ) {}

  add(vec: number[]): void {
    while (this.attempts.length < vec.length) this.attempts.push(0);
    for (let i = 1; i < vec.length; i++) this.attempts[i] += vec[i];
  }
}

/**
 * Fluid mode: the caller side of one call edge, shared by every caller cohort (mean-field
 * linkage). Children answer the port rather than a particular caller; answers go to the
 * callers that sent at the same time first, so each caller's timeout still sees the right
 * latency. Mass whose caller timed out becomes an orphan debt, repaid by later answers old
 * enough to be that mass (they count as work nobody waited for); younger answers, sent after
 * it or answered within the timeout, still reach their callers, and so do answers in the last
 * step before their callers' deadline.
 */
export class Port {
  /** Tells a port from a DES attempt where a visit's `parent` may be either. */
  readonly kind = 'port' as const;
  /** Unique within its run (FlowSimulation.newId). */
  readonly id: number;
  private waits: Wait[] = [];
  private head = 0;
  private depth = 0;
  /** Total of `debts`: mass nobody waits for any more. */
  orphan = 0;
  /** The orphan debt by the answers that may repay it, oldest first. */
  private debts: OrphanDebt[] = [];
  private readonly retryByWindow = new Map<number, RetryBucket[]>();
  /** While a delivery is being matched: callers that finished, grouped to continue as one. */
  private batch: Map<number, { visit: Visit; status: number }> | null = null;
  private sweepAt = Infinity;
  /** Class prefix of this port's children, per lineage. */
  private readonly childPrefix = new Map<number, number>();
  /** Open sources: client retries due per step, sent with the source's own arrivals. */
  private readonly dueRetries = new Map<number, { attempts: number[]; mass: number; t0Sum: number }>();

  constructor(
    readonly rt: FlowSimulation,
    readonly edge: EdgeRt,
    readonly source: Source | null,
  ) {
    this.id = rt.newId();
  }

  /** True when this port's retries ride on its source's per-step arrivals. */
  private get retriesWithArrivals(): boolean {
    const src = this.source;
    return src !== null && src.kind === 'open' && src.trace === null;
  }

  /** Called by the source at each step: retries due in this step join the new arrivals. */
  takeDueRetries(step: number): { attempts: number[]; mass: number; t0Sum: number } | null {
    const due = this.dueRetries.get(step);
    if (due === undefined) return null;
    this.dueRetries.delete(step);
    return due;
  }

  /**
   * Of `m` answered (or about to be served) by children sent at `sentAt`, the share nobody
   * waits for: what it repays of the debts it can belong to.
   */
  claimOrphaned(m: number, sentAt: number): number {
    if (this.orphan <= EPS) return 0;
    // Callers that sent in the same step and still wait are answered first: in the last step
    // before their deadline an answer old enough to repay a debt may still be theirs.
    const live = this.liveOutstanding(sentAt);
    if (live >= m) return 0;
    m -= live;
    const age = this.rt.kernel.now - sentAt;
    const debts = this.debts;
    let claimed = 0;
    let emptied = false;
    for (let i = 0; i < debts.length && claimed < m; i++) {
      const d = debts[i];
      if (age < d.minAge - 1e-9 || sentAt > d.sentBy + 1e-9) continue;
      const want = m - claimed;
      const a = want < d.mass ? want : d.mass;
      d.mass -= a;
      claimed += a;
      if (d.mass <= EPS) emptied = true;
    }
    if (emptied) this.debts = debts.filter((d) => d.mass > EPS);
    this.orphan -= claimed;
    if (this.orphan < EPS || this.debts.length === 0) this.orphan = 0;
    return claimed;
  }

  /** Adds mass nobody waits for, merged with the newest debt when the same answers repay both. */
  private addDebt(mass: number, minAge: number, sentBy: number): void {
    this.orphan += mass;
    const last = this.debts.length > 0 ? this.debts[this.debts.length - 1] : null;
    // Ages computed from different deadlines of one timeout differ in their last bits: within
    // a billionth of the timeout (`minAge` + a step) they are the same age.
    if (last !== null && Math.abs(last.minAge - minAge) <= 1e-9 * (minAge + this.rt.step) && last.sentBy === sentBy) last.mass += mass;
    else this.debts.push(new OrphanDebt(mass, minAge, sentBy));
  }

  /** Sends `attempts` (mass by attempt number) of the caller cohort to the callee. */
  send(caller: Visit | null, attempts: number[], rep: number, reps: number, t0: number, work: number): void {
    let mass = 0;
    let retried = 0;
    for (let i = 1; i < attempts.length; i++) {
      mass += attempts[i];
      if (i > 1) retried += attempts[i];
    }
    if (mass <= EPS) return;
    const rt = this.rt;
    const now = rt.kernel.now;
    const edge = this.edge;
    edge.stats.attempts.add(now, mass);
    if (retried > 0) edge.stats.retries.add(now, retried);
    if (this.source) {
      this.source.stats.attempts.add(now, mass);
      if (retried > 0) this.source.stats.retries.add(now, retried);
    }
    if (edge.budget) edge.budget.earn(now, attempts[1]);
    const r = reps > 0 ? reps : Math.max(1, Math.round(edge.sequential()));
    const target = edge.target;
    const k = Math.max(1, Math.round(edge.parallel()));
    const fan = edge.fan();
    // The caller's representative replica stands for all its replicas; the callee's gets
    // its share of their fan-out. A request waits for all fan × k of its children.
    const exponent = k * fan;
    const childMass = (mass * edge.callerScale * k * fan) / target.replicas;
    const collapse = r - rep > 1 && target.canCollapseRepeats();
    let w: Wait | null = null;
    const last = this.waits.length > this.head ? this.waits[this.waits.length - 1] : null;
    if (
      last !== null &&
      !last.dead &&
      last.done === 0 &&
      last.remaining === last.mass &&
      last.rep === rep &&
      last.reps === r &&
      last.exponent === exponent &&
      !last.collapsed &&
      !collapse &&
      Math.abs(last.work - work) <= 1e-9 * Math.max(1, work) &&
      Math.floor(last.sentAt / rt.step) === Math.floor(now / rt.step) &&
      (last.caller === null ? caller === null : caller !== null && last.caller.classKey() === caller.classKey())
    ) {
      w = last;
      w.t0 = (w.t0 * w.mass + t0 * mass) / (w.mass + mass);
      w.mass += mass;
      w.remaining += mass;
      w.attempts = addInto(w.attempts, attempts);
      if (w.caller !== null && caller !== null) w.caller.absorb(caller);
    } else {
      w = new Wait(caller, mass, attempts.slice(), rep, r, now, t0, exponent, work);
      this.waits.push(w);
      const timeout = edge.timeout();
      if (timeout > 0) {
        w.deadline = now + timeout;
        this.armSweep(w.deadline);
      }
    }
    w.childMass += childMass;
    const root = caller !== null ? caller.root : (this.source as Source).root;
    const child = new Visit(childMass, target, target.instances[0], this, root, work, now);
    // Past its caller's deadline or one further up, the child's work is for a caller that
    // gave up, at whatever depth. A wait gives up at its deadline sweep, on the step grid.
    const waitEnd = w.deadline < Infinity ? Math.max(now, Math.ceil(w.deadline / rt.step - 1e-9) * rt.step) : Infinity;
    const above = caller === null || caller.deadlines === null ? Infinity : Math.min(caller.deadlines.wait, caller.deadlines.up);
    if (waitEnd < Infinity || above < Infinity) child.deadlines = new Deadlines(waitEnd, above);
    let prefix = this.childPrefix.get(root.id);
    if (prefix === undefined) {
      prefix = rt.prefixOf(child);
      this.childPrefix.set(root.id, prefix);
    }
    child.prefix = prefix;
    // Repeats to a station that cannot queue or fail take the same time back to back as
    // one after the other: send them as one visit served `reps` times.
    if (collapse) {
      child.repeat = r - rep;
      w.collapsed = true;
    }
    target.arrive(child);
  }

  /** An answer from a child cohort of mass `x` (child units); `child` tells when it was sent. */
  childResult(x: number, status: number, child: Visit): void {
    if (x <= EPS) return;
    this.depth++;
    const waits = this.waits;
    const i0 = this.lastSentBy(child.arrivedAt);
    // Callers that sent at the same time first, then older ones, then younger ones. Matching
    // can re-enter this port (a rejected resend answers at once); the array is only
    // compacted by the outermost call, so indices stay valid meanwhile.
    const outer = this.beginBatch();
    for (let i = i0; i >= this.head && x > EPS; i--) x = this.offer(waits[i], x, status);
    for (let i = i0 + 1; i < waits.length && x > EPS; i++) x = this.offer(waits[i], x, status);
    this.depth--;
    this.compact();
    if (outer) this.endBatch();
  }

  /** Index of the newest wait sent no later than `sentAt` (the oldest one when none is). */
  private lastSentBy(sentAt: number): number {
    const waits = this.waits;
    let lo = this.head;
    let hi = waits.length - 1;
    let i0 = this.head;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (waits[mid].sentAt <= sentAt + 1e-9) {
        i0 = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return i0;
  }

  /**
   * Mass still awaited by the callers that sent in the step of `sentAt` and have not reached
   * their deadline (child units).
   */
  private liveOutstanding(sentAt: number): number {
    const waits = this.waits;
    const step = this.rt.step;
    const now = this.rt.kernel.now;
    const k = Math.floor(sentAt / step);
    const i0 = this.lastSentBy(sentAt);
    let live = 0;
    for (let i = i0; i >= this.head && i < waits.length && Math.floor(waits[i].sentAt / step) === k; i--) {
      const w = waits[i];
      if (!w.dead && w.deadline > now + 1e-9) live += w.outstanding;
    }
    for (let i = i0 + 1; i < waits.length && Math.floor(waits[i].sentAt / step) === k; i++) {
      const w = waits[i];
      if (!w.dead && w.deadline > now + 1e-9) live += w.outstanding;
    }
    return live;
  }

  private beginBatch(): boolean {
    if (this.batch !== null) return false;
    this.batch = new Map();
    return true;
  }

  /** Continues the callers finished by one delivery, merged by class and outcome. */
  private endBatch(): void {
    const batch = this.batch as Map<number, { visit: Visit; status: number }>;
    this.batch = null;
    for (const { visit, status } of batch.values()) {
      if (!visit.dead && visit.mass > EPS) visit.onCallResult(visit.mass, status);
    }
  }

  private offer(w: Wait | undefined, x: number, status: number): number {
    if (w === undefined || w.dead) return x;
    const out = w.outstanding;
    if (out <= EPS) return x;
    const a = x < out ? x : out;
    this.receive(w, a, status);
    return x - a;
  }

  private compact(): void {
    if (this.depth > 0) return;
    const waits = this.waits;
    while (this.head < waits.length) {
      const w = waits[this.head];
      if (!w.dead && (w.remaining > EPS || w.outstanding > EPS)) break;
      waits[this.head] = undefined as unknown as Wait;
      this.head++;
    }
    if (this.head === waits.length) {
      this.waits = [];
      this.head = 0;
    } else if (this.head > 256 && this.head * 2 > waits.length) {
      this.waits = waits.slice(this.head);
      this.head = 0;
    }
  }

  private receive(w: Wait, a: number, status: number): void {
    if (status !== OK) w.worst = status;
    w.done += a;
    if (status === OK) w.okDone += a;
    const cm = w.childMass;
    const complete = w.done >= cm * (1 - 1e-9);
    const f = complete ? 1 : w.done / cm;
    const g = Math.min(f, w.okDone / cm);
    const e = w.exponent;
    // Independent children: all of a request's children are back with probability f^e.
    const all = e === 1 ? f : Math.pow(f, e);
    const ok = e === 1 ? g : Math.pow(g, e);
    let okPart = (ok - w.reportedOk) * w.mass;
    let failPart = (all - w.reportedAll) * w.mass - okPart;
    w.reportedAll = all;
    w.reportedOk = ok;
    if (complete) {
      failPart += w.remaining - okPart - failPart;
      if (failPart < 0) {
        okPart += failPart;
        failPart = 0;
      }
    }
    if (okPart > EPS && w.remaining > EPS) this.resolve(w, Math.min(okPart, w.remaining), OK);
    if (failPart > EPS && w.remaining > EPS) this.resolve(w, Math.min(failPart, w.remaining), w.worst === OK ? Status.error : w.worst);
  }

  /**
   * Detaches the caller's share `x`. When `last` (nothing remains in the wait after this
   * share) the whole remaining cohort goes, which also absorbs rounding drift.
   */
  private takeCaller(w: Wait, x: number, last: boolean): Visit | null {
    const c = w.caller;
    if (c === null) return null;
    if (last || c.mass - x <= EPS * Math.max(1, c.mass)) {
      w.caller = null;
      return c;
    }
    return c.splitOff(x);
  }

  private resolve(w: Wait, x: number, status: number): void {
    const now = this.rt.kernel.now;
    this.edge.stats.resolved.add(now, x);
    if (this.source !== null) this.source.stats.resolved.add(now, x);
    const taken = w.take(x);
    if (w.caller !== null && w.caller.dead) return;
    const consumed = w.remaining <= EPS;
    const edge = this.edge;
    if (status === OK) {
      const piece = this.takeCaller(w, x, consumed);
      if (w.rep + 1 < w.reps && !w.collapsed) {
        this.send(piece, firstAttempt(x), w.rep + 1, w.reps, w.t0, w.work);
        return;
      }
      this.finish(w, x, OK, piece);
      return;
    }
    // Each attempt number with retries left goes round again one generation older.
    const maxRetries = edge.retries();
    let retry = 0;
    // Attempt numbers beyond retries + 1 never carry mass: the vector stays that short.
    const next = new Array<number>(Math.max(2, Math.min(taken.length + 1, maxRetries + 2))).fill(0);
    if (edge.retryOn(status)) {
      for (let i = 1; i < taken.length && i <= maxRetries; i++) {
        next[i + 1] = taken[i];
        retry += taken[i];
      }
    }
    if (retry > EPS && edge.budget) {
      const allowed = edge.budget.takeShare(this.rt.kernel.now, retry);
      if (allowed < retry) {
        const f = allowed / retry;
        for (let i = 0; i < next.length; i++) next[i] *= f;
        retry = allowed;
      }
    }
    const fail = x - retry;
    const retrying = retry > EPS;
    const failing = fail > EPS;
    // Split the caller into the share that retries and the share that fails; the last of
    // them takes what is left of the cohort.
    const retryPiece = retrying ? this.takeCaller(w, retry, consumed && !failing) : null;
    const failPiece = failing ? this.takeCaller(w, fail, consumed) : null;
    if (retrying) this.retry(w, next, retry, retryPiece);
    if (failing) this.finish(w, fail, status, failPiece);
  }

  private finish(w: Wait, x: number, status: number, piece: Visit | null): void {
    const edge = this.edge;
    if (status !== OK) edge.stats.failures.add(this.rt.kernel.now, x);
    if (piece !== null) {
      const mapped = status === OK ? OK : (edge.errorMap.get(status) ?? status);
      if (this.batch !== null) {
        const key = piece.classKey() * 8 + statusCode(mapped);
        const held = this.batch.get(key);
        if (held) held.visit.absorb(piece);
        else this.batch.set(key, { visit: piece, status: mapped });
        return;
      }
      piece.onCallResult(piece.mass, mapped);
    } else if (this.source !== null) {
      this.source.onFinished(x, status, w.t0);
    }
  }

  /** Schedules the retries `next` (mass by attempt number), each after its own backoff. */
  private retry(w: Wait, next: number[], mass: number, piece: Visit | null): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    const edge = this.edge;
    const b = edge.backoff;
    const jitter = this.source !== null && b !== null && b.kind !== 'none' && b.jitter !== 'none';
    // Jitter spreads client retries in time; four quantiles keep that spread.
    const q = jitter ? 4 : 1;
    const viaSource = this.retriesWithArrivals;
    // Retries due in the same step leave together: group before splitting the caller.
    const groups = new Map<number, { vec: number[]; x: number; dueSum: number }>();
    for (let i = 2; i < next.length; i++) {
      if (next[i] <= EPS) continue;
      const x = next[i] / q;
      for (let j = 0; j < q; j++) {
        const due = now + edge.delayAt(i - 1, jitter ? (j + 0.5) / q : -1);
        const win = Math.floor(due / rt.step);
        let g = groups.get(win);
        if (g === undefined) {
          g = { vec: new Array<number>(next.length).fill(0), x: 0, dueSum: 0 };
          groups.set(win, g);
        }
        g.vec[i] += x;
        g.x += x;
        g.dueSum += x * due;
      }
    }
    const key = piece !== null ? piece.classKey() : -1;
    let left = mass;
    for (const g of groups.values()) {
      const due = g.dueSum / g.x;
      if (viaSource) {
        this.addDueRetry(g.vec, g.x, w.t0, due);
        continue;
      }
      left -= g.x;
      // Each bucket carries its own share of the caller cohort.
      const part = piece === null ? null : left <= EPS * Math.max(1, mass) ? piece : piece.splitOff(g.x);
      this.addRetry(part, key, g.vec, g.x, w, due);
    }
  }

  private addDueRetry(vec: number[], x: number, t0: number, due: number): void {
    const rt = this.rt;
    // The source sends at the middle of each step: a retry due in step k goes out then.
    let k = Math.floor(due / rt.step);
    if ((k + 0.5) * rt.step < rt.kernel.now - 1e-9) k++;
    let d = this.dueRetries.get(k);
    if (d === undefined) {
      d = { attempts: [0], mass: 0, t0Sum: 0 };
      this.dueRetries.set(k, d);
    }
    addInto(d.attempts, vec);
    d.mass += x;
    d.t0Sum += x * t0;
  }

  private addRetry(caller: Visit | null, classKey: number, vec: number[], x: number, w: Wait, due: number): void {
    const rt = this.rt;
    const win = Math.floor(due / rt.step);
    let list = this.retryByWindow.get(win);
    if (list === undefined) {
      list = [];
      this.retryByWindow.set(win, list);
    }
    let b: RetryBucket | undefined;
    for (const c of list) {
      if (!c.fired && c.classKey === classKey && c.rep === w.rep && c.reps === w.reps && c.work === w.work) {
        b = c;
        break;
      }
    }
    if (b === undefined) {
      b = new RetryBucket(this, win, classKey, null, w.rep, w.reps, w.work);
      list.push(b);
      // A bucket whose step has already begun stays open until its first retry is due, so
      // the retries of a whole step still leave together.
      rt.kernel.schedule(Math.max(rt.kernel.now, win * rt.step, win * rt.step < rt.kernel.now ? due : 0), EV_RETRY_FLUSH, b);
    }
    if (caller !== null) {
      if (b.caller === null) b.caller = caller;
      else b.caller.absorb(caller);
    }
    b.add(vec);
    b.mass += x;
    b.dueSum += x * due;
    b.t0Sum += x * w.t0;
  }

  onRetryBucket(b: RetryBucket): void {
    const rt = this.rt;
    const now = rt.kernel.now;
    if (!b.fired) {
      const list = this.retryByWindow.get(b.window);
      if (list !== undefined) {
        const i = list.indexOf(b);
        if (i >= 0) list.splice(i, 1);
        if (list.length === 0) this.retryByWindow.delete(b.window);
      }
      b.fired = true;
      const t = b.dueSum / b.mass;
      if (t > now) {
        rt.kernel.schedule(t, EV_RETRY_FLUSH, b);
        return;
      }
    }
    if (b.caller !== null && b.caller.dead) return;
    this.send(b.caller, b.attempts, b.rep, b.reps, b.t0Sum / b.mass, b.work);
  }

  /** One deadline sweep per step at most: waits time out in batches, not one event each. */
  private armSweep(deadline: number): void {
    if (this.sweepAt <= deadline) return;
    const step = this.rt.step;
    this.sweepAt = Math.max(this.rt.kernel.now, Math.ceil(deadline / step - 1e-9) * step);
    this.rt.kernel.schedule(this.sweepAt, EV_WAIT_DEADLINE, this);
  }

  sweep(): void {
    if (this.rt.kernel.now < this.sweepAt) return;
    this.sweepAt = Infinity;
    const outer = this.beginBatch();
    const now = this.rt.kernel.now;
    let next = Infinity;
    this.depth++;
    const waits = this.waits;
    for (let i = this.head; i < waits.length; i++) {
      const w = waits[i];
      if (w === undefined || w.dead || w.remaining <= EPS) continue;
      if (w.deadline <= now + 1e-9) this.onDeadline(w);
      else if (w.deadline < next) next = w.deadline;
    }
    this.depth--;
    this.compact();
    if (outer) this.endBatch();
    if (next < Infinity) this.armSweep(next);
  }

  private onDeadline(w: Wait): void {
    if (w.dead || w.remaining <= EPS) return;
    const rt = this.rt;
    const now = rt.kernel.now;
    const out = w.outstanding;
    if (out > EPS) {
      // Its children were sent in the step of `sentAt` with this deadline: an answer of one
      // of them is at least the timeout less a step old. Sent times are not bounded, since a
      // merged cohort's time is the average of its parts'.
      this.addDebt(out, Math.max(0, w.deadline - w.sentAt - rt.step), Infinity);
      w.done = w.childMass;
    }
    // Booked when the timeout fires, like every other outcome.
    this.edge.stats.timeouts.add(now, w.remaining);
    if (this.source !== null) this.source.stats.timeouts.add(now, w.remaining);
    this.resolve(w, w.remaining, Status.timeout);
    if (out > EPS) {
      const target = this.edge.target;
      for (const inst of target.instances) if (inst.gate.dropAbandoned) (inst.gate as FluidGate).cancelFrom(this);
    }
  }

  /** The caller's station was stopped: nobody waits any more. */
  abandonAll(): void {
    for (let i = this.head; i < this.waits.length; i++) {
      const w = this.waits[i];
      if (w === undefined || w.dead) continue;
      w.dead = true;
      const out = w.outstanding;
      // Everything sent so far is abandoned, however young.
      if (out > EPS) this.addDebt(out, 0, this.rt.kernel.now);
    }
    if (this.depth === 0) {
      this.waits = [];
      this.head = 0;
    }
  }
}
