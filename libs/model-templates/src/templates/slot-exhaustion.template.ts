import type { ModelTemplate } from '../template.types';
import { durationParameter, fluidStep, TIMEOUT_CUES, triggerAtParameter } from './common';

/**
 * Worker slots held by calls to a dependency that stops answering. Closed form: with no timeout
 * every slot is held after slots / (rate × callShare) seconds (the "wedge" arithmetic).
 */
export const slotExhaustionTemplate: ModelTemplate = {
  key: 'slot-exhaustion',
  title: 'Worker slots held by a hung dependency',
  failureClass: 'Worker or connection slots held by a slow or hung dependency (missing timeouts, self-calls through a shared pool)',
  docs: `A server has \`slots\` workers (processes, threads, pool connections). Each request holds
one for \`serviceSeconds\`, and a share \`callShare\` of requests also calls a dependency while
holding it (a share \`selfCallShare\` calls a sibling on the same pool instead). At \`triggerAt\`
the dependency stops answering for \`downSeconds\`. Without a call timeout, each such call holds
its worker until the dependency comes back, so all workers are held after
slots / (requestRate × callShare) seconds, and new requests wait and time out. Failure: fewer
than half of the requests succeed for 30 s. Checked against that wedge time.`,
  patterns: { 'missing-timeout': 3, 'silent-wedge': 2, 'self-call-deadlock': 2, 'resource-exhaustion': 1, 'unbounded-concurrency': 0.5 },
  keywords: [
    { re: /\b(?:no|without|missing|lack of|infinite|default) (?:\w+ )?time ?-?outs?\b/, weight: 3, reason: 'says a call had no timeout' },
    { re: /\b(?:hung|hang|hangs|stuck|wedged?|blocked|deadlock)\b/, weight: 1.5, reason: 'describes hung or stuck workers' },
    { re: /\b(?:maxclients|max_?children|worker pool|thread pool|connection pool|all (?:\w+ )?(?:workers|threads|processes|connections) (?:were )?(?:busy|used|exhausted))\b/, weight: 2, reason: 'mentions a worker or connection pool' },
    { re: /\b(?:external|remote|third[- ]party|upstream|dependency)\b[^.]{0,40}\b(?:slow|down|outage|unresponsive|not respond)/, weight: 1.5, reason: 'a dependency was slow or down' },
  ],
  parameters: [
    { name: 'slots', unit: 'workers', min: 1, max: 100_000, integer: true, default: 150, defaultWhy: "150 is Apache's MaxClients default, a common size of a worker pool.", description: 'Workers (processes, threads, pool connections) that serve requests.', figure: { kind: 'count', cues: /\b(?:max\w*|workers?|processes|threads?|pool|slots?|connections?|limit)\b/, nouns: /max|workers|processes|threads|slots|connections|limit/ } },
    { name: 'serviceSeconds', unit: 's', min: 0.001, max: 60, default: 0.25, defaultWhy: 'A quarter of a second: a typical page.', description: 'Time a request holds its worker besides the call.' },
    { name: 'requestRate', unit: 'req/s', min: 0.01, max: 100_000, default: 10, defaultWhy: 'Ten requests per second: a small site; the wedge time scales with slots / rate.', description: 'Requests per second.', figure: { kind: 'rate', cues: /\b(?:requests?|traffic|hits|page ?views|load)\b/ } },
    { name: 'callShare', unit: 'ratio', min: 0, max: 1, default: 1, defaultWhy: 'Every request makes the call, as when it sits in a shared page element.', description: 'Share of requests that call the dependency while holding a worker.', figure: { kind: 'percent', cues: /\b(?:of (?:the |all )?(?:requests|pages|page views|calls|traffic)|share|fraction|pages?|page views?|requests?)\b/ } },
    { name: 'selfCallShare', unit: 'ratio', min: 0, max: 1, default: 0, defaultWhy: 'No self-calls unless the incident describes them.', description: 'Share of requests that call a sibling served from the same worker pool.' },
    { name: 'dependencySeconds', unit: 's', min: 0.001, max: 60, default: 0.3, defaultWhy: 'A 300 ms remote call while the dependency is healthy.', description: 'Time the dependency takes when it answers.' },
    { name: 'callTimeoutSeconds', unit: 's', min: 0, max: 3600, default: 0, defaultWhy: '0: no timeout, the class of failure this template is for.', description: 'Timeout on the call (0 = none).', figure: { kind: 'duration', cues: TIMEOUT_CUES } },
    { name: 'callConcurrency', unit: 'calls', min: 1, max: 1_000_000_000, integer: true, default: 1_000_000_000, defaultWhy: 'No limit on calls in flight.', description: 'Calls to the dependency allowed in flight at once; more fail at once.' },
    { name: 'clientTimeoutSeconds', unit: 's', min: 1, max: 600, default: 60, defaultWhy: 'A browser waits about a minute.', description: 'How long a client waits.', figure: { kind: 'duration', cues: /\b(?:client|browser|user)s?\b[^.]{0,30}\b(?:time ?-?outs?|wait)/ } },
    { name: 'backlog', unit: 'requests', min: 0, max: 100_000, integer: true, default: 511, defaultWhy: "511: Apache's default listen backlog.", description: 'Requests that may wait for a worker.' },
    triggerAtParameter(),
    durationParameter('downSeconds', 'How long the dependency does not answer.', 600, 30),
  ],
  fixes: [
    { key: 'add-timeout', remedy: 'add-timeout', title: 'Timeout on the call', description: 'The call gives up after 5 s, releasing its worker.', parameters: () => ({ callTimeoutSeconds: 5 }) },
    { key: 'lower-timeout', remedy: 'lower-timeout', title: 'Shorter call timeout', description: 'The call gives up after 1 s.', parameters: () => ({ callTimeoutSeconds: 1 }) },
    { key: 'concurrency-limit', remedy: 'concurrency-limit', title: 'Calls in flight limited to a third of the workers', description: 'A bulkhead: at most a third of the workers wait on the dependency.', parameters: (v) => ({ callConcurrency: Math.max(1, Math.floor(v.slots! / 3)) }) },
    { key: 'circuit-breaker', remedy: 'circuit-breaker', title: 'Circuit breaker', description: 'Calls stop 10 s after the dependency stops answering (a breaker that opens on timeouts of 5 s).', parameters: () => ({ callTimeoutSeconds: 5 }), events: () => [{ key: 'breaker-opens', at: { expr: 'triggerAt + 10' }, kind: 'setParameter', parameter: 'callShare', value: 0, label: 'Breaker opens' }] },
    { key: 'async-call', remedy: 'warm-cache', title: 'Answer from a cached copy', description: 'The dependency\'s answer is cached and refreshed in the background, so requests do not call it.', parameters: () => ({ callShare: 0 }) },
  ],
  failure: { description: 'fewer than half of the requests succeed for at least 30 s', metric: 'clients.successRatio', op: 'below', threshold: 0.5, sustain: 30 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.downSeconds! + 180;
    const callPolicy = { timeout: { param: 'callTimeoutSeconds' }, concurrencyLimit: { param: 'callConcurrency' } };
    return {
      engine: { mode: 'fluid', fluidStep: fluidStep(horizon, Math.min(v.serviceSeconds!, v.dependencySeconds!)) },
      horizon,
      pools: [{ key: 'workers', title: 'Worker pool', slots: { param: 'slots' }, queue: { limit: { param: 'backlog' } } }],
      stations: [
        { key: 'server', title: 'Server', slots: { pool: 'workers' }, service: { param: 'serviceSeconds' }, calls: [{ to: 'dependency', probability: { param: 'callShare' }, policy: callPolicy, onError: 'ignore' }, { to: 'sibling', probability: { param: 'selfCallShare' }, policy: callPolicy, onError: 'ignore' }] },
        { key: 'sibling', title: 'Sibling on the same pool', slots: { pool: 'workers' }, service: { param: 'serviceSeconds' } },
        { key: 'dependency', title: 'Dependency', slots: null, service: { param: 'dependencySeconds' } },
      ],
      sources: [{ key: 'clients', title: 'Requests', kind: 'open', target: 'server', rate: { param: 'requestRate' }, policy: { timeout: { param: 'clientTimeoutSeconds' } } }],
      events: [
        { key: 'dependency-down', at: { param: 'triggerAt' }, kind: 'blackhole', station: 'dependency', label: 'Dependency stops answering' },
        { key: 'dependency-back', at: { expr: 'triggerAt + downSeconds' }, kind: 'restore', station: 'dependency', label: 'Dependency answers again' },
      ],
      probes: [
        { key: 'workers-busy', metric: 'workers.concurrency', label: 'Workers held', unit: 'workers' },
        { key: 'success', metric: 'clients.successRatio', label: 'Requests that succeed', unit: 'ratio' },
        { key: 'waiting', metric: 'workers.queue', label: 'Requests waiting for a worker', unit: 'requests' },
      ],
      figures: [{ name: 'wedge-seconds', label: 'Time to hold every worker: slots / (rate × call share)', unit: 's', value: 'slots / max(requestRate * (callShare + selfCallShare), 0.000001)' }],
      checks: [
        {
          name: 'wedge-time',
          description: 'Without a timeout every worker is held about slots / (rate × call share) seconds after the dependency stops answering.',
          scenarios: ['as-happened'],
          measures: { full: { metric: 'workers.concurrency', stat: 'firstTimeAbove', threshold: { expr: '0.95 * slots' }, from: { param: 'triggerAt' } } },
          value: 'full - triggerAt',
          expect: { op: 'approx', value: '0.95 * slots / max(requestRate * (callShare + selfCallShare), 0.000001)', tolerance: 0.25 },
          unit: 's',
          kind: 'construction',
        },
      ],
    };
  },
};
