import { RandomStream } from '../kernel/random.stream';
import { SimulationKernel, type RunBudget } from '../kernel/simulation.kernel';
import type { CallSpec, ClientPolicySpec, ControllerEventSpec, ModelSpec, StationSpec } from '../spec/model-spec.types';
import { Domains } from '../spec/model-spec.validator';
import { Counter, Level, TimeGrid } from './probe.recorder';
import { EV_CONTROL, EV_FLUSH, EV_INJECT, EV_LINGER_END, EV_QUEUE_DEADLINE, EV_RATE_START, EV_RETRY, EV_RETRY_FLUSH, EV_SERVICE_END, EV_SOURCE, EV_SOURCE_RATE, EV_TICK, EV_TIMEOUT, EV_VISIT_FLUSH, EV_WAIT_DEADLINE, MAX_GUARD_DEPTH, Status } from './runtime.constants';
import { EdgeStats, PoolStats } from './run.stats';
import { Port, type RetryBucket } from './mean-field.port';
import { checkedNow, compileDuration, compileValue, type ParameterStore } from './value.compiler';
import { CacheRt } from './cache';
import { RetryBudget, EdgeRt, type Call, type RetryPacket, type Attempt, retryPredicate } from './call-edge';
import { type FiredEvent, type ControlStep, ScenarioController } from './controller';
import type { FluidGate, Gate, RatePlan } from './gate';
import { Instance } from './gate';
import { createFlowMode, type FlowMode } from './modes/flow-mode';
import type { VisitBucket } from './modes/fluid.flow-mode';
import { type Packet, type Bucket, Injector } from './injector';
import { type SourceToken, Source } from './source';
import { Station } from './station';
import { Root, type Visit } from './visit';

// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;
const Infinity = globalThis.Infinity;
const Number = globalThis.Number;

/*
 * One runtime serves both engine modes. In DES mode every request is a token of mass 1
 * and random choices are drawn. In fluid mode a token is a cohort: sources emit one
 * cohort per step, and every random choice splits the cohort's mass deterministically
 * instead of drawing (a 30 % error rate sends 30 % of the mass down the error path).
 * Service times use their means, and a station whose queue is not empty admits waiting
 * mass once per step, which bounds how finely cohorts get cut. The block semantics are
 * the same code in both modes, which is what makes the two comparable; where the modes part,
 * the blocks ask the run's FlowMode (modes/des.flow-mode.ts, modes/fluid.flow-mode.ts).
 */

export interface FlowSimulationOptions {
  spec: ModelSpec;
  params: ParameterStore;
  events: ControllerEventSpec[];
  seed: number;
  mode: 'des' | 'fluid';
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
  /** `<block>.latency` and `<station>.wait` metrics whose percentiles are read. */
  percentiles: Set<string>;
}

/** The assembled model of one run: blocks, their wiring, the controller timeline. */
export class FlowSimulation {
  readonly kernel = new SimulationKernel(4096);
  /** What differs between DES and fluid mode (see modes/flow-mode.ts). */
  readonly mode: FlowMode;
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
  /** Ids of lineages and ports, counted per run: nothing in a run depends on earlier runs. */
  private lastId = 0;

  newId(): number {
    return this.lastId++;
  }
  private readonly seed: number;

  constructor(private readonly o: FlowSimulationOptions) {
    this.percentiles = o.percentiles;
    this.mode = createFlowMode(o.mode);
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
      const gate = this.mode.createGate(
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
      edge.port = this.mode.createPort(this, edge, src);
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
      const count = this.mode.instancesFor(replicas);
      for (let r = 0; r < count; r++) {
        const gate = this.mode.createGate(
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
    const step = (edge: EdgeRt, i: number): EdgeRt => {
      edge.index = st.calls.length;
      edge.nextStep = i + 1;
      st.calls.push(edge);
      return edge;
    };
    st.steps = (s.calls ?? []).map((c, i) =>
      'oneOf' in c
        ? c.oneOf.map((b, k) => step(this.compileEdge(`${s.key}->${b.to}`, b, st.scale, `edge:${s.key}:${i}:${k}`), i))
        : step(this.compileEdge(`${s.key}->${c.to}`, c, st.scale, `edge:${s.key}:${i}`), i),
    );
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
      this.mode.allowsRateRegime &&
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
    edge.plain = isPlainCall(c, policy);
    if (!stream.startsWith('source:')) edge.port = this.mode.createPort(this, edge, null);
    if (policy.concurrencyLimit !== undefined) {
      // A client-side limit is a gate in front of the callee: a hidden station whose slots
      // are permits, held for the whole attempt. The caller keeps timeouts and retries.
      const proxyKey = `${key}#limit`;
      const proxy = new Station(this, proxyKey, this.stations.length, 1, this.seed);
      proxy.service = compileDuration(undefined, store);
      proxy.linger = compileDuration(undefined, store);
      proxy.continueAfterTimeout = false;
      proxy.instances.push(new Instance(0, this.mode.createGate(this, compileValue(policy.concurrencyLimit, Infinity, store), () => Infinity, null, true, null)));
      const inner = this.compileEdge(`${key}#inner`, { ...c, policy: undefined, errorMap: undefined, onError: undefined }, 1, `${stream}:inner`);
      proxy.calls = [inner];
      proxy.steps = [inner];
      this.stations.push(proxy);
      edge.target = proxy;
      edge.fan = () => 1;
      edge.parallel = () => 1;
    }
    return edge;
  }

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

  /** The lineage of an injected request. */
  rootFor(source: number, depth: number): Root {
    return this.mode.rootFor(this, source, depth);
  }

  /** Schedules a visit's next step (fluid mode merges those of a class due in one step). */
  scheduleVisit(time: number, kind: number, v: Visit): void {
    this.mode.scheduleVisit(this, time, kind, v);
  }

  dispatch = (kind: number, target: unknown): void => {
    // The commonest kinds first.
    switch (kind) {
      case EV_SERVICE_END: {
        const v = target as Visit;
        v.station.onServiceEnd(v);
        break;
      }
      case EV_SOURCE: {
        const token = target as SourceToken;
        token.source.fire(token);
        break;
      }
      case EV_VISIT_FLUSH:
        (target as VisitBucket).fire();
        break;
      case EV_WAIT_DEADLINE:
        (target as Port).sweep();
        break;
      case EV_RETRY_FLUSH: {
        const b = target as RetryBucket;
        b.port.onRetryBucket(b);
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
        (target as FluidGate).tick();
        break;
      case EV_RATE_START: {
        const plan = target as RatePlan;
        plan.visit.station.onRatePlan(plan);
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
    const controller = new ScenarioController(this, this.o.params);
    for (const e of this.o.events) controller.schedule(e);
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
  refresh(): void {
    for (const st of this.stations) st.refreshCollapsible();
    for (const st of this.stations) st.replanRates();
    this.recordCapacity();
    for (const s of this.sources) s.reschedule();
    for (const st of this.stations) for (const inst of st.instances) inst.gate.kick();
    for (const p of this.pools.values()) p.gate.kick();
  }

}

/** Zero or absent: a literal that switches a policy field off for the whole run. */
const off = (x: unknown): boolean => x === undefined || x === 0;

/**
 * A call whose attempts nothing acts on: no timeout, no retries, no retry budget, no client
 * concurrency limit, one callee (no multiplicity, fan-out of one). Decided from the spec's
 * literals, so a parameter that could switch a policy on later keeps the general path.
 */
function isPlainCall(c: CallSpec, policy: ClientPolicySpec): boolean {
  return (
    off(policy.timeout) &&
    off(policy.retries) &&
    policy.retryBudget === undefined &&
    policy.concurrencyLimit === undefined &&
    (c.multiplicity === undefined || c.multiplicity === 1) &&
    (c.fanOut === undefined || c.fanOut === 'one' || c.fanOut === 1)
  );
}

export { Status } from './runtime.constants';
export { StationStats, EdgeStats, SourceStats, CacheStats, PoolStats } from './run.stats';
export { Port } from './mean-field.port';
export { Visit } from './visit';
export { Station } from './station';
export { Source } from './source';
export { CacheRt } from './cache';
export { Gate, Instance } from './gate';
export { EdgeRt, Call, Attempt } from './call-edge';
export type { FiredEvent } from './controller';
