/**
 * Upper bounds on every size in a spec that costs memory or time, so that a spec accepted by
 * the validator cannot exhaust a worker. Each bound sits well above what a model of a real
 * incident needs (the seed models stay at least ten times below every one) and well below
 * what hurts: measured before the bounds existed, 4e8 cache nodes allocated 3.2 GB,
 * 2e6 replicas or 1e7 closed users 0.9–1.3 GiB, and 5,000 probes × 500 points kept the
 * calling thread busy for about 19 s.
 */
export const SpecLimits = {
  /** Stations, sources, pools and caches per spec (each is objects and per-window series). */
  blocks: 1000,
  /** Nodes of one cache: a Float64Array, and fluid lookups average over every node. */
  cacheNodes: 100_000,
  /** Replicas of one station: DES keeps a gate per replica; a scatter makes a visit per replica. */
  replicas: 10_000,
  /** Closed users of one source: DES keeps a pending arrival per user. */
  users: 1_000_000,
  /** Calls per visit from one call edge (multiplicity) and keys per look-aside visit. */
  perVisit: 10_000,
  /** Retries per attempt chain. */
  retries: 1000,
  /** Probes × points per series: the result size and the time to read the series. */
  probeCells: 100_000,
  /** Figures plus checks (each reads the fine windows of its metrics). */
  measures: 2000,
  /** Controller events (a ramp or a cache flush expands into many steps). */
  events: 10_000,
  /** Entries of an arrival trace or a rate profile. */
  traceEntries: 1_000_000,
  /** Fluid mode: steps per run (horizon / fluidStep); each step fires every source and gate. */
  fluidSteps: 2_000_000,
  /** Runs of one seed ensemble (each is a full scenario run). */
  ensembleSeeds: 200,
  /** Points of one parameter sweep (one or two parameters: the product of both counts). */
  sweepPoints: 400,
  /** Runs of one boundary search (bisection steps plus the two ends). */
  boundaryRuns: 40,
  /** A scenario's own event budget (the installation's budget applies on top). */
  maxEvents: 1_000_000_000,
} as const;

/** Seconds per fluid step when neither the spec nor the run names one. */
export const DEFAULT_FLUID_STEP = 0.1;
