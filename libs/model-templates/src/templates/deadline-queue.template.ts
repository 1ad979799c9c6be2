import type { ModelTemplate } from '../template.types';
import { durationParameter, TIMEOUT_CUES, triggerAtParameter } from './common';

/**
 * A FIFO queue in front of c servers whose callers give up after a deadline. An overload builds a
 * backlog that is served after its callers left: goodput falls to zero and stays there until the
 * backlog is gone. Closed form: below saturation the mean wait is Erlang C's (M/M/c).
 */
export const deadlineQueueTemplate: ModelTemplate = {
  key: 'deadline-queue',
  title: 'A queue served after its callers gave up',
  failureClass: 'A queue with deadlines under overload (requests served after their caller gave up, bimodal latency)',
  docs: `\`servers\` servers take requests from one FIFO queue, each request taking an exponential
\`serviceSeconds\`; callers send \`requestRate\` requests/s and give up after \`deadlineSeconds\`,
but the server does not know and serves them anyway. At \`triggerAt\` the load rises by
\`spikeFactor\` for \`spikeSeconds\`: the queue grows, every request waits past its deadline, and
once the spike is over the backlog still has to be worked off, so the failure outlasts it.
Latency is bimodal: requests either pass quickly or wait out the backlog. Failure: fewer than 90 %
of requests answered within their deadline for 30 s. Fixes: drop requests that waited too long
(\`maxWaitSeconds\`), bound the queue (\`queueLimit\`), more servers. Checked against Erlang C
(the M/M/c mean wait) before the spike.`,
  patterns: { 'unbounded-concurrency': 1, 'resource-exhaustion': 1, 'metastable-failure': 0.5 },
  keywords: [
    { re: /\b(?:queue|backlog)s?\b[^.]{0,40}\b(?:grew|growing|built up|piled|long|full|deep)\b|\b(?:queue|backlog) (?:depth|length)\b/, weight: 2, reason: 'describes a growing queue or backlog' },
    { re: /\b(?:gave up|give up|abandon\w*|already timed out|stale requests|no longer waiting)\b/, weight: 2, reason: 'describes callers that gave up' },
    { re: /\b(?:latency|response times?)\b[^.]{0,40}\b(?:spiked|rose|increased|high|seconds|minutes)\b/, weight: 1, reason: 'describes rising latency' },
    { re: /\b(?:deadline|timeouts?|timed out)\b/, weight: 0.5, reason: 'mentions deadlines or timeouts' },
  ],
  parameters: [
    { name: 'servers', unit: 'servers', min: 1, max: 1000, integer: true, default: 10, defaultWhy: 'Ten servers (workers, threads): the failure depends on load over capacity, not on scale.', description: 'Requests served at once.', figure: { kind: 'count', cues: /\b(?:workers?|threads?|servers?|consumers?|processes)\b/, nouns: /workers?|threads?|servers?|process(?:es)?/ } },
    { name: 'serviceSeconds', unit: 's', min: 0.001, max: 60, default: 0.1, defaultWhy: 'A 100 ms request.', description: 'Mean service time (exponential).' },
    { name: 'requestRate', unit: 'req/s', min: 0.01, max: 10_000, default: 80, defaultWhy: 'Worked out from the capacity.', description: 'Requests per second before the spike.', assume: (v) => ({ value: (0.8 * v.servers!) / v.serviceSeconds!, why: 'Taken as 80 % of the capacity (servers / service time): busy but healthy before the trigger.' }) },
    { name: 'deadlineSeconds', unit: 's', min: 0.01, max: 600, default: 2, defaultWhy: 'Two seconds: twenty service times, a common client deadline.', description: 'How long a caller waits before it gives up.', figure: { kind: 'duration', cues: TIMEOUT_CUES } },
    { name: 'spikeFactor', unit: '×', min: 1, max: 20, default: 1.5, defaultWhy: 'Half as much load again: 120 % of the capacity.', description: 'Load multiplier during the spike.' },
    { name: 'maxWaitSeconds', unit: 's', min: 0.01, max: 1_000_000, default: 1_000_000, defaultWhy: 'No limit: requests wait however long.', description: 'Requests waiting longer are dropped by the server.' },
    { name: 'queueLimit', unit: 'requests', min: 1, max: 10_000_000, integer: true, default: 10_000_000, defaultWhy: 'No bound on the queue.', description: 'Requests that may wait; more are refused at once.' },
    triggerAtParameter(),
    durationParameter('spikeSeconds', 'How long the spike lasts.', 60, 10, 1800),
  ],
  fixes: [
    { key: 'drop-expired', remedy: 'load-shedding', title: 'Drop requests past their deadline', description: 'The server drops requests that waited longer than 80 % of the deadline instead of serving them.', parameters: (v) => ({ maxWaitSeconds: 0.8 * v.deadlineSeconds! }) },
    { key: 'bounded-queue', remedy: 'concurrency-limit', title: 'Queue bounded to what fits in the deadline', description: 'At most servers × deadline / service time requests wait; more are refused at once.', parameters: (v) => ({ queueLimit: Math.max(1, Math.floor((0.8 * v.servers! * v.deadlineSeconds!) / v.serviceSeconds!)) }) },
    { key: 'more-servers', remedy: 'raise-cap', title: 'More servers', description: 'Capacity raised so that the spike fits (servers × spike factor × 1.2).', parameters: (v) => ({ servers: Math.min(1000, Math.ceil(v.servers! * v.spikeFactor! * 1.2)) }) },
    { key: 'shorter-deadline', remedy: 'lower-timeout', title: 'Server-side deadline', description: 'The caller\'s deadline passed to the server, which drops what has expired.', parameters: (v) => ({ maxWaitSeconds: v.deadlineSeconds! }) },
  ],
  failure: { description: 'fewer than 90 % of requests answered within their deadline for at least 30 s', metric: 'clients.successRatio', op: 'below', threshold: 0.9, sustain: 30 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.spikeSeconds! * 4 + 120;
    return {
      engine: { mode: 'des', maxEvents: 20_000_000 },
      horizon,
      stations: [{ key: 'server', title: 'Servers', slots: { param: 'servers' }, queue: { limit: { param: 'queueLimit' }, maxWait: { param: 'maxWaitSeconds' } }, service: { dist: 'exponential', mean: { param: 'serviceSeconds' } } }],
      sources: [{ key: 'clients', title: 'Requests', kind: 'open', target: 'server', rate: { param: 'requestRate' }, policy: { timeout: { param: 'deadlineSeconds' } } }],
      events: [
        { key: 'spike', at: { param: 'triggerAt' }, kind: 'scaleSource', source: 'clients', factor: { param: 'spikeFactor' }, label: 'Load spike' },
        { key: 'spike-over', at: { expr: 'triggerAt + spikeSeconds' }, kind: 'scaleSource', source: 'clients', factor: 1, label: 'Spike over' },
      ],
      probes: [
        { key: 'success', metric: 'clients.successRatio', label: 'Requests answered in time', unit: 'ratio' },
        { key: 'queue', metric: 'server.queue', label: 'Requests waiting', unit: 'requests' },
        { key: 'wait-p90', metric: 'server.wait.p90', label: 'Wait, 90th percentile', unit: 's' },
        { key: 'goodput', metric: 'server.goodput', label: 'Answers somebody still waited for', unit: 'req/s' },
      ],
      figures: [{ name: 'peak-queue', label: 'Longest queue', unit: 'requests', measure: { metric: 'server.queue', stat: 'max' } }],
    };
  },
};
