/**
 * Metric names a spec can chart or check, per block type. A metric is addressed as
 * `<block key>.<metric>`, an edge's as `<caller>-><callee>.<metric>`, and some station
 * metrics can be narrowed to the traffic of one source with `@<source key>`.
 */

export type MetricKind = 'rate' | 'level' | 'ratio' | 'latency';

export interface MetricInfo {
  kind: MetricKind;
  unit: string;
  description: string;
  /** Accepts an `@source` filter. */
  bySource?: boolean;
}

const LATENCY: Record<string, MetricInfo> = {
  latency: { kind: 'latency', unit: 's', description: 'mean response time' },
  'latency.p50': { kind: 'latency', unit: 's', description: 'median response time' },
  'latency.p90': { kind: 'latency', unit: 's', description: '90th percentile response time' },
  'latency.p95': { kind: 'latency', unit: 's', description: '95th percentile response time' },
  'latency.p99': { kind: 'latency', unit: 's', description: '99th percentile response time' },
};

export const STATION_METRICS: Record<string, MetricInfo> = {
  offered: { kind: 'rate', unit: 'req/s', description: 'arrivals per second', bySource: true },
  admitted: { kind: 'rate', unit: 'req/s', description: 'arrivals that got a slot or a queue place' },
  rejected: { kind: 'rate', unit: 'req/s', description: 'arrivals turned away (queue full, throttle, stopped)' },
  throughput: { kind: 'rate', unit: 'req/s', description: 'completed requests per second, any outcome', bySource: true },
  goodput: { kind: 'rate', unit: 'req/s', description: 'successful completions whose caller was still waiting', bySource: true },
  errors: { kind: 'rate', unit: 'req/s', description: 'completions with an error status' },
  dropped: { kind: 'rate', unit: 'req/s', description: 'requests dropped from the queue (caller gone or waited too long)' },
  queue: { kind: 'level', unit: 'req', description: 'mean number waiting for a slot' },
  concurrency: { kind: 'level', unit: 'slots', description: 'mean slots held (service, calls, linger)', bySource: true },
  working: { kind: 'level', unit: 'slots', description: 'mean slots doing their own work (runnable, not waiting)' },
  utilisation: { kind: 'ratio', unit: 'ratio', description: 'slots held / slots available' },
  wait: { kind: 'latency', unit: 's', description: 'mean time waiting for a slot' },
  'wait.p50': { kind: 'latency', unit: 's', description: 'median time waiting for a slot' },
  'wait.p90': { kind: 'latency', unit: 's', description: '90th percentile time waiting for a slot' },
  'wait.p95': { kind: 'latency', unit: 's', description: '95th percentile time waiting for a slot' },
  'wait.p99': { kind: 'latency', unit: 's', description: '99th percentile time waiting for a slot' },
  waitedRatio: { kind: 'ratio', unit: 'ratio', description: 'share of admitted arrivals that waited for a slot' },
  errorRatio: { kind: 'ratio', unit: 'ratio', description: '(errors + rejected + dropped) / visits that ended, per window' },
  abandonedRatio: { kind: 'ratio', unit: 'ratio', description: 'share of completions nobody was waiting for' },
  emitted: { kind: 'rate', unit: 'events/s', description: 'new arrivals emitted elsewhere per second' },
  amplification: { kind: 'ratio', unit: '×', description: 'arrivals here per user action (new request of any source; client retries and emitted events count as amplification)' },
  ...LATENCY,
};

export const POOL_METRICS: Record<string, MetricInfo> = {
  concurrency: { kind: 'level', unit: 'slots', description: 'mean slots held' },
  queue: { kind: 'level', unit: 'req', description: 'mean number waiting for a slot' },
  utilisation: { kind: 'ratio', unit: 'ratio', description: 'slots held / slots available' },
};

export const SOURCE_METRICS: Record<string, MetricInfo> = {
  offered: { kind: 'rate', unit: 'req/s', description: 'new requests per second' },
  attempts: { kind: 'rate', unit: 'req/s', description: 'attempts per second, retries included' },
  retries: { kind: 'rate', unit: 'req/s', description: 'retries per second' },
  success: { kind: 'rate', unit: 'req/s', description: 'requests finally successful per second' },
  failures: { kind: 'rate', unit: 'req/s', description: 'requests finally failed per second' },
  successRatio: { kind: 'ratio', unit: 'ratio', description: 'successful / finished requests' },
  retryRatio: { kind: 'ratio', unit: 'ratio', description: 'retries / attempts' },
  timeoutRatio: { kind: 'ratio', unit: 'ratio', description: 'timeouts / attempts that ended (answered or timed out), per window' },
  ...LATENCY,
};

export const EDGE_METRICS: Record<string, MetricInfo> = {
  attempts: { kind: 'rate', unit: 'req/s', description: 'attempts per second, retries included' },
  retries: { kind: 'rate', unit: 'req/s', description: 'retries per second' },
  timeouts: { kind: 'rate', unit: 'req/s', description: 'attempts timed out per second, when the timeout fired' },
  failures: { kind: 'rate', unit: 'req/s', description: 'calls failed after all attempts per second' },
  retryRatio: { kind: 'ratio', unit: 'ratio', description: 'retries / attempts' },
  timeoutRatio: { kind: 'ratio', unit: 'ratio', description: 'timeouts / attempts that ended (answered or timed out), per window' },
};

export const CACHE_METRICS: Record<string, MetricInfo> = {
  hitRatio: { kind: 'ratio', unit: 'ratio', description: 'key lookups that hit / lookups' },
  warm: { kind: 'ratio', unit: 'ratio', description: 'mean warm fraction across nodes' },
  lookups: { kind: 'rate', unit: 'keys/s', description: 'key lookups per second' },
  fills: { kind: 'rate', unit: 'keys/s', description: 'keys filled per second' },
};

export type MetricOwner = 'station' | 'pool' | 'source' | 'edge' | 'cache';

export interface ParsedMetric {
  owner: MetricOwner;
  /** Block key, or `caller->callee` for an edge. */
  key: string;
  metric: string;
  bySource: string | null;
  info: MetricInfo;
}

export interface MetricNamespace {
  stations: Set<string>;
  pools: Set<string>;
  sources: Set<string>;
  caches: Set<string>;
  edges: Set<string>;
}

/** Resolves a metric name against the blocks of a spec; returns an error text when it does not resolve. */
export function parseMetricName(name: string, ns: MetricNamespace): ParsedMetric | string {
  if (typeof name !== 'string' || name.length === 0) return 'expected a metric name such as "web.concurrency"';
  let base = name;
  let bySource: string | null = null;
  const at = name.indexOf('@');
  if (at >= 0) {
    base = name.slice(0, at);
    bySource = name.slice(at + 1);
    if (!ns.sources.has(bySource)) return `unknown source "${bySource}" after "@"`;
  }
  const arrow = base.indexOf('->');
  if (arrow >= 0) {
    const dot = base.indexOf('.', arrow);
    if (dot < 0) return `expected "<caller>-><callee>.<metric>", got "${name}"`;
    const key = base.slice(0, dot);
    const metric = base.slice(dot + 1);
    if (!ns.edges.has(key)) return `unknown call edge "${key}" (known: ${[...ns.edges].join(', ') || 'none'})`;
    const info = EDGE_METRICS[metric];
    if (!info) return `unknown edge metric "${metric}" (known: ${Object.keys(EDGE_METRICS).join(', ')})`;
    if (bySource) return 'edge metrics take no "@source" filter';
    return { owner: 'edge', key, metric, bySource, info };
  }
  const dot = base.indexOf('.');
  if (dot < 0) return `expected "<block>.<metric>", got "${name}"`;
  const key = base.slice(0, dot);
  const metric = base.slice(dot + 1);
  const table: Array<[MetricOwner, Set<string>, Record<string, MetricInfo>]> = [
    ['station', ns.stations, STATION_METRICS],
    ['pool', ns.pools, POOL_METRICS],
    ['source', ns.sources, SOURCE_METRICS],
    ['cache', ns.caches, CACHE_METRICS],
  ];
  for (const [owner, keys, metrics] of table) {
    if (!keys.has(key)) continue;
    const info = metrics[metric];
    if (!info) return `unknown ${owner} metric "${metric}" (known: ${Object.keys(metrics).join(', ')})`;
    if (bySource && !info.bySource) return `metric "${metric}" takes no "@source" filter`;
    return { owner, key, metric, bySource, info };
  }
  return `unknown block "${key}" in metric "${name}"`;
}
