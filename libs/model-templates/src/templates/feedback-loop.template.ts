import type { ModelTemplate } from '../template.types';
import { durationParameter, RETRY_CUES, triggerAtParameter } from './common';

/**
 * Work that re-emits work: each processed event emits `branching` new events on average (a
 * branching process), each event's request is retried on failure, and all of it lands on a
 * backend of finite capacity that users share. Closed form: with branching m < 1 and room to
 * spare, one trigger causes 1 / (1 − m) events in all.
 */
export const feedbackLoopTemplate: ModelTemplate = {
  key: 'feedback-loop',
  title: 'A feedback loop of work that re-emits work',
  failureClass: 'A feedback loop (work that re-emits work, with or without retries): a branching process under finite capacity',
  docs: `A processor takes events; each event sends one request to a shared backend (\`capacity\`
slots, \`serviceSeconds\` each) and, once done, emits on average \`branching\` new events after
\`loopDelaySeconds\` (the change it made is itself announced as a change). A share
\`failShare\` of its requests fail and are retried \`retries\` times after \`retryDelaySeconds\`.
\`triggerEvents\` events start it at \`triggerAt\`; the processor runs until it is stopped after
\`loopSeconds\`. With branching ≥ 1 the work never dies out and grows until the backend is full,
so users (\`userRate\` req/s, timeout \`userTimeoutSeconds\`) fail. Failure: fewer than 90 % of
user requests succeed for a minute. Checked against the branching process's closed form: with
m < 1 and room to spare, one event causes 1 / (1 − m) in all (the \`subcritical\` what-if).`,
  patterns: { 'feedback-loop': 3, 'retry-amplification': 1, 'unbounded-concurrency': 1, 'misclassified-retryable-error': 0.5 },
  keywords: [
    { re: /\b(?:feedback|event|infinite|endless|retry) loops?\b|\bloop(?:ed|ing)?\b/, weight: 2, reason: 'describes a loop' },
    { re: /\b(?:re-?emit|re-?enqueue|re-?queue|triggered (?:itself|another|a new)|cascad\w*|self-?redirect|recursive\w*|redirect\w* to itself|pointing at itself)\b/, weight: 2, reason: 'describes work that causes more work' },
    { re: /\b(?:job|event|message)s? (?:queue|storm|flood)\b/, weight: 1, reason: 'describes a flood of jobs or events' },
  ],
  parameters: [
    { name: 'capacity', unit: 'requests', min: 1, max: 10_000, integer: true, default: 10, defaultWhy: 'Ten at once: small enough to follow every request; the failure depends on the ratio of load to capacity.', description: 'Requests the backend serves at once.' },
    { name: 'serviceSeconds', unit: 's', min: 0.001, max: 60, default: 0.1, defaultWhy: 'A 100 ms request.', description: 'Time the backend takes for one request.', figure: { kind: 'duration', cues: /\b(?:render\w*|pars\w*|takes?|took|slow|costly)\b/ } },
    { name: 'userRate', unit: 'req/s', min: 0.1, max: 100_000, default: 50, defaultWhy: 'Worked out from the capacity.', description: 'User requests per second on the backend.', assume: (v) => ({ value: (0.5 * v.capacity!) / v.serviceSeconds!, why: 'Taken as half the backend\'s capacity, so that it is healthy before the loop starts.' }) },
    { name: 'userTimeoutSeconds', unit: 's', min: 0.1, max: 600, default: 5, defaultWhy: 'Five seconds: a user gives up.', description: 'How long a user waits.' },
    { name: 'branching', unit: 'events/event', min: 0, max: 4, default: 1.5, defaultWhy: 'Each event causes 1.5 on average: above 1, so the work grows, as a loop that took a service down must have.', description: 'New events each processed event emits on average (the branching factor).' },
    { name: 'loopDelaySeconds', unit: 's', min: 0, max: 600, default: 1, defaultWhy: 'One second from an event to the event it causes: a queue or bus in between.', description: 'Delay from an event to the events it emits.' },
    { name: 'loopDepthLimit', unit: 'generations', min: 1, max: 64, integer: true, default: 64, defaultWhy: '64: no guard in practice.', description: 'Generations after which emitted events are dropped (a loop guard).' },
    { name: 'retries', unit: 'retries', min: 0, max: 20, integer: true, default: 3, defaultWhy: 'Three retries: a common default.', description: 'Times a failed request of the loop is tried again.', figure: { kind: 'count', cues: RETRY_CUES, nouns: /retries|retry attempts|attempts|times/ } },
    { name: 'retryDelaySeconds', unit: 's', min: 0, max: 60, default: 0.5, defaultWhy: 'Half a second: an eager retry.', description: 'Delay before a retry.', figure: { kind: 'duration', cues: /\b(?:retr\w*|wait(?:s|ed|ing)?|back-?off|delay|again)\b/ } },
    { name: 'failShare', unit: 'ratio', min: 0, max: 1, default: 0.5, defaultWhy: 'Half of the loop\'s requests fail, so retries add to the loop as in most reported loops.', description: 'Share of the loop\'s requests that fail and are retried.' },
    { name: 'processorConcurrency', unit: 'events', min: 1, max: 100_000, integer: true, default: 1000, defaultWhy: 'No limit of its own; 1,000 stands for the processor\'s memory and sockets (a hundred times the backend), and events beyond 20 times that are dropped.', description: 'Events the processor handles at once.' },
    { name: 'triggerEvents', unit: 'events', min: 1, max: 1000, integer: true, default: 1, defaultWhy: 'One event is enough to start a loop.', description: 'Events that start the loop.' },
    triggerAtParameter(30),
    durationParameter('loopSeconds', 'How long the loop runs before it is stopped.', 300, 60, 3600),
  ],
  fixes: [
    { key: 'break-loop', remedy: 'break-loop', title: 'Loop guard', description: 'Events more than two generations from the first are dropped.', parameters: () => ({ loopDepthLimit: 2 }) },
    { key: 'concurrency-limit', remedy: 'concurrency-limit', title: 'Processor concurrency bounded', description: 'The processor handles at most a fifth of the backend\'s capacity at once.', parameters: (v) => ({ processorConcurrency: Math.max(1, Math.floor(v.capacity! / 5)) }) },
    { key: 'gentler-retries', remedy: 'retry-budget', title: 'One retry, after 2 s', description: 'Fewer and later retries of the loop\'s failed requests.', parameters: () => ({ retries: 1, retryDelaySeconds: 2 }) },
  ],
  failure: { description: 'fewer than 90 % of user requests succeed for at least a minute', metric: 'users.successRatio', op: 'below', threshold: 0.9, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.loopSeconds! + 120;
    const trace = Array.from({ length: v.triggerEvents! }, (_, i) => v.triggerAt! + i * 0.01);
    return {
      engine: { mode: 'des', maxEvents: 20_000_000 },
      horizon,
      stations: [
        { key: 'processor', title: 'Event processor', slots: { param: 'processorConcurrency' }, queue: { limit: { expr: 'processorConcurrency * 20' } }, service: 0, calls: [{ to: 'update', policy: { retries: { param: 'retries' }, retryOn: ['5xx'], backoff: { kind: 'constant', base: { param: 'retryDelaySeconds' } } }, onError: 'ignore' }], emits: [{ to: 'processor', probability: { expr: 'min(1, branching / 2)' }, on: 'any', delay: { param: 'loopDelaySeconds' }, maxDepth: { param: 'loopDepthLimit' } }, { to: 'processor', probability: { expr: 'min(1, branching / 2)' }, on: 'any', delay: { param: 'loopDelaySeconds' }, maxDepth: { param: 'loopDepthLimit' } }] },
        { key: 'update', title: 'Update request', slots: null, service: 0, calls: [{ to: 'backend' }], errorRate: { param: 'failShare' } },
        { key: 'backend', title: 'Shared backend', slots: { param: 'capacity' }, queue: { limit: { expr: 'capacity * 100' } }, service: { param: 'serviceSeconds' } },
      ],
      sources: [
        { key: 'trigger', title: 'The events that started the loop', kind: 'open', target: 'processor', trace },
        { key: 'users', title: 'User requests', kind: 'open', target: 'backend', rate: { param: 'userRate' }, policy: { timeout: { param: 'userTimeoutSeconds' } } },
      ],
      events: [{ key: 'processor-stopped', at: { expr: 'triggerAt + loopSeconds' }, kind: 'stop', station: 'processor', label: 'Processor stopped' }],
      probes: [
        { key: 'loop-events', metric: 'processor.offered', label: 'Events processed', unit: 'events/s' },
        { key: 'backend-offered', metric: 'backend.offered', label: 'Backend requests', unit: 'req/s' },
        { key: 'user-success', metric: 'users.successRatio', label: 'User requests that succeed', unit: 'ratio' },
      ],
      figures: [{ name: 'peak-loop', label: 'Peak events per second in the loop', unit: 'events/s', measure: { metric: 'processor.offered', stat: 'max' } }],
      checks: [
        {
          name: 'branching-closed-form',
          description: 'With branching 0.5, no failures and room to spare, each starting event causes 1 / (1 − 0.5) = 2 events in all (a subcritical branching process).',
          scenarios: ['as-happened'],
          measure: { scenario: 'subcritical', metric: 'processor.offered', stat: 'integral' },
          expect: { op: 'approx', value: 'triggerEvents * 2', tolerance: 0.5 },
          unit: 'events',
          kind: 'construction',
        },
      ],
      whatIfs: [{ key: 'subcritical', title: 'Branching below 1', description: 'Each event causes half an event on average and nothing fails: the work dies out.', actionableKey: null, parameters: { branching: 0.5, failShare: 0 } }],
    };
  },
};
