import type { ModelTemplate } from '../template.types';
import { DEFAULT_POINTS } from '@hindsight/models';
import { fluidStep } from './common';

/** Steps of the consumer's growth (each a setSlots event); the onset is exact to 1 / steps of it. */
const CONSUMPTION_STEPS = 50;

/**
 * A finite resource (memory, disk, an address pool, a quota or a budget) consumed faster than it
 * is given back until none is left. Closed form: with ordinary use holding a share `baseShare` of
 * the capacity and a consumer taking `growthRate` more units per second that it keeps, fewer than
 * 90 % of ordinary requests are served from ((1 + spareShare) − 0.9 × baseShare) × capacity /
 * growthRate seconds after the consumer starts.
 */
export const resourceExhaustionTemplate: ModelTemplate = {
  key: 'resource-exhaustion',
  title: 'A finite resource used up',
  failureClass: 'A finite resource (memory, disk, an address pool, a quota or a budget) consumed until it is exhausted, with more room, a limit per consumer, reclaiming and an earlier alert as fixes',
  docs: `A resource of \`capacity\` units (bytes of memory or disk, addresses, quota, minutes of a
budget) is shared. Ordinary use holds a share \`baseShare\` of it: each ordinary request takes a
unit for \`useSeconds\` and gives it back. At \`triggerAt\` a consumer (a leak, a new workload, a
growing data set, a job that keeps what it allocates) starts taking \`growthRate\` units per
second and keeps them. Once nothing is left, ordinary requests are refused at
once (there is no waiting for a unit), so they fail until somebody makes room. As it happened the
recovery comes \`recoverSeconds\` after the trigger (the timeline's trigger to recovery), of which
\`exhaustSeconds\` passed before requests started failing (assumed to be half) and the rest is the
outage; \`growthRate\` follows from it. The response raises the capacity above what the consumer
still needs.
The failure: fewer than 90 % of ordinary requests succeed for at least a minute.

Fixes, each switched on in its own scenario:
- more room (\`raise-cap\`): the capacity doubled from the start, so it runs out later (delayed;
  prevented only when the run ends first);
- a limit per consumer (\`concurrency-limit\`): the consumer may hold at most \`consumerLimitShare\`
  of the capacity, so ordinary use keeps the rest;
- reclaiming (\`reclaim\`): what the consumer takes is cleaned up after \`reclaimAfterSeconds\`
  (the actionable's retention when it states one, else a tenth of the time to run out) instead of
  being kept, so by Little's law it holds growthRate × reclaimAfterSeconds units at most;
- an earlier alert (\`detect-earlier\`): an alert when \`alertShare\` of the capacity is in use, and
  the same response \`respondSeconds\` after it. The alert fires at
  triggerAt + (alertShare × (1 + spareShare) − baseShare) × capacity / growthRate; whether the
  response comes before the resource runs out decides between prevented and reduced.

Checked against the closed form: fewer than 90 % of ordinary requests are served from
((1 + spareShare) − 0.9 × baseShare) × capacity / growthRate after the trigger. Leaves out: what the resource is, partial degradation before it is full (swapping,
slow allocation), several consumers.`,
  patterns: { 'resource-exhaustion': 3, 'capacity-planning': 1.5, 'connection-cap': 0.5, 'monitoring-gap': 1 },
  keywords: [
    { re: /\b(?:out of memory|oom(?:[- ]?kill\w*)?|no space left|disk (?:was |is |got |became )?full|(?:disk|storage|memory|space|quota|budget|minutes|credits?|balance|addresses|ips?) (?:ran|run|running) out|ran out of|run(?:ning)? out of|exhaust\w*|starv\w*|used up|using (?:up )?(?:all )?(?:the |their |our |its )?available|(?:budget|quota|limit|credits?|minutes|allowance) (?:was |were |had been )?(?:exceeded|reached|hit|spent|used up)|over (?:the |its |our |their )?(?:quota|budget|limit)|billing (?:issues?|problems?|limits?))\b/, weight: 3, reason: 'describes a resource running out' },
    { re: /\b(?:memory|disk|storage|inodes?|space|quota|budget|billing|spending limit|ip address\w*|subnets?|address pool|locks|file descriptors|credits?)\b/, weight: 1, reason: 'names a finite resource' },
    { re: /容量不足|空き容量|メモリ不足|ディスクフル|使い果た|枯渇|用完|耗尽|空间不足|磁盘已满|内存不足|余额|\b(?:speicher (?:voll|erschöpft)|kein speicherplatz|plus d'espace|mémoire insuffisante|sin espacio|memoria insuficiente)/, weight: 3, reason: 'describes a resource running out (in another language)' },
    { re: /\b(?:leak\w*|grew|growing|growth|fill(?:ed|ing)? up|accumulat\w*|snapshots?|logs? (?:grew|filled))\b/, weight: 1, reason: 'describes something growing until it fills a resource' },
    { re: /\b(?:alert(?:ed|ing)?|alarm|threshold|monitor\w*|noticed)\b/, weight: 0.5, reason: 'mentions an alert or how the problem was noticed' },
  ],
  parameters: [
    {
      name: 'capacity', unit: 'units', min: 1, max: 1e12, integer: true, default: 1000,
      defaultWhy: 'A thousand units: the failure depends on the shares in use and the rate of growth, not on the size.',
      description: 'Units of the resource in all (bytes, addresses, quota, budget minutes, locks).',
      figure: { kind: 'count', cues: /\b(?:cap|capped|limit|limits|quota|capacity|max\w*|maximum|pool|budget|total|size|allocat\w*|at most)\b/, nouns: /limit|cap|max|ip addresses|ips|locks|file descriptors?|fds|sockets?|connections?|sessions?|slots?|keys|entries|items|minutes|builds|jobs|containers?|pods?/ },
    },
    {
      name: 'baseShare', unit: 'ratio', min: 0, max: 0.95, default: 0.6,
      defaultWhy: 'Ordinary use holding 60 % of the resource: a common planning margin, healthy before the trigger.',
      description: 'Share of the capacity ordinary use holds before the trigger.',
      figure: { kind: 'percent', cues: /\b(?:usage|used|in use|utili[sz]\w*|occupied|consum\w*|baseline|normally)\b/ },
    },
    {
      name: 'recoverSeconds', unit: 's', min: 120, max: 60 * 86400, default: 5400, timeline: 'failure-duration',
      defaultWhy: 'An hour and a half from the trigger to the recovery, when the timeline gives no length.',
      description: 'Time from the trigger (the consumer starting) to the recovery, as it happened (the timeline\'s trigger to recovery).',
    },
    {
      name: 'exhaustSeconds', unit: 's', min: 60, max: 60 * 86400, default: 1800,
      defaultWhy: 'Half an hour from the trigger to the resource running out.',
      description: 'Time from the trigger until requests start failing because the resource ran out, as it happened (sets the consumer\'s rate); the rest of the time to recover is the outage.',
      assume: (v) => ({ value: v.recoverSeconds! / 2, why: 'Taken as half the time from the trigger to the recovery: the text does not say when the resource ran out, so the time is split evenly between filling up and the outage.' }),
    },
    {
      name: 'useSeconds', unit: 's', min: 0.01, max: 3600, default: 10, defaultWhy: 'Ordinary use gives a unit back after ten seconds; only the share held matters.', description: 'How long an ordinary request holds its unit.',
      assume: (v) => ({ value: Math.min(3600, Math.max(10, v.recoverSeconds! / 200)), why: 'Only the share held matters; taken as a two-hundredth of the time to recover (at least ten seconds) so that the fluid steps of a long run stay short beside it.' }),
    },
    {
      name: 'growthRate', unit: 'units/s', min: 1e-9, max: 1e9, default: 0.2,
      defaultWhy: 'Worked out from the time to run out.',
      description: 'Units per second the consumer takes from the trigger on.',
      figure: { kind: 'rate', cues: /\b(?:grow\w*|grew|growth|leak\w*|consum\w*|allocat\w*|creat\w*|writ\w*|fill\w*|per)\b/ },
      assume: (v) => ({ value: ((1 - 0.9 * v.baseShare!) * v.capacity!) / v.exhaustSeconds!, why: 'Taken as (1 − 0.9 × baseShare) × capacity / exhaustSeconds: the rate at which ordinary requests start failing (fewer than 90 % served) exhaustSeconds after the trigger.' }),
    },
    {
      name: 'alertShare', unit: 'ratio', min: 0.05, max: 0.99, default: 0.8,
      defaultWhy: '80 % full is a common alert threshold.',
      description: 'Share of the capacity in use at which the earlier alert fires (the detect-earlier fix).',
      figure: { kind: 'percent', cues: /\b(?:alert\w*|alarm\w*|threshold|warn\w*|notif\w*|page[sd]?)\b/, fromActionables: true },
    },
    {
      name: 'respondSeconds', unit: 's', min: 0, max: 7 * 86400, default: 900,
      defaultWhy: 'Fifteen minutes from an alert to somebody making room.',
      description: 'Time from the alert to the response (the detect-earlier fix).',
    },
    {
      name: 'reclaimAfterSeconds', unit: 's', min: 1, max: 1e9, default: 180,
      defaultWhy: 'Worked out from the time to run out.',
      description: 'With the reclaim fix: what the consumer takes is cleaned up after this long.',
      figure: { kind: 'duration', cues: /\b(?:expir\w*|older than|after|retention|retain\w*|keep\w*|clean\w*|delet\w*|cull\w*|prun\w*|purg\w*|ttl)\b/, fromActionables: 'only' },
      assume: (v) => ({ value: Math.max(1, v.exhaustSeconds! / 10), why: 'Taken as a tenth of the time it took to run out, when the actionable gives no retention.' }),
    },
    { name: 'consumerLimitShare', unit: 'ratio', min: 0.01, max: 1, default: 1, defaultWhy: 'No limit per consumer as it happened: it may take everything.', description: 'Largest share of the capacity the consumer may hold.' },
    { name: 'reclaimSeconds', unit: 's', min: 1, max: 1e9, default: 1e9, defaultWhy: 'Nothing is reclaimed as it happened.', description: 'What the consumer takes is cleaned up after this long.' },
    { name: 'spareShare', unit: 'ratio', min: 0, max: 10, default: 0, defaultWhy: 'No extra room as it happened.', description: 'Extra capacity beyond `capacity`, as a share of it.' },
    { name: 'alertOn', unit: 'on/off', min: 0, max: 1, integer: true, default: 0, defaultWhy: 'No earlier alert as it happened: the failure is noticed after the resource runs out.', description: 'Whether the earlier alert is in place.' },
    {
      name: 'triggerAt', unit: 's', min: 0, max: 86400, default: 60, defaultWhy: 'A minute of ordinary use before the trigger shows the model is healthy without it.', description: 'When the consumer starts, seconds into the run.',
      assume: (v) => ({ value: Math.max(60, 0.05 * v.recoverSeconds!), why: 'A twentieth of the time to run out and back (at least a minute) before the consumer starts, so the healthy stretch spans several output points.' }),
    },
  ],
  fixes: [
    { key: 'more-room', remedy: 'raise-cap', title: 'Twice the room', description: 'The capacity doubled from the start (more memory, disk, addresses or budget).', parameters: () => ({ spareShare: 1 }) },
    { key: 'limit-per-consumer', remedy: 'concurrency-limit', title: 'A limit per consumer', description: 'The consumer may hold at most a quarter of the capacity; the rest stays for ordinary use.', parameters: () => ({ consumerLimitShare: 0.25 }) },
    { key: 'reclaim', remedy: 'reclaim', title: 'Clean up what is no longer used', description: 'What the consumer takes is reclaimed (cleaned up, culled, expired) after reclaimAfterSeconds.', parameters: (v) => ({ reclaimSeconds: v.reclaimAfterSeconds! }) },
    { key: 'alert-earlier', remedy: 'detect-earlier', title: 'Alert before it runs out', description: 'An alert at the alert threshold, and the response that makes room a set time after it.', parameters: () => ({ alertOn: 1 }) },
  ],
  failure: { description: 'fewer than 90 % of ordinary requests succeed for at least a minute', metric: 'ordinary.successRatio', op: 'below', threshold: 0.9, sustain: 60 },
  failureKind: 'construction',
  build: (v) => {
    const exhaustAt = v.triggerAt! + v.exhaustSeconds!;
    const outage = Math.max(60, v.recoverSeconds! - v.exhaustSeconds!);
    // Long enough that twice the room shows as a delay rather than running past the end.
    const horizon = Math.max(exhaustAt + outage + Math.max(300, 0.2 * (v.exhaustSeconds! + outage)), v.triggerAt! + 4.5 * v.exhaustSeconds!);
    // As it happened, people made room recoverSeconds − exhaustSeconds after it ran out (they responded to the
    // outage, so with more room they respond later too); with the alert, respondSeconds after
    // the alert fired, if that is sooner.
    const outOfRoom = 'triggerAt + (1 + spareShare - baseShare) * capacity / growthRate';
    const alertAt = 'triggerAt + max(0, alertShare * (1 + spareShare) - baseShare) * capacity / growthRate';
    const outageExpr = 'max(60, recoverSeconds - exhaustSeconds)';
    const responseAt = `if(alertOn, min(${outOfRoom} + ${outageExpr}, ${alertAt} + respondSeconds), ${outOfRoom} + ${outageExpr})`;
    // The consumer's holding grows at growthRate until it is reclaimed (Little's law: at most
    // growthRate × reclaimSeconds), reaches its limit, or takes everything: L seconds of growth.
    const grows = 'min(reclaimSeconds, consumerLimitShare * capacity * (1 + spareShare) / growthRate)';
    const full = 'ceil(capacity * (1 + spareShare))';
    const steps = Array.from({ length: CONSUMPTION_STEPS }, (_, i) => i + 1);
    const delay = ((1 + v.spareShare! - 0.9 * v.baseShare!) * v.capacity!) / v.growthRate!;
    const growthSeconds = Math.min(v.reclaimSeconds!, (v.consumerLimitShare! * v.capacity! * (1 + v.spareShare!)) / v.growthRate!);
    const tolerance = 0.05 * delay + growthSeconds / CONSUMPTION_STEPS + (2 * horizon) / DEFAULT_POINTS;
    return {
      engine: { mode: 'fluid', fluidStep: fluidStep(horizon, Math.min(v.useSeconds!, 60)) },
      horizon,
      stations: [{ key: 'resource', title: 'Resource', slots: { expr: full }, queue: { limit: 0 }, service: { param: 'useSeconds' } }],
      sources: [{ key: 'ordinary', title: 'Ordinary requests', kind: 'open', target: 'resource', rate: { expr: 'baseShare * capacity / useSeconds' } }],
      events: [
        ...steps.map((k) => ({
          key: `consumed-${k}`,
          at: { expr: `triggerAt + ${k / CONSUMPTION_STEPS} * ${grows}` },
          kind: 'setSlots' as const,
          station: 'resource',
          slots: { expr: `max(0, round(${full} - growthRate * ${k / CONSUMPTION_STEPS} * ${grows}))` },
          label: k === 1 ? 'The consumer starts taking units' : `The consumer holds ${Math.round((100 * k) / CONSUMPTION_STEPS)} % of what it takes`,
        })),
        { key: 'response', at: { expr: responseAt }, kind: 'cancelEvents', keys: steps.map((k) => `consumed-${k}`), label: 'The response stops the consumer' },
        { key: 'room-made', at: { expr: responseAt }, kind: 'setSlots', station: 'resource', slots: { expr: full }, label: 'Room made (the response)' },
      ],
      probes: [
        { key: 'ordinary-refused', metric: 'resource.rejected', label: 'Ordinary requests refused', unit: 'req/s' },
        { key: 'ordinary-held', metric: 'resource.concurrency', label: 'Units ordinary use holds', unit: 'units' },
        { key: 'ordinary-success', metric: 'ordinary.successRatio', label: 'Ordinary requests that succeed', unit: 'ratio' },
      ],
      figures: [
        { name: 'time-to-exhaustion', label: 'Time from the trigger to running out: (1 + spareShare − baseShare) × capacity / growthRate', unit: 's', value: '(1 + spareShare - baseShare) * capacity / growthRate' },
        { name: 'alert-lead', label: 'Time from the alert to running out: (1 − alertShare) × (1 + spareShare) × capacity / growthRate', unit: 's', value: '(1 - alertShare) * (1 + spareShare) * capacity / growthRate' },
      ],
      checks: [
        {
          name: 'time-to-exhaustion',
          description: 'Fewer than 90 % of ordinary requests are served once the units left are below 90 % of what ordinary use holds: ((1 + spareShare) − 0.9 × baseShare) × capacity / growthRate after the trigger.',
          scenarios: ['as-happened'],
          measure: { metric: 'ordinary.successRatio', stat: 'firstTimeBelow', threshold: 0.9 },
          // Within 5 % of the delay, plus one step of the consumer's growth and two output points.
          expect: { op: 'approx', value: 'triggerAt + (1 + spareShare - 0.9 * baseShare) * capacity / growthRate', tolerance: Number(tolerance.toPrecision(4)), absolute: true },
          unit: 's',
          kind: 'construction',
        },
      ],
    };
  },
};
