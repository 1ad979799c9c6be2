import type { ModelTemplate } from '../template.types';
import { durationParameter, RETRY_CUES, triggerAtParameter } from './common';

/**
 * Clients that retry in step while a service is down all arrive together when it comes back, to
 * a service whose caches are cold. The herd at the restart is about the requests retrying then.
 */
export const thunderingHerdTemplate: ModelTemplate = {
  key: 'thundering-herd',
  title: 'A thundering herd after a restart',
  failureClass: 'A thundering herd after a restart, cache flush or failover (synchronised clients, cold caches)',
  docs: `Clients send \`requestRate\` requests/s to a service of \`servers\` slots (\`serviceSeconds\`
each). At \`triggerAt\` it stops for \`downSeconds\` (a restart, a failover); clients retry every
\`retryDelaySeconds\` with no jitter, up to \`retries\` times, so they stay in step. When it comes
back its caches are cold: requests take \`coldFactor\` times as long, warming back over
\`warmupSeconds\`. The retries waiting at that moment arrive at once, the cold service cannot
take them, they time out (\`timeoutSeconds\`) and retry again together. Failure: after the
restart, fewer than 90 % of requests succeed for 30 s. Fixes: exponential backoff with full
jitter (\`jitterOn\` moves the clients to a jittered policy), warm caches before taking
traffic, admission that ramps up after a restart. Closed form: the herd is about
requestRate × min(downSeconds, retries × retryDelaySeconds) requests.`,
  patterns: { 'cache-churn': 1, 'metastable-failure': 1, 'retry-amplification': 0.5 },
  keywords: [
    { re: /\bthundering herd\b|\bstampede\b|\breconnect storm\b/, weight: 3, reason: 'names a thundering herd or stampede' },
    { re: /\b(?:restart\w*|reboot\w*|failover|fail(?:ed)? over|came back|back up|brought back)\b/, weight: 1, reason: 'describes a restart or failover' },
    { re: /\b(?:cold (?:cache|start)|cache (?:was )?(?:flushed|cleared|empty|cold)|warm(?:ing)? up)\b/, weight: 2, reason: 'describes cold caches' },
    { re: /\b(?:all (?:the )?clients|every client|clients (?:all )?reconnect\w*|at the same time|simultaneous\w*|synchroni[sz]ed)\b/, weight: 1.5, reason: 'describes clients acting together' },
  ],
  parameters: [
    { name: 'servers', unit: 'slots', min: 1, max: 1000, integer: true, default: 10, defaultWhy: 'Ten requests at once, small enough to follow every request.', description: 'Requests the service serves at once.' },
    { name: 'serviceSeconds', unit: 's', min: 0.001, max: 60, default: 0.1, defaultWhy: 'A 100 ms request when the caches are warm.', description: 'Service time with warm caches.' },
    { name: 'requestRate', unit: 'req/s', min: 0.01, max: 10_000, default: 50, defaultWhy: 'Worked out from the capacity.', description: 'Requests per second.', assume: (v) => ({ value: (0.5 * v.servers!) / v.serviceSeconds!, why: 'Taken as half the warm capacity: healthy before the restart.' }) },
    { name: 'coldFactor', unit: '×', min: 1, max: 50, default: 3, defaultWhy: 'Three times as slow with cold caches: a common order for a service in front of a database.', description: 'How many times longer a request takes right after the restart.' },
    { name: 'warmupSeconds', unit: 's', min: 1, max: 3600, default: 120, defaultWhy: 'Two minutes for caches to warm.', description: 'Time for the service to get back to warm speed.', figure: { kind: 'duration', cues: /\b(?:warm\w*|cold)\b/ } },
    { name: 'retries', unit: 'retries', min: 0, max: 100, integer: true, default: 5, defaultWhy: 'Clients that keep trying for a while, as reconnecting clients do.', description: 'Times a client retries.', figure: { kind: 'count', cues: RETRY_CUES, nouns: /retries|retry attempts|attempts|times/ } },
    { name: 'retryDelaySeconds', unit: 's', min: 0.1, max: 300, default: 2, defaultWhy: 'A fixed 2 s retry delay, the same for every client.', description: 'Fixed delay between retries (no jitter).', figure: { kind: 'duration', cues: /\b(?:retr\w*|reconnect\w*|every|interval|poll\w*)\b/ } },
    { name: 'timeoutSeconds', unit: 's', min: 0.1, max: 300, default: 5, defaultWhy: 'Five seconds per attempt.', description: 'How long a client waits for one attempt.' },
    { name: 'jitterOn', unit: 'share', min: 0, max: 1, default: 0, defaultWhy: 'No client uses jittered backoff.', description: 'Share of clients using exponential backoff with full jitter.' },
    { name: 'cold', unit: 'share', min: 0, max: 1, default: 0, defaultWhy: 'A switch the restart events set: 1 right after the restart, back to 0 as caches warm.', description: 'How cold the caches are (set by the events).' },
    triggerAtParameter(),
    durationParameter('downSeconds', 'How long the service is down.', 60, 5, 3600),
  ],
  fixes: [
    { key: 'backoff-jitter', remedy: 'backoff-jitter', title: 'Exponential backoff with full jitter', description: 'Clients spread their retries: exponential backoff from 1 s, full jitter, up to 60 s.', parameters: () => ({ jitterOn: 1 }) },
    { key: 'warm-before-traffic', remedy: 'warm-cache', title: 'Caches warmed before taking traffic', description: 'The service takes traffic only once its caches are warm.', parameters: () => ({ coldFactor: 1 }) },
    { key: 'ramped-admission', remedy: 'load-shedding', title: 'Admission ramped up after the restart', description: 'After the restart the service admits 30 % of requests, then more over the warm-up; the rest are refused at once and retried.', events: () => [
      { key: 'admit-low', at: { expr: 'triggerAt + downSeconds' }, kind: 'throttle', station: 'service', admit: 0.3, label: 'Admission at 30 %' },
      { key: 'admit-ramp', at: { expr: 'triggerAt + downSeconds + 1' }, kind: 'throttle', station: 'service', admit: 1, ramp: { param: 'warmupSeconds' }, label: 'Admission ramps up' },
    ] },
    { key: 'fewer-retries', remedy: 'retry-budget', title: 'Fewer retries', description: 'Clients give up after three retries.', parameters: () => ({ retries: 3 }) },
  ],
  failure: { description: 'after the restart, fewer than 90 % of requests succeed for at least 30 s', metric: 'all-clients.successRatio', op: 'below', threshold: 0.9, sustain: 30, from: { expr: 'triggerAt + downSeconds + 5' } },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.downSeconds! + v.warmupSeconds! + 300;
    const retryOn = ['5xx' as const, 'timeout' as const, 'shed' as const];
    return {
      engine: { mode: 'des', maxEvents: 30_000_000 },
      horizon,
      stations: [
        { key: 'front', title: 'Clients\' entry', slots: null, service: 0, calls: [{ oneOf: [{ to: 'service', probability: { expr: '1 - jitterOn' }, policy: { timeout: { param: 'timeoutSeconds' }, retries: { param: 'retries' }, retryOn, backoff: { kind: 'constant', base: { param: 'retryDelaySeconds' } } } }, { to: 'service', probability: { param: 'jitterOn' }, policy: { timeout: { param: 'timeoutSeconds' }, retries: { param: 'retries' }, retryOn, backoff: { kind: 'exponential', base: 1, multiplier: 2, max: 60, jitter: 'full' } } }] }] },
        { key: 'service', title: 'Service', slots: { param: 'servers' }, queue: { limit: { expr: 'servers * 20' } }, service: { expr: 'serviceSeconds * (1 + (coldFactor - 1) * cold)' } },
      ],
      sources: [{ key: 'all-clients', title: 'Client requests', kind: 'open', target: 'front', rate: { param: 'requestRate' } }],
      events: [
        { key: 'service-stops', at: { param: 'triggerAt' }, kind: 'stop', station: 'service', label: 'Service stops' },
        { key: 'service-starts', at: { expr: 'triggerAt + downSeconds' }, kind: 'start', station: 'service', label: 'Service back, caches cold' },
        { key: 'caches-cold', at: { expr: 'triggerAt + downSeconds' }, kind: 'setParameter', parameter: 'cold', value: 1, label: 'Caches cold' },
        { key: 'caches-warm', at: { expr: 'triggerAt + downSeconds + 1' }, kind: 'setParameter', parameter: 'cold', value: 0, ramp: { param: 'warmupSeconds' }, label: 'Caches warming' },
      ],
      probes: [
        { key: 'offered', metric: 'service.offered', label: 'Requests reaching the service', unit: 'req/s' },
        { key: 'success', metric: 'all-clients.successRatio', label: 'Requests that succeed', unit: 'ratio' },
        { key: 'queue', metric: 'service.queue', label: 'Requests waiting', unit: 'requests' },
      ],
      figures: [
        { name: 'herd', label: 'Herd at the restart: rate × min(down time, retries × delay)', unit: 'requests', value: 'requestRate * min(downSeconds, retries * retryDelaySeconds)' },
        { name: 'peak-offered', label: 'Peak requests reaching the service', unit: 'req/s', measure: { metric: 'service.offered', stat: 'max' } },
      ],
    };
  },
};
