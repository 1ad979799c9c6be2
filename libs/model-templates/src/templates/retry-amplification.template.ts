import type { ModelTemplate } from '../template.types';
import { RETRY_CUES, TIMEOUT_CUES, triggerAtParameter } from './common';

/**
 * Clients and a middle tier that both retry a backend on errors and timeouts. A load spike
 * pushes the backend past its capacity; timed-out attempts are retried while the backend still
 * works on the abandoned ones, so the offered load stays above capacity after the spike ends
 * (a metastable overload). Closed form: when every backend call fails, the backend sees
 * (clientRetries + 1) × (tierRetries + 1) attempts per user request (amplification across layers).
 */
export const retryAmplificationTemplate: ModelTemplate = {
  key: 'retry-amplification',
  title: 'Retries amplifying an overload',
  failureClass: 'Client retries amplifying an overload (timeouts, retries, backoff with or without jitter, retry budgets), across layers',
  docs: `Users send \`requestRate\` requests/s to a middle tier, which calls a backend of
\`capacity\` concurrent slots, each request taking \`serviceSeconds\`. Users retry a failed or
timed-out request \`clientRetries\` times, the middle tier retries each backend call \`tierRetries\`
times, both after \`retryDelaySeconds\` (times \`backoffMultiplier\` per attempt, full jitter),
within \`timeoutSeconds\` per attempt. At \`triggerAt\` the load is multiplied by \`spikeFactor\`
for \`spikeSeconds\`. The backend keeps working on requests whose caller gave up, so once the
retries have filled it, it stays overloaded after the spike: the failure outlasts its trigger.
Failure: fewer than 90 % of user requests succeed for a minute. Checked against the closed form
of retry amplification across two layers, (clientRetries + 1) × (tierRetries + 1) backend
attempts per request when every call fails (the \`all-fail\` what-if). Jitter is always full
(the engine cannot switch it by a parameter); without backoff the retries still come at once.`,
  patterns: { 'retry-amplification': 3, 'metastable-failure': 1, 'misclassified-retryable-error': 1, 'resource-exhaustion': 0.5 },
  keywords: [
    { re: /\bretr(?:y|ies|ied|ying)\b/, weight: 1.5, reason: 'mentions retries' },
    { re: /\bretry (?:storm|amplification)|\bamplif/, weight: 2, reason: 'mentions amplification or a retry storm' },
    { re: /\bback-?off\b|\bjitter\b/, weight: 1, reason: 'mentions backoff or jitter' },
    { re: /\btime ?-?outs?\b|\btimed out\b/, weight: 0.5, reason: 'mentions timeouts' },
    { re: /\boverload(?:ed)?\b|\bthundering\b/, weight: 0.5, reason: 'mentions an overload' },
  ],
  parameters: [
    { name: 'capacity', unit: 'requests', min: 1, max: 1_000_000, integer: true, default: 10, defaultWhy: '10 requests at once: a small service (kept small so the run can follow every request); the failure depends on the ratio of load to capacity, not on the scale.', description: 'Requests the backend serves at once.', figure: { kind: 'count', cues: /\b(?:capacity|concurren\w*|workers?|threads?|pool|max\w*|limit|slots?)\b/, nouns: /workers|threads|processes|slots|connections|limit|requests|max/ } },
    { name: 'serviceSeconds', unit: 's', min: 0.001, max: 60, default: 0.1, defaultWhy: 'A 100 ms request is typical of a web backend.', description: 'Time the backend takes for one request.', figure: { kind: 'duration', cues: /\b(?:takes?|took|latency|service time|response time|render(?:ing)?|to (?:serve|process|parse))\b/ } },
    { name: 'requestRate', unit: 'req/s', min: 0.01, max: 1_000_000, default: 700, defaultWhy: 'Worked out from the capacity.', description: 'User requests per second before the spike.', figure: { kind: 'rate', cues: /\b(?:requests?|traffic|load|queries|calls|peak|normal|usual)\b/ }, assume: (v) => ({ value: (0.7 * v.capacity!) / v.serviceSeconds!, why: 'Taken as 70 % of the backend\'s capacity (capacity / service time): busy but healthy before the trigger.' }) },
    { name: 'timeoutSeconds', unit: 's', min: 0.01, max: 600, default: 1, defaultWhy: 'One second per attempt, ten times the service time: a common client setting.', description: 'How long a caller waits for one attempt.', figure: { kind: 'duration', cues: TIMEOUT_CUES } },
    { name: 'clientRetries', unit: 'retries', min: 0, max: 20, integer: true, default: 3, defaultWhy: 'Three retries is a common client library default.', description: 'Times a user request is tried again after an error or a timeout.', figure: { kind: 'count', cues: RETRY_CUES, nouns: /retries|retry attempts|attempts|times/ } },
    { name: 'tierRetries', unit: 'retries', min: 0, max: 20, integer: true, default: 2, defaultWhy: 'Two retries in the middle tier: retries at more than one layer multiply.', description: 'Times the middle tier tries a backend call again.' },
    { name: 'retryDelaySeconds', unit: 's', min: 0, max: 60, default: 0.1, defaultWhy: '100 ms: an eager retry, as retry loops without backoff usually are.', description: 'Delay before the first retry.', figure: { kind: 'duration', cues: /\b(?:retr\w*|wait(?:s|ed|ing)?|back-?off|delay|after|again)\b/ } },
    { name: 'backoffMultiplier', unit: '×', min: 1, max: 10, default: 1, defaultWhy: '1: no backoff, each retry after the same delay.', description: 'Each further retry waits this many times longer.' },
    { name: 'retryBudgetRatio', unit: 'retries/request', min: 0, max: 100, default: 100, defaultWhy: '100 retries per request: no budget in practice.', description: 'Retries allowed per request sent (a token bucket); 100 means no budget.' },
    { name: 'callConcurrency', unit: 'requests', min: 1, max: 1_000_000_000, integer: true, default: 1_000_000_000, defaultWhy: 'No limit in the middle tier on calls in flight.', description: 'Backend calls the middle tier keeps in flight; more are refused at once.' },
    { name: 'failShare', unit: 'ratio', min: 0, max: 1, default: 0, defaultWhy: 'The backend does not fail by itself; only overload fails it.', description: 'Share of backend requests that fail by themselves (the all-fail what-if sets 1).' },
    { name: 'spikeFactor', unit: '×', min: 1, max: 100, default: 2, defaultWhy: 'Doubling the load for a short while is enough to push a 70 %-busy service past its capacity.', description: 'Load multiplier during the spike.' },
    triggerAtParameter(),
    { name: 'spikeSeconds', unit: 's', min: 1, max: 3600, default: 30, defaultWhy: 'A 30 s spike: short, so that a failure that outlasts it is the retries\' doing.', description: 'How long the spike lasts.' },
  ],
  fixes: [
    { key: 'retry-budget', remedy: 'retry-budget', title: 'Retry budget of 10 %', description: 'Both layers may retry at most one request in ten.', parameters: () => ({ retryBudgetRatio: 0.1 }) },
    { key: 'backoff-jitter', remedy: 'backoff-jitter', title: 'Exponential backoff with jitter', description: 'Retries wait 1 s, doubling, with full jitter, and one retry fewer at each layer.', parameters: (v) => ({ retryDelaySeconds: Math.max(1, v.retryDelaySeconds!), backoffMultiplier: 2, clientRetries: Math.max(0, v.clientRetries! - 1), tierRetries: Math.max(0, v.tierRetries! - 1) }) },
    { key: 'concurrency-limit', remedy: 'concurrency-limit', title: 'Calls in flight limited to the capacity', description: 'The middle tier keeps at most as many backend calls in flight as the backend has slots.', parameters: (v) => ({ callConcurrency: v.capacity! }) },
    { key: 'fewer-retries', remedy: 'circuit-breaker', title: 'Retries stop while the backend fails', description: 'Stands for a circuit breaker: retries are not sent (the engine has no breaker block, so it is modelled as no retries at either layer).', parameters: () => ({ clientRetries: 0, tierRetries: 0 }) },
  ],
  failure: { description: 'fewer than 90 % of user requests succeed for at least a minute', metric: 'users.successRatio', op: 'below', threshold: 0.9, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.spikeSeconds! + Math.max(300, 20 * v.timeoutSeconds!);
    const backoff = { kind: 'exponential' as const, base: { param: 'retryDelaySeconds' }, multiplier: { param: 'backoffMultiplier' }, max: 60, jitter: 'full' as const };
    const retryOn = ['5xx' as const, 'timeout' as const, 'shed' as const];
    const budget = { ratio: { param: 'retryBudgetRatio' }, minPerSecond: 1 };
    return {
      engine: { mode: 'des', maxEvents: 5_000_000 },
      horizon,
      stations: [
        { key: 'tier', title: 'Middle tier', slots: null, service: 0, calls: [{ to: 'backend', policy: { timeout: { expr: 'timeoutSeconds * 0.9' }, retries: { param: 'tierRetries' }, retryOn, backoff, retryBudget: budget, concurrencyLimit: { param: 'callConcurrency' } } }] },
        { key: 'backend', title: 'Backend', slots: { param: 'capacity' }, queue: { limit: { expr: 'capacity * 50' } }, service: { param: 'serviceSeconds' }, errorRate: { param: 'failShare' } },
      ],
      sources: [{ key: 'users', title: 'User requests', kind: 'open', target: 'tier', rate: { param: 'requestRate' }, policy: { timeout: { expr: 'timeoutSeconds * (tierRetries + 1) + retryDelaySeconds * tierRetries' }, retries: { param: 'clientRetries' }, retryOn, backoff, retryBudget: budget } }],
      events: [
        { key: 'spike', at: { param: 'triggerAt' }, kind: 'scaleSource', source: 'users', factor: { param: 'spikeFactor' }, label: 'Load spike' },
        { key: 'spike-over', at: { expr: 'triggerAt + spikeSeconds' }, kind: 'scaleSource', source: 'users', factor: 1, label: 'Spike over' },
      ],
      probes: [
        { key: 'backend-offered', metric: 'backend.offered', label: 'Backend attempts', unit: 'req/s' },
        { key: 'backend-amplification', metric: 'backend.amplification', label: 'Backend attempts per user request', unit: '×' },
        { key: 'user-success', metric: 'users.successRatio', label: 'User requests that succeed', unit: 'ratio' },
        { key: 'backend-utilisation', metric: 'backend.utilisation', label: 'Backend utilisation', unit: 'ratio' },
      ],
      figures: [
        { name: 'peak-amplification', label: 'Peak attempts per user request at the backend', unit: '×', measure: { metric: 'backend.amplification', stat: 'max' } },
        { name: 'worst-success', label: 'Worst user success', unit: 'ratio', measure: { metric: 'users.successRatio', stat: 'min' } },
      ],
      checks: [
        {
          name: 'amplification-across-layers',
          description: 'When every backend call fails, each user request reaches the backend (clientRetries + 1) × (tierRetries + 1) times: retries multiply across layers.',
          scenarios: ['as-happened'],
          measure: { scenario: 'all-fail', metric: 'backend.amplification', stat: 'mean', from: Math.round(horizon * 0.3), to: Math.round(horizon * 0.9) },
          expect: { op: 'approx', value: '(clientRetries + 1) * (tierRetries + 1)', tolerance: 0.1 },
          unit: '×',
          kind: 'construction',
        },
      ],
      whatIfs: [{ key: 'all-fail', title: 'Every backend call fails, light load', description: 'A failing backend at a hundredth of its capacity: shows the retry amplification factor.', actionableKey: null, parameters: { failShare: 1, spikeFactor: 1, requestRate: Number(((0.01 * v.capacity!) / v.serviceSeconds!).toPrecision(4)) } }],
    };
  },
};
