import type { ModelTemplate } from '../template.types';

/**
 * A cap on concurrent connections, sessions or file descriptors, each held for its request plus a
 * hold time (keep-alive, a long poll). Little's law: held = arrival rate × hold time.
 */
export const connectionCapTemplate: ModelTemplate = {
  key: 'connection-cap',
  title: 'Connections held against a cap',
  failureClass: 'A connection, session or file-descriptor cap reached because each connection is held for a hold time (keep-alive, long polls)',
  docs: `A front end admits at most \`cap\` concurrent connections. Each connection holds its slot for
the request (\`requestSeconds\`) and then for \`holdSeconds\` (keep-alive or a long poll), so by
Little's law the connections held are rate × (request + hold). Beyond the cap new connections wait
in a backlog of \`backlog\`; when it is full they are dropped and the client tries again (SYN
retransmits: \`clientRetries\` after \`retryDelaySeconds\`, doubling). At \`triggerAt\` an added
load of \`addedRate\` connections/s starts (a feature launch, a new client) and stays for
\`triggerSeconds\`. The failure: fewer than 90 % of ordinary connections succeed for 30 s.
Checked against Little's law on an uncapped what-if (the sessions demanded equal the rate × hold).
Leaves out: CPU cost per connection, the cap's own reason, clients that reuse connections.`,
  patterns: { 'connection-cap': 3, 'keep-alive-hold': 3, 'resource-exhaustion': 1 },
  keywords: [
    { re: /\bkeep-?alive\b/, weight: 2, reason: 'mentions keep-alive' },
    { re: /\b(?:concurrent|max(?:imum)?) (?:sessions|connections)\b|\bmaxconn\b|\bsession (?:cap|limit)\b|\bconnection (?:cap|limit|pool)\b/, weight: 2, reason: 'mentions a connection or session limit' },
    { re: /\bfile descriptors?\b|\btoo many open files\b|\bulimit\b|\bemfile\b/, weight: 2, reason: 'mentions file descriptors' },
    { re: /\blong[- ]?poll|\bwebsockets?\b/, weight: 1, reason: 'mentions long polls or websockets' },
    { re: /\b(?:ip|address) (?:exhaustion|starvation)|\bran out of (?:ip|addresses|connections|ports)\b|\bport exhaustion\b/, weight: 2, reason: 'mentions running out of addresses, ports or connections' },
  ],
  parameters: [
    {
      name: 'cap', unit: 'connections', min: 1, max: 10_000_000, integer: true, default: 10_000,
      defaultWhy: '10,000 is a common order of magnitude for a front end\'s connection limit.',
      description: 'Concurrent connections (sessions, descriptors) the front end allows.',
      figure: { kind: 'count', cues: /\b(?:cap|capped|limit|limits|limited|max|maximum|maxconn|allow|allows|ceiling|at most)\b/, nouns: /sessions?|connections?|limit|cap|max|file descriptors?|fds|sockets?|ip addresses|ips/ },
    },
    {
      name: 'holdSeconds', unit: 's', min: 0, max: 3600, default: 15,
      defaultWhy: '15 s is a common keep-alive setting of load balancers.',
      description: 'How long a connection is held after its request (keep-alive, long-poll wait).',
      figure: { kind: 'duration', cues: /\b(?:keep-?alive|idle|hold|held|long[- ]?poll|linger)\b/ },
    },
    {
      name: 'requestSeconds', unit: 's', min: 0.001, max: 60, default: 0.05,
      defaultWhy: 'Postmortems rarely give the service time of one request; 50 ms is short beside any hold time, so it barely moves the sessions.',
      description: 'Time to serve one request once the connection is open.',
    },
    {
      name: 'addedRate', unit: 'conn/s', min: 0, max: 1_000_000, default: 1000,
      defaultWhy: 'Replaced by a value worked out from the cap when the text gives none.',
      description: 'New connections per second from the added load that starts at the trigger.',
      figure: { kind: 'rate', cues: /\b(?:peak|peaking|peaked|added|additional|extra|new|spike|surge|burst|increase|traffic|requests?|connections?)\b/ },
      assume: (v) => ({ value: (1.3 * v.cap!) / (v.holdSeconds! + v.requestSeconds!), why: 'Taken as 1.3 × cap / (request + hold time): the smallest round excess over what the cap holds, since the incident reports that the cap was reached.' }),
    },
    {
      name: 'baseRate', unit: 'conn/s', min: 0, max: 1_000_000, default: 100,
      defaultWhy: 'Replaced by a value worked out from the cap.',
      description: 'New connections per second from the ordinary traffic, before and during the trigger.',
      assume: (v) => ({ value: (0.5 * v.cap!) / (v.holdSeconds! + v.requestSeconds!), why: 'Taken as 0.5 × cap / (request + hold time): ordinary traffic filling half the cap, so that the front end is healthy before the trigger.' }),
    },
    { name: 'backlog', unit: 'connections', min: 0, max: 1_000_000, integer: true, default: 1024, defaultWhy: '1,024 is a common listen backlog.', description: 'Connections that may wait for a slot; more are dropped.' },
    { name: 'clientRetries', unit: 'retries', min: 0, max: 10, integer: true, default: 2, defaultWhy: 'Two SYN retransmissions is a common client default.', description: 'Attempts a client makes again after a dropped or timed-out connection.' },
    { name: 'retryDelaySeconds', unit: 's', min: 0, max: 60, default: 3, defaultWhy: 'A common first SYN retransmission delay; it doubles after each one.', description: 'Delay before the first retry.' },
    { name: 'clientTimeoutSeconds', unit: 's', min: 0.1, max: 300, default: 10, defaultWhy: 'Ten seconds is a common connect timeout.', description: 'How long a client waits for one attempt.' },
    { name: 'triggerAt', unit: 's', min: 0, max: 3600, default: 60, defaultWhy: 'One minute of healthy traffic before the trigger shows the model is healthy without it.', description: 'When the added load starts, seconds into the run.' },
    { name: 'addedOn', unit: 'on/off', min: 0, max: 1, default: 0, defaultWhy: 'A switch the trigger events set: 0 before the trigger, 1 while the added load is on.', description: 'Whether the added load is on (set by the timeline events).' },
    {
      name: 'triggerSeconds', unit: 's', min: 60, max: 3 * 3600, default: 300, timeline: 'failure-duration',
      defaultWhy: 'Five minutes, when the timeline gives no length of the failure.',
      description: 'How long the added load stays on (from the trigger to the recovery in the timeline).',
    },
  ],
  fixes: [
    { key: 'lower-keep-alive', remedy: 'lower-keep-alive', title: 'Hold time cut to a third', description: 'Connections are released a third as long after their request.', parameters: (v) => ({ holdSeconds: v.holdSeconds! / 3 }) },
    {
      key: 'raise-cap', remedy: 'raise-cap', title: 'Connection cap raised', description: 'The cap raised above what the load asks for (1.5 × the demand by Little\'s law, at least 2.5 × the old cap).',
      parameters: (v) => ({ cap: Math.min(10_000_000, Math.ceil(Math.max(2.5 * v.cap!, 1.5 * (v.baseRate! + v.addedRate!) * (v.holdSeconds! + v.requestSeconds!)))) }),
    },
    { key: 'stagger-rollout', remedy: 'stagger-rollout', title: 'Added load ramped in over the whole period', description: 'The change that adds load is rolled out gradually instead of at once; the same load arrives in the end.', events: (v) => [{ key: 'added-ramp', at: { param: 'triggerAt' }, kind: 'setParameter', parameter: 'addedOn', value: 1, ramp: v.triggerSeconds!, label: 'Added load ramped in' }], omitEvents: ['added-on'] },
  ],
  failure: { description: 'fewer than 90 % of ordinary connections succeed for at least 30 s', metric: 'ordinary.successRatio', op: 'below', threshold: 0.9, sustain: 30 },
  failureKind: 'construction',
  build: (v) => {
    const horizon = v.triggerAt! + v.triggerSeconds! + Math.max(120, 4 * v.holdSeconds!);
    const policy = { timeout: { param: 'clientTimeoutSeconds' }, retries: { param: 'clientRetries' }, retryOn: ['shed' as const, 'timeout' as const], backoff: { kind: 'exponential' as const, base: { param: 'retryDelaySeconds' }, multiplier: 2 } };
    return {
      engine: { mode: 'fluid', fluidStep: Math.min(0.5, Math.max(0.05, (v.holdSeconds! + v.requestSeconds!) / 10)) },
      horizon,
      stations: [{ key: 'front-end', title: 'Front end', slots: { param: 'cap' }, queue: { limit: { param: 'backlog' }, dropAbandoned: true }, service: { param: 'requestSeconds' }, linger: { param: 'holdSeconds' } }],
      sources: [
        { key: 'ordinary', title: 'Ordinary traffic', kind: 'open', target: 'front-end', rate: { param: 'baseRate' }, policy },
        { key: 'added', title: 'Added load', kind: 'open', target: 'front-end', rate: { expr: 'addedRate * addedOn' }, policy },
      ],
      events: [
        { key: 'added-on', at: { param: 'triggerAt' }, kind: 'setParameter', parameter: 'addedOn', value: 1, label: 'Added load starts' },
        { key: 'added-off', at: { expr: 'triggerAt + triggerSeconds' }, kind: 'setParameter', parameter: 'addedOn', value: 0, label: 'Added load stops' },
      ],
      probes: [
        { key: 'held', metric: 'front-end.concurrency', label: 'Connections held', unit: 'connections' },
        { key: 'waiting', metric: 'front-end.queue', label: 'Connections waiting', unit: 'connections' },
        { key: 'ordinary-success', metric: 'ordinary.successRatio', label: 'Ordinary connections that succeed', unit: 'ratio' },
      ],
      figures: [
        { name: 'peak-held', label: 'Peak connections held', unit: 'connections', measure: { metric: 'front-end.concurrency', stat: 'max' } },
        { name: 'demand', label: "Demand by Little's law: rate × (request + hold)", unit: 'connections', value: '(baseRate + addedRate) * (requestSeconds + holdSeconds)' },
      ],
      checks: [
        {
          name: 'littles-law-demand',
          description: "Without a cap, the connections held while the added load is on equal (ordinary + added rate) × (request + hold time): Little's law.",
          scenarios: ['as-happened'],
          measure: { scenario: 'uncapped', metric: 'front-end.concurrency', stat: 'mean', from: { expr: 'triggerAt + 2 * (holdSeconds + requestSeconds) + 5' }, to: { expr: 'triggerAt + triggerSeconds' } },
          expect: { op: 'approx', value: '(baseRate + addedRate) * (requestSeconds + holdSeconds)', tolerance: 0.05 },
          unit: 'connections',
          kind: 'construction',
        },
      ],
      whatIfs: [{ key: 'uncapped', title: 'No cap', description: 'The same load with no connection limit: what the front end was asked to hold.', actionableKey: null, parameters: { cap: 10_000_000 } }],
    };
  },
};
