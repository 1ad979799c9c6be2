import type { ModelSpec } from '../spec/model-spec.types';
import { specWith } from './spec.fixtures';

/**
 * Minimal specs on which DES and fluid mode must agree. Shared by the agreement tests and
 * the golden test (which pins their serialized results), so each case is written once.
 */

/** Sessions held = connection rate × hold time (keep-alive). */
export function keepAliveSpec(): ModelSpec {
  return specWith({
    horizon: 1000,
    stations: [{ key: 'lb', slots: null, service: { dist: 'exponential', mean: 0.05 }, linger: 5 }],
    sources: [{ key: 'conns', kind: 'open', target: 'lb', rate: 200 }],
    figures: [{ name: 'sessions', label: 's', unit: 'sessions', measure: { metric: 'lb.concurrency', stat: 'mean', from: 100 } }],
  });
}

/** An overloaded station; with a call it is served by slots, without by rate (short service). */
export function overloadSpec(withCall: boolean): ModelSpec {
  return specWith({
    horizon: 600,
    stations: [
      {
        key: 'server',
        slots: 10,
        queue: { limit: 200 },
        service: { dist: 'exponential', mean: withCall ? 0.2 : 0.04 },
        calls: withCall ? [{ to: 'cache' }] : [],
      },
      { key: 'cache', slots: null, service: 0 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'server', rate: withCall ? 80 : 400 }],
    figures: [
      { name: 'served', label: 'served', unit: 'req/s', measure: { metric: 'server.throughput', stat: 'mean', from: 60 } },
      { name: 'shed', label: 'shed', unit: 'req/s', measure: { metric: 'server.rejected', stat: 'mean', from: 60 } },
    ],
  });
}

/** Every completion emits two new events after 1 s; capacity 100 / 0.2 = 500 events/s. */
export function feedbackLoopSpec(): ModelSpec {
  return specWith({
    horizon: 30,
    stations: [
      {
        key: 'handler',
        slots: 100,
        queue: { limit: 5000 },
        service: { dist: 'exponential', mean: 0.2 },
        emits: [
          { to: 'handler', delay: 1 },
          { to: 'handler', delay: 1 },
        ],
      },
    ],
    sources: [{ key: 'seed', kind: 'open', target: 'handler', trace: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] }],
    figures: [
      {
        name: 'growth',
        label: 'growth',
        unit: '1/s',
        measures: {
          early: { metric: 'handler.throughput', stat: 'integral', from: 2, to: 3 },
          later: { metric: 'handler.throughput', stat: 'integral', from: 5, to: 6 },
        },
        value: 'ln(later / early) / 3',
      },
      { name: 'saturated', label: 'served', unit: 'req/s', measure: { metric: 'handler.throughput', stat: 'mean', from: 18 } },
    ],
  });
}

/** Half the cache nodes are flushed at t = 100 and refill from successful misses. */
export function cacheRefillSpec(): ModelSpec {
  return specWith({
    horizon: 900,
    caches: [{ key: 'cache', nodes: 10, keysPerNode: 2000, hitCeiling: 1 }],
    stations: [
      { key: 'app', slots: null, service: 0.001, lookaside: { cache: 'cache', keys: 2, onMiss: { to: 'db' } } },
      { key: 'db', slots: null, service: 0.01 },
    ],
    sources: [{ key: 'reads', kind: 'open', target: 'app', rate: 100 }],
    events: [{ key: 'flush', at: 100, kind: 'cacheFlush', cache: 'cache', fraction: 0.5, label: 'Half the nodes flushed' }],
    figures: [
      { name: 'after', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 100, to: 130 } },
      { name: 'mid', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 250, to: 300 } },
      { name: 'late', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 700 } },
    ],
  });
}

/**
 * A station whose service (50 ms) is shorter than the fluid step loses 80 % of its slots at
 * t = 10 and gets them back at t = 20. Offered 100/s against 200/s of capacity, the backlog
 * of about 600 requests drains at 100/s: the queue is empty again near t = 26.
 */
export function capacityRestoreSpec(): ModelSpec {
  return specWith({
    horizon: 60,
    points: 120,
    stations: [{ key: 'server', slots: 10, service: { dist: 'exponential', mean: 0.05 } }],
    sources: [{ key: 'load', kind: 'open', target: 'server', rate: 100 }],
    events: [
      { key: 'drop', at: 10, label: 'Capacity lost', kind: 'setSlots', station: 'server', slots: 2 },
      { key: 'back', at: 20, label: 'Capacity back', kind: 'setSlots', station: 'server', slots: 10 },
    ],
    figures: [
      { name: 'empty-at', label: 'Queue empty again', unit: 's', measure: { metric: 'server.queue', stat: 'firstTimeBelow', threshold: 1, from: 21 } },
      { name: 'busy-after', label: 'Utilisation after the restore', unit: 'ratio', measure: { metric: 'server.utilisation', stat: 'mean', from: 21, to: 24 } },
      { name: 'peak-queue', label: 'Longest queue', unit: 'requests', measure: { metric: 'server.queue', stat: 'max' } },
    ],
  });
}

/** Ten replicas of a caller, each call reaching one single-replica callee: it sees all 100/s. */
export function replicatedCallerSpec(): ModelSpec {
  return specWith({
    horizon: 200,
    points: 100,
    stations: [
      { key: 'caller', replicas: 10, slots: null, service: 0.01, calls: [{ to: 'callee' }] },
      { key: 'callee', slots: null, service: 0.01 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'caller', rate: 100 }],
    figures: [
      { name: 'callee-offered', label: 'Offered to the callee', unit: 'req/s', measure: { metric: 'callee.offered', stat: 'mean', from: 20 } },
      { name: 'caller-offered', label: 'Offered to the caller', unit: 'req/s', measure: { metric: 'caller.offered', stat: 'mean', from: 20 } },
      { name: 'success', label: 'Answered', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 20 } },
    ],
  });
}

/**
 * A single slot serving in 4 ms (much less than the fluid step, so fluid mode serves it as a
 * rate), offered 330/s against 250/s of capacity and with no queue limit: busy all the time,
 * never more than that. Each fluid step's cohort holds 0.66 s of work, a span that does not
 * divide the output points evenly.
 */
export function saturatedRateSpec(): ModelSpec {
  return specWith({
    horizon: 60,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.5 },
    stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 0.004 } }],
    sources: [{ key: 'load', kind: 'open', target: 'server', rate: 330 }],
    figures: [
      { name: 'peak-utilisation', label: 'Highest utilisation of an output point', unit: 'ratio', measure: { metric: 'server.utilisation', stat: 'max', from: 10 } },
      { name: 'utilisation', label: 'Utilisation', unit: 'ratio', measure: { metric: 'server.utilisation', stat: 'mean', from: 10 } },
      { name: 'served', label: 'Served', unit: 'req/s', measure: { metric: 'server.throughput', stat: 'mean', from: 10 } },
    ],
  });
}

/**
 * A callee that answers 70 % of requests in 10 ms and 30 % after about 5 s, behind a caller
 * timeout of 1 s: the slow 30 % time out and the fast 70 % succeed. The slow answers arrive
 * long after their callers gave up; only they are work nobody waits for.
 */
export function mixedLatencySpec(): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.01, calls: [{ to: 'slow', probability: 0.3 }] },
      { key: 'slow', slots: null, service: 5 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 100, policy: { timeout: 1 } }],
    figures: [
      { name: 'timed-out', label: 'Share timed out', unit: 'ratio', measure: { metric: 'load.timeoutRatio', stat: 'mean', from: 20 } },
      { name: 'success', label: 'Answered in time', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 20 } },
      { name: 'slow-served', label: 'Served by the slow callee', unit: 'req/s', measure: { metric: 'slow.throughput', stat: 'mean', from: 20 } },
    ],
  });
}

/**
 * A caller answering in 0.95 s, 30 % of them after a 4 s call, behind a source timeout of 1 s:
 * the 70 % answered in 0.95 s arrive in the last fluid step before their deadline, when they
 * are already old enough to belong to the timed-out mass. They must reach their callers, still
 * waiting, rather than repay that debt.
 */
export function answeredInLastStepSpec(): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.95, calls: [{ to: 'slow', probability: 0.3 }] },
      { key: 'slow', slots: null, service: 4 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 100, policy: { timeout: 1 } }],
    figures: [
      { name: 'timed-out', label: 'Share timed out', unit: 'ratio', measure: { metric: 'load.timeoutRatio', stat: 'mean', from: 20 } },
      { name: 'success', label: 'Answered in time', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 20 } },
    ],
  });
}

/**
 * A caller that calls a 5 s callee with probability `p`, then always a fast one, behind a
 * source timeout of 1 s. In DES the share `p` times out. In fluid the slow share, back from
 * its call, joins the fast cohort of the later step in the second call and answers the source
 * as one cohort of their mean age (a known gap, libs/models/README.md).
 */
export function sharedCohortSpec(p: number): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.01, calls: [{ to: 'slow', probability: p }, { to: 'tail' }] },
      { key: 'slow', slots: null, service: 5 },
      { key: 'tail', slots: null, service: 0.01 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 100, policy: { timeout: 1 } }],
    figures: [{ name: 'timed-out', label: 'Share timed out', unit: 'ratio', measure: { metric: 'load.timeoutRatio', stat: 'mean', from: 20 } }],
  });
}

/**
 * A callee whose full queue (400 requests at 100/s: 4 s) is longer than the caller's 2 s
 * timeout, offered 150/s with two retries: every answer comes after its caller gave up, so
 * nothing succeeds, and each late answer belongs to a caller that timed out, not to a younger
 * caller still waiting.
 */
export function queuedPastTimeoutSpec(): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.01, calls: [{ to: 'db' }] },
      { key: 'db', slots: 10, queue: { limit: 400 }, service: { dist: 'exponential', mean: 0.1 } },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 150, policy: { timeout: 2, retries: 2 } }],
    figures: [
      { name: 'timed-out', label: 'Share timed out', unit: 'ratio', measure: { metric: 'load.timeoutRatio', stat: 'mean', from: 30 } },
      { name: 'success', label: 'Answered in time', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 30 } },
      { name: 'served', label: 'Served by the callee', unit: 'req/s', measure: { metric: 'db.throughput', stat: 'mean', from: 30 } },
    ],
  });
}

/**
 * A chain three deep behind a 1 s client timeout: the middle station calls a slow leaf for
 * 30 % of requests, then an audit station, and stops the work of callers that gave up. The
 * leaf (capacity 10/s, offered 30/s) drops queued work whose caller gave up. The slow 30 %
 * time out at the client, two levels above the leaf: the leaf's work for them is not
 * goodput, its queue loses them when the client gives up, the middle station's answers for
 * them are not goodput either and skip the audit call; its fast answers are goodput.
 */
export function abandonedDownChainSpec(): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.01, calls: [{ to: 'mid' }] },
      { key: 'mid', slots: null, service: 0.01, continueAfterTimeout: false, calls: [{ to: 'leaf', probability: 0.3 }, { to: 'audit' }] },
      { key: 'leaf', slots: 5, queue: { dropAbandoned: true }, service: 0.5 },
      { key: 'audit', slots: null, service: 0.01 },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 100, policy: { timeout: 1 } }],
    figures: [
      { name: 'timed-out', label: 'Share timed out', unit: 'ratio', measure: { metric: 'load.timeoutRatio', stat: 'mean', from: 30 } },
      { name: 'success', label: 'Answered in time', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 30 } },
      { name: 'mid-goodput', label: 'Middle station goodput', unit: 'req/s', measure: { metric: 'mid.goodput', stat: 'mean', from: 30 } },
      { name: 'leaf-served', label: 'Served by the leaf', unit: 'req/s', measure: { metric: 'leaf.throughput', stat: 'mean', from: 30 } },
      { name: 'leaf-goodput', label: 'Leaf goodput', unit: 'req/s', measure: { metric: 'leaf.goodput', stat: 'mean', from: 30 } },
      { name: 'leaf-dropped', label: 'Dropped by the leaf', unit: 'req/s', measure: { metric: 'leaf.dropped', stat: 'mean', from: 30 } },
      { name: 'leaf-queue', label: 'Leaf queue', unit: 'requests', measure: { metric: 'leaf.queue', stat: 'mean', from: 30 } },
      { name: 'audit-served', label: 'Served by the audit station', unit: 'req/s', measure: { metric: 'audit.throughput', stat: 'mean', from: 30 } },
    ],
  });
}

/**
 * A callee offered 150/s for a capacity of 100/s (10 slots, exponential service of mean
 * 0.1 s) behind a 2 s caller timeout, dropping queued work whose caller gave up: the queue
 * stays about 2 s long, and the requests it serves start with little of the 2 s left.
 */
export function saturatedDeadlineSpec(): ModelSpec {
  return specWith({
    horizon: 120,
    points: 120,
    engine: { mode: 'des', fluidStep: 0.1 },
    stations: [
      { key: 'api', slots: null, service: 0.01, calls: [{ to: 'db', policy: { timeout: 2 } }] },
      { key: 'db', slots: 10, queue: { dropAbandoned: true }, service: { dist: 'exponential', mean: 0.1 } },
    ],
    sources: [{ key: 'load', kind: 'open', target: 'api', rate: 150 }],
    figures: [
      { name: 'success', label: 'Answered in time', unit: 'req/s', measure: { metric: 'load.success', stat: 'mean', from: 30 } },
      { name: 'served', label: 'Served by the callee', unit: 'req/s', measure: { metric: 'db.throughput', stat: 'mean', from: 30 } },
      { name: 'dropped', label: 'Dropped by the callee', unit: 'req/s', measure: { metric: 'db.dropped', stat: 'mean', from: 30 } },
      { name: 'queue', label: 'Callee queue', unit: 'requests', measure: { metric: 'db.queue', stat: 'mean', from: 30 } },
    ],
  });
}

/** Every agreement case by name, for the golden test. */
export const AGREEMENT_SPECS: Record<string, () => ModelSpec> = {
  'keep-alive': keepAliveSpec,
  'overload-slots': () => overloadSpec(true),
  'overload-rate': () => overloadSpec(false),
  'feedback-loop': feedbackLoopSpec,
  'cache-refill': cacheRefillSpec,
  'capacity-restore': capacityRestoreSpec,
  'replicated-caller': replicatedCallerSpec,
  'saturated-rate': saturatedRateSpec,
  'mixed-latency': mixedLatencySpec,
  'answered-in-last-step': answeredInLastStepSpec,
  'queued-past-timeout': queuedPastTimeoutSpec,
  'abandoned-down-chain': abandonedDownChainSpec,
  'saturated-deadline': saturatedDeadlineSpec,
};
