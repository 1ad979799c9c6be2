import type { ModelTemplate } from '../template.types';
import { durationParameter, fluidStep, TIMEOUT_CUES, triggerAtParameter } from './common';

/** Capacity lost against a steady load; M/M/c-like station, utilisation above 1 after the loss. */
export const capacityLossTemplate: ModelTemplate = {
  key: 'capacity-loss',
  title: 'Capacity lost under a steady load',
  failureClass: 'Capacity loss (nodes removed, a quota dropped, a slow disk, memory or disk full) against a steady load, with load shedding and admission control as fixes',
  docs: `A service of \`nodes\` nodes, each serving \`perNodeRate\` requests/s (requests of 1 s, so a node holds that many at once), takes a steady
\`requestRate\`. At \`triggerAt\` a share \`lossShare\` of its capacity is lost (nodes down, a
quota cut, a full disk, a slow volume) for \`lossSeconds\`. When what remains is below the load,
the queue grows, waits pass the client's timeout and goodput collapses: requests are served after
their caller gave up. Failure: fewer than half of the requests succeed for a minute. Fixes:
shedding what cannot be served in time (admission control), spare capacity, fewer retries.
Checked against utilisation = load / capacity (the offered load over the remaining capacity).`,
  patterns: { 'resource-exhaustion': 2, 'unbounded-concurrency': 0.5 },
  keywords: [
    { re: /\b(?:out of memory|oom|oomkill\w*|no space left|disk (?:was )?full|ran out of|exhaust\w*|starv\w*)\b/, weight: 2, reason: 'describes a resource running out' },
    { re: /\b(?:nodes?|servers?|hosts?|machines?|instances?|pods?) (?:went |were |was )?(?:down|lost|removed|crashed|unavailable|failed|evicted|offline)\b/, weight: 2, reason: 'describes capacity going away' },
    { re: /\b(?:outage|down|unavailable|offline|degraded)\b/, weight: 0.5, reason: 'describes an outage' },
    { re: /\b(?:quota|capacity|overload\w*|saturat\w*|slow disk|i\/o|cpu)\b/, weight: 1, reason: 'mentions capacity or saturation' },
  ],
  parameters: [
    { name: 'nodes', unit: 'nodes', min: 1, max: 100_000, integer: true, default: 10, defaultWhy: 'Ten nodes: the failure depends on the share lost, not on the count.', description: 'Nodes (servers, workers) serving the load.', figure: { kind: 'count', cues: /\b(?:nodes?|servers?|hosts?|machines?|instances?|pods?|replicas?|workers?)\b/, nouns: /nodes|servers|hosts|machines|instances|pods|replicas|workers/ } },
    { name: 'lossShare', unit: 'ratio', min: 0.01, max: 0.95, default: 0.5, defaultWhy: 'Half the capacity lost, when the incident gives no share.', description: 'Share of the capacity lost at the trigger.', figure: { kind: 'percent', cues: /\b(?:lost|loss|down|removed|failed|unavailable|drop\w*|capacity|step|rollout|upgrade|restart\w*|fleet|of (?:the )?(?:nodes|servers|fleet|capacity|cluster)|packet loss)\b/ } },
    { name: 'perNodeRate', unit: 'req/s', min: 1, integer: true, max: 1_000_000, default: 100, defaultWhy: '100 requests/s per node: only the ratio of load to capacity matters.', description: 'Requests per second one node serves.' },
    { name: 'requestRate', unit: 'req/s', min: 0.01, max: 10_000_000, default: 700, defaultWhy: 'Worked out from the capacity.', description: 'Steady requests per second.', figure: { kind: 'rate', cues: /\b(?:requests?|traffic|load|queries|calls|peak)\b/ }, assume: (v) => ({ value: v.nodes! * v.perNodeRate! * Math.min(0.9, (1 - v.lossShare!) * 1.25), why: 'Taken as min(90 %, 1.25 × the share left) of the full capacity: healthy before the loss and a quarter more than what is left after it, since the incident reports a failure.' }) },
    { name: 'timeoutSeconds', unit: 's', min: 0.1, max: 600, default: 10, defaultWhy: 'Ten seconds is a common client timeout.', description: 'How long a client waits.', figure: { kind: 'duration', cues: TIMEOUT_CUES } },
    { name: 'retries', unit: 'retries', min: 0, max: 10, integer: true, default: 1, defaultWhy: 'One retry is a common client default.', description: 'Times a client tries again.' },
    { name: 'maxWaitSeconds', unit: 's', min: 0.01, max: 1_000_000, default: 1_000_000, defaultWhy: 'No limit on waiting: requests queue until served.', description: 'Requests waiting longer than this are dropped (admission control).' },
    { name: 'spareShare', unit: 'ratio', min: 0, max: 2, default: 0, defaultWhy: 'No spare capacity.', description: 'Extra capacity kept beyond the nodes, as a share of them.' },
    triggerAtParameter(),
    durationParameter('lossSeconds', 'How long the capacity stays lost.', 600, 60),
  ],
  fixes: [
    { key: 'load-shedding', remedy: 'load-shedding', title: 'Shed what cannot be served in time', description: 'Requests that have waited half the client timeout are refused at once (admission control), so the rest are served in time.', parameters: (v) => ({ maxWaitSeconds: v.timeoutSeconds! / 2 }) },
    { key: 'spare-capacity', remedy: 'raise-cap', title: 'Spare capacity', description: 'Enough spare capacity that the loss leaves more than the load (capacity raised by the share lost × 1.5).', parameters: (v) => ({ spareShare: Math.min(2, (1.5 * v.lossShare!) / (1 - v.lossShare!)) }) },
    { key: 'no-retries', remedy: 'retry-budget', title: 'No client retries', description: 'Clients do not retry, so the lost capacity is not asked twice.', parameters: () => ({ retries: 0 }) },
  ],
  failure: { description: 'fewer than half of the requests succeed for at least a minute', metric: 'clients.successRatio', op: 'below', threshold: 0.5, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.lossSeconds! + 300;
    return {
      engine: { mode: 'fluid', fluidStep: fluidStep(horizon, 1) },
      horizon,
      stations: [{ key: 'service', title: 'Service', slots: { expr: 'max(1, round(nodes * (1 + spareShare) * perNodeRate))' }, queue: { maxWait: { param: 'maxWaitSeconds' } }, service: 1 }],
      sources: [{ key: 'clients', title: 'Requests', kind: 'open', target: 'service', rate: { param: 'requestRate' }, policy: { timeout: { param: 'timeoutSeconds' }, retries: { param: 'retries' }, retryOn: ['5xx', 'timeout'], backoff: { kind: 'constant', base: 1 } } }],
      events: [
        { key: 'capacity-lost', at: { param: 'triggerAt' }, kind: 'setSlots', station: 'service', slots: { expr: 'max(1, round(nodes * (1 + spareShare - lossShare) * perNodeRate))' }, label: 'Capacity lost' },
        { key: 'capacity-back', at: { expr: 'triggerAt + lossSeconds' }, kind: 'setSlots', station: 'service', slots: { expr: 'max(1, round(nodes * (1 + spareShare) * perNodeRate))' }, label: 'Capacity back' },
      ],
      probes: [
        { key: 'success', metric: 'clients.successRatio', label: 'Requests that succeed', unit: 'ratio' },
        { key: 'utilisation', metric: 'service.utilisation', label: 'Utilisation', unit: 'ratio' },
        { key: 'queue', metric: 'service.queue', label: 'Requests waiting', unit: 'requests' },
        { key: 'goodput', metric: 'service.goodput', label: 'Requests served in time', unit: 'req/s' },
      ],
      figures: [{ name: 'load-over-remaining', label: 'Load over the capacity left', unit: 'ratio', value: 'requestRate / (nodes * (1 + spareShare - lossShare) * perNodeRate)' }],
      checks: [
        {
          name: 'utilisation-before-loss',
          description: 'Before the loss the service is busy at load / capacity, as the arithmetic says (utilisation of a queue below saturation).',
          scenarios: ['as-happened'],
          measure: { metric: 'service.utilisation', stat: 'mean', from: { expr: 'triggerAt * 0.3' }, to: { param: 'triggerAt' } },
          expect: { op: 'approx', value: 'requestRate / (nodes * (1 + spareShare) * perNodeRate)', tolerance: 0.05 },
          unit: 'ratio',
          kind: 'construction',
        },
      ],
    };
  },
};
