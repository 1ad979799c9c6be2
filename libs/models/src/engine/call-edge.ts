import type { RandomStream } from '../kernel/random.stream';
import type { Evaluate } from '../spec/expression.parser';
import type { RetryCondition } from '../spec/model-spec.types';
import * as constants from './runtime.constants';
import type { EdgeStats } from './run.stats';
import type { Port } from './mean-field.port';
import type { FlowSimulation } from './flow.runtime';
import type { Source } from './source';
import type { Station } from './station';
import { type Root, Visit } from './visit';

/** Call edges: a caller's client policy (timeouts, retries, backoff, budget) and its calls and attempts in DES mode. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
// The same for the runtime's constants: transpiled to CommonJS, an imported name is a getter
// on the module object, read at every use; bound once here, it is a local constant.
const { EPS, EV_RETRY, EV_TIMEOUT, OK, Status } = constants;
const Infinity = globalThis.Infinity;

export class RetryBudget {
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

  /** DES: the retry of `mass` is allowed whole if a token is left, else not at all. */
  take(now: number, mass: number): number {
    this.refill(now);
    const allowed = this.tokens >= 1 ? mass : 0;
    this.tokens -= allowed;
    return allowed;
  }

  /** Fluid: the share of `mass` the tokens allow. */
  takeShare(now: number, mass: number): number {
    this.refill(now);
    const allowed = Math.min(mass, this.tokens);
    this.tokens -= allowed;
    return allowed;
  }
}

export interface Backoff {
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
  /** Position in the caller's `calls`, and the call step that follows this one. */
  index = 0;
  nextStep = 1;
  /**
   * No client policy that acts on an attempt (no timeout, no retries, no retry budget) and one
   * callee per call: DES sends such a call from a source without a Call or an Attempt.
   */
  plain = false;

  constructor(
    readonly key: string,
    readonly stats: EdgeStats,
    /** Fluid mode: replicas the caller's representative cohort stands for (1 for a source). */
    readonly callerScale: number,
  ) {}

  /** DES: delay before retry number `r` (1-based), its jitter drawn. */
  drawDelay(r: number): number {
    return this.delay(r, -1);
  }

  /** Fluid: delay before retry `r` at jitter quantile `quantile` (-1: the mean, 0.5). */
  delayAt(r: number, quantile: number): number {
    return this.delay(r, quantile < 0 ? 0.5 : quantile);
  }

  /** `u` < 0: draw the jitter from the edge's stream. */
  private delay(r: number, u: number): number {
    const b = this.backoff;
    if (!b || b.kind === 'none') return 0;
    let d = b.kind === 'constant' ? b.base() : b.base() * Math.pow(b.multiplier(), r - 1);
    const max = b.max();
    if (max > 0 && d > max) d = max;
    if (b.jitter === 'none') return d;
    const x = u >= 0 ? u : this.rng.next();
    return b.jitter === 'full' ? d * x : d / 2 + (d / 2) * x;
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
    const es = edge.stats;
    if (es.attempts.on) es.attempts.add(now, mass);
    if (attemptNo > 1 && es.retries.on) es.retries.add(now, mass);
    const src = this.source;
    if (src !== null) {
      if (src.stats.attempts.on) src.stats.attempts.add(now, mass);
      if (attemptNo > 1 && src.stats.retries.on) src.stats.retries.add(now, mass);
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
      const allowed = edge.budget ? edge.budget.take(rt.kernel.now, x) : x;
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
    const delay = this.edge.drawDelay(attemptNo - 1);
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

export class RetryPacket {
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
  /** Tells an attempt from a fluid port where a visit's `parent` may be either. */
  readonly kind = 'attempt' as const;
  remaining: number;
  deadline = Infinity;
  abandoned = false;
  pending = 0;
  worst = OK;

  constructor(
    readonly call: Call,
    readonly mass: number,
    readonly rep: number,
    readonly attemptNo: number,
    readonly repetitions: number,
  ) {
    this.remaining = mass;
  }

  childResult(x: number, status: number): void {
    if (this.abandoned || this.remaining <= EPS) return;
    if (status !== OK && this.worst === OK) this.worst = status;
    if (--this.pending === 0) this.resolve(this.remaining, this.worst);
    void x;
  }

  resolve(x: number, status: number): void {
    const call = this.call;
    const now = call.rt.kernel.now;
    if (call.edge.stats.resolved.on) call.edge.stats.resolved.add(now, x);
    if (call.source !== null && call.source.stats.resolved.on) call.source.stats.resolved.add(now, x);
    this.remaining -= x;
    if (this.remaining < EPS) this.remaining = 0;
    this.call.onAttemptResult(this, x, status);
  }

  onTimeout(): void {
    if (this.abandoned || this.remaining <= EPS) return;
    this.abandoned = true;
    // Booked when the timeout fires, like every other outcome.
    const now = this.call.rt.kernel.now;
    this.call.edge.stats.timeouts.add(now, this.remaining);
    if (this.call.source) this.call.source.stats.timeouts.add(now, this.remaining);
    this.resolve(this.remaining, Status.timeout);
  }
}


export function retryPredicate(conditions: RetryCondition[]): (status: number) => boolean {
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
