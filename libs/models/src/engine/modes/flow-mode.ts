import type { RandomStream } from '../../kernel/random.stream';
import type { Evaluate } from '../../spec/expression.parser';
import type { CacheRt } from '../cache';
import type { EdgeRt } from '../call-edge';
import type { FlowSimulation } from '../flow.runtime';
import type { Gate, Instance } from '../gate';
import type { Port } from '../mean-field.port';
import type { PoolStats } from '../run.stats';
import type { Source, SourceToken } from '../source';
import type { LookasideRt, Station } from '../station';
import type { Duration } from '../value.compiler';
import type { Root, Visit } from '../visit';
import { DesFlowMode } from './des.flow-mode';
import { FluidFlowMode } from './fluid.flow-mode';

/**
 * What differs between the engine's two modes, behind one interface. The blocks (stations,
 * gates, sources, caches, edges) hold the semantics shared by both and ask the mode at each
 * point where the modes part: DES draws a random choice for one request, fluid splits a
 * cohort's mass; DES waits for one attempt, fluid answers through the caller edge's port.
 */
export interface FlowMode {
  readonly kind: 'des' | 'fluid';

  // Structure of the assembled model.
  /** Station instances simulated for `replicas` replicas (fluid: one representative). */
  instancesFor(replicas: number): number;
  /** Replicas a simulated instance stands for (fluid: all of them; DES: itself). */
  replicaScale(replicas: number): number;
  createGate(rt: FlowSimulation, slots: Evaluate, limit: Evaluate, maxWait: Evaluate | null, dropAbandoned: boolean, pool: PoolStats | null): Gate;
  /** The caller side of a call edge (fluid only). */
  createPort(rt: FlowSimulation, edge: EdgeRt, source: Source | null): Port | null;
  /** May a station with a short hold be served as a rate (fluid)? */
  readonly allowsRateRegime: boolean;
  /** May sequential repeats to a simple station be served in one visit (fluid)? */
  readonly collapsesRepeats: boolean;
  /** The lineage of an injected request (fluid shares them so cohorts can merge). */
  rootFor(rt: FlowSimulation, source: number, depth: number): Root;
  /** Schedules a visit's next step (fluid merges visits due in the same step). */
  scheduleVisit(rt: FlowSimulation, time: number, kind: number, v: Visit): void;

  // Time and random choices.
  /** A service, linger or think time: a draw (DES) or the mean (fluid). */
  duration(d: Duration, rng: RandomStream): number;
  /** Admission share `a` < 1 (a throttle); false when nothing of `v` is admitted. */
  throttle(st: Station, v: Visit, a: number): boolean;
  /** A call made with probability `p` < 1 at step `i`; false when `v` skips it. */
  partialCall(st: Station, v: Visit, edge: EdgeRt, p: number, i: number): boolean;
  /** An exclusive branch at step `i`. */
  choose(st: Station, v: Visit, branches: EdgeRt[], i: number): void;
  /** The station's own failure share `e` > 0 (sets the status, or answers the failed share). */
  failShare(st: Station, v: Visit, e: number): void;
  /** Mass of an emit with probability `p` (0: none). */
  emitMass(st: Station, v: Visit, p: number): number;
  /** Cache lookup of `keys` keys after service. */
  lookup(st: Station, v: Visit, la: LookasideRt, keys: number): void;
  /** A successful miss read fills the keys that missed. */
  fillCache(cache: CacheRt, v: Visit, scale: number): void;

  // Callers and answers.
  /** Sends a visit's call on `edge` carrying `work`. */
  startCall(rt: FlowSimulation, v: Visit, edge: EdgeRt, work: number): void;
  /** Before a call of a station that stops abandoned work: the part still awaited, or null. */
  stopAbandoned(st: Station, v: Visit): Visit | null;
  /** Mass of `v` (of `m`) whose caller no longer waits (fluid: not answered to it). */
  abandonedMass(v: Visit, m: number): number;
  /**
   * Of `m` of `v` that its caller still awaits, the mass some caller further up the chain no
   * longer waits for: answered all the same, but not goodput (DES: 0, `abandonedMass` already
   * looks up the whole chain).
   */
  abandonedAbove(v: Visit, m: number): number;
  /** A completed visit answers its caller; `abandoned` of its mass is awaited by nobody. */
  answerCaller(v: Visit, m: number, abandoned: number): void;
  /** A visit turned away or dropped answers its caller with `status`. */
  answer(v: Visit, m: number, status: number): void;

  // Sources.
  startOpenSource(src: Source): void;
  startClosedSource(src: Source): void;
  /** A rate change of an open source. */
  rescheduleSource(src: Source): void;
  fireSource(src: Source, token: SourceToken): void;
  /** Schedules an injection (fluid merges those due in the same step). */
  inject(rt: FlowSimulation, kind: number, source: Source | null, station: Station | null, mass: number, attemptNo: number, depth: number, sourceIndex: number, t0: number, t: number): void;
  /** An emitted arrival of `mass` at `st`: the mass of its visit, and the instance it reaches. */
  emitVisitMass(st: Station, mass: number): number;
  emitInstance(st: Station): Instance;
}

/** Picks the mode's implementation, as a calculator factory picks a strategy. */
export function createFlowMode(kind: 'des' | 'fluid'): FlowMode {
  return kind === 'fluid' ? new FluidFlowMode() : new DesFlowMode();
}
