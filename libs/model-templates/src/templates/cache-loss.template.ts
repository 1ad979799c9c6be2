import type { ModelTemplate } from '../template.types';
import { TIMEOUT_CUES, triggerAtParameter } from './common';

/**
 * A look-aside cache in front of a store. When part of the cache is lost, misses read the store;
 * if the miss reads overload it they time out, and a key is refilled only by a read that
 * succeeds, so the cache stays cold: a metastable state that outlasts its trigger.
 */
export const cacheLossTemplate: ModelTemplate = {
  key: 'cache-loss',
  title: 'A lost cache overloads the store behind it',
  failureClass: 'A look-aside cache whose loss overloads the store behind it, with and without a metastable state (scatter reads, miss storms, refill only on success)',
  docs: `Requests (\`requestRate\`/s) each look up \`keysPerRequest\` keys in a look-aside cache of
10 nodes (\`keysPerNode\` keys each, a warm key hit with probability \`hitRatio\`). When any key
misses, the request reads the store: all its keys (\`readAllOnMiss\` = 1) or only the missing
ones, fanned out to \`scatterShards\` of 8 shards (a scatter query when the data is sharded by
another key). A key is filled only when its read succeeds. At \`triggerAt\` a share
\`flushShare\` of the cache nodes is replaced by empty ones, one after another over
\`flushOverSeconds\`. When the miss reads exceed what the store serves, they queue, pass
\`queryTimeoutSeconds\` and fail, the keys are not refilled, clients retry, and the cache stays
cold: the failure outlasts the trigger. Failure: fewer than 90 % of requests succeed for two
minutes. Store capacity (\`shardSlots\` per shard) is assumed with headroom over the warm
miss load (the incident's caches were healthy before), below the cold one.`,
  patterns: { 'cache-dependency': 3, 'metastable-failure': 2, 'cache-churn': 3, 'scatter-gather': 2, 'feedback-loop': 0.5 },
  keywords: [
    { re: /\bcach(?:e|es|ing)\b/, weight: 1, reason: 'mentions a cache' },
    { re: /\b(?:hit (?:rate|ratio)|cache miss\w*|miss(?:es)? (?:rate|storm)|cold cache|cache (?:was )?(?:flushed|cleared|emptied|lost))\b/, weight: 2, reason: 'describes cache misses or a lost cache' },
    { re: /\b(?:memcache\w*|redis|varnish|cdn)\b/, weight: 1.5, reason: 'names a cache' },
    { re: /\bscatter|fan(?:s|ned)?[- ]out|every shard|all shards\b/, weight: 1.5, reason: 'describes scatter reads' },
  ],
  parameters: [
    { name: 'requestRate', unit: 'req/s', min: 1, max: 2000, default: 200, defaultWhy: '200 requests/s; the failure depends on the miss load over the store\'s capacity.', description: 'Requests per second that read the cache.' },
    { name: 'keysPerRequest', unit: 'keys', min: 1, max: 100, integer: true, default: 5, defaultWhy: 'Five lookups per request.', description: 'Keys each request looks up.', figure: { kind: 'count', cues: /\b(?:keys?|lookups?|items?|entries)\b/, nouns: /keys|lookups|items|entries/ } },
    { name: 'keysPerNode', unit: 'keys', min: 10, max: 1_000_000, integer: true, default: 20_000, defaultWhy: '20,000 keys per node: many more keys than the store can refill in a few minutes, as in any large cache.', description: 'Distinct keys each cache node holds.' },
    { name: 'hitRatio', unit: 'ratio', min: 0.5, max: 1, default: 0.99, defaultWhy: 'A warm cache that hits 99 %.', description: 'Hit probability of a warm key.', figure: { kind: 'percent', cues: /\bhit (?:rate|ratio)\b/ } },
    { name: 'flushShare', unit: 'ratio', min: 0, max: 1, default: 0.25, defaultWhy: 'A quarter of the nodes: one step of a rolling operation.', description: 'Share of cache nodes replaced by empty ones.', figure: { kind: 'percent', cues: /\b(?:step|rollout|roll-out|upgrade|restart\w*|fleet|nodes?|flush\w*|replac\w*|evict\w*|cache)\b/ } },
    { name: 'flushOverSeconds', unit: 's', min: 0, max: 3600, default: 120, defaultWhy: 'The nodes go over two minutes, one after another.', description: 'Time over which the nodes are replaced.' },
    { name: 'scatterShards', unit: 'shards', min: 1, max: 8, integer: true, default: 8, defaultWhy: 'A read reaches every one of 8 shards: data sharded by another key than the lookup.', description: 'Store shards one miss read reaches (1 = a targeted read).' },
    { name: 'readAllOnMiss', unit: 'on/off', min: 0, max: 1, integer: true, default: 1, defaultWhy: 'On a miss the read fetches every key of the request, as simple cache code does.', description: '1: a miss reads all the request\'s keys; 0: only the missing ones.' },
    { name: 'queryBaseSeconds', unit: 's', min: 0.0001, max: 10, default: 0.002, defaultWhy: 'Two milliseconds per query.', description: 'Fixed cost of one store query.' },
    { name: 'queryKeySeconds', unit: 's', min: 0.0001, max: 10, default: 0.002, defaultWhy: 'Two milliseconds per key read.', description: 'Cost of each key a query reads.' },
    { name: 'shardSlots', unit: 'queries', min: 1, max: 1000, integer: true, default: 2, defaultWhy: 'Worked out from the warm miss load.', description: 'Queries each shard serves at once.', assume: (v) => {
      const warmMiss = v.requestRate! * (1 - Math.pow(v.hitRatio!, v.keysPerRequest!)) * (v.queryBaseSeconds! + v.queryKeySeconds! * v.keysPerRequest!);
      return { value: Math.max(1, Math.ceil(4 * warmMiss)), why: 'Taken as four times the store time the warm cache\'s misses need (at least one query at once): healthy with the cache warm, as the incident\'s store was.' };
    } },
    { name: 'queryTimeoutSeconds', unit: 's', min: 0.01, max: 60, default: 1, defaultWhy: 'A one-second query timeout.', description: 'How long a miss read may take.', figure: { kind: 'duration', cues: TIMEOUT_CUES } },
    { name: 'clientRetries', unit: 'retries', min: 0, max: 10, integer: true, default: 3, defaultWhy: 'Clients retry a few times.', description: 'Times a client retries a failed request.' },
    { name: 'missConcurrency', unit: 'queries', min: 1, max: 1_000_000_000, integer: true, default: 1_000_000_000, defaultWhy: 'No limit on miss reads in flight.', description: 'Miss reads allowed in flight at once.' },
    triggerAtParameter(120),
  ],
  fixes: [
    { key: 'warm-spares', remedy: 'warm-cache', title: 'Replacement nodes warmed first', description: 'Nodes keep (or are filled with) their data before they take traffic: nothing is lost.', parameters: () => ({ flushShare: 0 }) },
    { key: 'smaller-steps', remedy: 'stagger-rollout', title: 'Smaller, slower steps', description: 'A fifth of the share, spread over five times as long.', parameters: (v) => ({ flushShare: v.flushShare! / 5, flushOverSeconds: Math.min(3600, 5 * v.flushOverSeconds!) }) },
    { key: 'read-missing-only', remedy: 'warm-cache', title: 'Targeted reads of the missing keys', description: 'A miss reads only the missing keys and only from their shard.', parameters: () => ({ readAllOnMiss: 0, scatterShards: 1 }) },
    { key: 'throttle-requests', remedy: 'load-shedding', title: 'Requests throttled until the cache refills', description: 'A minute after the trigger, 30 % of requests are admitted, back to all over five minutes.', events: () => [
      { key: 'throttle-on', at: { expr: 'triggerAt + 60' }, kind: 'throttle', station: 'app', admit: 0.3, label: 'Throttle to 30 %' },
      { key: 'throttle-off', at: { expr: 'triggerAt + 120' }, kind: 'throttle', station: 'app', admit: 1, ramp: 300, label: 'Throttle lifted slowly' },
    ] },
  ],
  failure: { description: 'fewer than 90 % of requests succeed for at least two minutes', metric: 'clients.successRatio', op: 'below', threshold: 0.9, sustain: 120 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.flushOverSeconds! + 600;
    return {
      engine: { mode: 'fluid', fluidStep: 0.5 },
      horizon,
      caches: [{ key: 'cache', title: 'Look-aside cache', nodes: 10, keysPerNode: { param: 'keysPerNode' }, hitCeiling: { param: 'hitRatio' } }],
      stations: [
        { key: 'app', title: 'Application', slots: null, service: 0.001, lookaside: { cache: 'cache', keys: { param: 'keysPerRequest' }, missWork: { param: 'readAllOnMiss' }, onMiss: { to: 'store', fanOut: { param: 'scatterShards' }, policy: { timeout: { param: 'queryTimeoutSeconds' }, concurrencyLimit: { param: 'missConcurrency' } } } } },
        { key: 'store', title: 'Store shards', replicas: 8, slots: { param: 'shardSlots' }, queue: { limit: { expr: 'shardSlots * 200' } }, service: { param: 'queryBaseSeconds' }, serviceWork: { param: 'queryKeySeconds' } },
      ],
      sources: [{ key: 'clients', title: 'Requests', kind: 'open', target: 'app', rate: { param: 'requestRate' }, policy: { timeout: 10, retries: { param: 'clientRetries' }, retryOn: ['5xx'], backoff: { kind: 'exponential', base: 1, multiplier: 2, max: 30, jitter: 'full' } } }],
      events: [{ key: 'nodes-replaced', at: { param: 'triggerAt' }, kind: 'cacheFlush', cache: 'cache', fraction: { param: 'flushShare' }, over: { param: 'flushOverSeconds' }, label: 'Cache nodes replaced by empty ones' }],
      probes: [
        { key: 'hit-ratio', metric: 'cache.hitRatio', label: 'Cache hit ratio', unit: 'ratio' },
        { key: 'store-timeouts', metric: 'app->store.timeoutRatio', label: 'Store reads that time out', unit: 'ratio' },
        { key: 'store-offered', metric: 'store.offered', label: 'Store queries', unit: 'queries/s' },
        { key: 'success', metric: 'clients.successRatio', label: 'Requests that succeed', unit: 'ratio' },
      ],
      figures: [{ name: 'worst-hit-ratio', label: 'Lowest hit ratio', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'min' } }],
    };
  },
};
