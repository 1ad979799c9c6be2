import type { DocumentFormat } from '../importer.types';

/** A synthetic postmortem and what an importer should find in it. */
export interface GeneratedDocument {
  name: string;
  format: DocumentFormat;
  text: string;
  expected: {
    title: string;
    timeline: number;
    actionables: number;
    causalFactors: number;
  };
}

export interface GenerateOptions {
  /** Same seed, same documents. */
  seed?: number;
  /** Extra prose paragraphs per document, to vary the size. Default 0–4, chosen per document. */
  paragraphs?: number;
}

const SERVICES = ['checkout', 'search', 'billing', 'auth', 'notifications', 'inventory', 'media', 'gateway', 'ledger', 'profile'];
const SYMPTOMS = ['error rate rises above 5%', 'p99 latency passes two seconds', 'queue depth starts growing', 'connection pool runs dry', 'cache hit ratio falls below 60%', 'disk usage reaches 95%'];
const EVENTS = [
  'deploy of build {n} reaches all hosts',
  'alert fires for the {s} dashboard',
  'on-call engineer acknowledges the page',
  'incident escalated to the {s} team',
  'traffic shifted away from the failing zone',
  'rollback of build {n} completed',
  'error rate back to normal',
  'follow-up review scheduled',
];
const CAUSES = [
  'The {s} client had no timeout on calls to the {t} service.',
  'Retries from the {s} workers multiplied the load on {t}.',
  'A configuration change raised the {s} pool size beyond what {t} could serve.',
  'The {s} health check only tested the process, not its dependencies.',
  'Capacity planning for {s} assumed last year\'s peak.',
];
const ACTIONS = [
  'Add a timeout to every {s} call to {t}',
  'Cap retries in the {s} workers',
  'Alert on {t} saturation before users notice',
  'Load-test {s} against a slow {t}',
  'Document the {s} rollback procedure',
];
const PROSE = [
  'The team met the next morning to walk through the logs and agree on what had happened.',
  'Customers noticed before the dashboards did, which shaped several of the follow-ups below.',
  'Nothing in the change looked risky in review; the interaction only showed up under real traffic.',
  'The incident channel stayed busy for most of the afternoon while the fix was verified.',
];

/** Small, fast, seedable generator (mulberry32): benchmarks must replay the same input. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * N synthetic postmortems in the shapes real documents take (Markdown lists and tables, one
 * heading per event, wikitext, plain text, German headings), each with the counts an importer
 * should extract. Meant for benchmarks and for testing the importer at volume.
 */
export function generatePostmortemDocuments(count: number, options: GenerateOptions = {}): GeneratedDocument[] {
  const rnd = random(options.seed ?? 1);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)];
  const docs: GeneratedDocument[] = [];
  for (let i = 0; i < count; i++) {
    const service = pick(SERVICES);
    const other = pick(SERVICES.filter((s) => s !== service));
    const fill = (template: string) => template.replace('{s}', service).replace('{t}', other).replace('{n}', String(1000 + i));
    const title = `${service[0].toUpperCase()}${service.slice(1)} outage number ${i + 1}: ${pick(SYMPTOMS)}`;
    const month = 1 + Math.floor(rnd() * 12);
    const day = 1 + Math.floor(rnd() * 28);
    const date = `2024-${pad(month)}-${pad(day)}`;
    const eventCount = 3 + Math.floor(rnd() * 6);
    const causeCount = 1 + Math.floor(rnd() * CAUSES.length);
    const actionCount = 1 + Math.floor(rnd() * ACTIONS.length);
    let minute = 9 * 60 + Math.floor(rnd() * 120);
    const events = Array.from({ length: eventCount }, (_, k) => {
      minute += 1 + Math.floor(rnd() * 20);
      return { time: `${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`, text: fill(EVENTS[k % EVENTS.length]) };
    });
    const causes = CAUSES.slice(0, causeCount).map(fill);
    const actions = ACTIONS.slice(0, actionCount).map((a, k) => ({ text: fill(a), ticket: `OPS-${100 + i * 10 + k}`, done: rnd() < 0.4 }));
    const prose = Array.from({ length: options.paragraphs ?? Math.floor(rnd() * 5) }, () => pick(PROSE));
    const summary = `On ${date} the ${service} service degraded when ${pick(SYMPTOMS)}, and requests to ${other} backed up for about an hour.`;
    const shape = i % 6;
    let text: string;
    let format: DocumentFormat;
    if (shape === 0) {
      format = 'markdown';
      text = [
        `# ${title}`, '', '## Summary', '', summary, '', ...prose.flatMap((p) => [p, '']),
        '## Timeline (UTC)', '', `**${date}**`, '', ...events.map((e) => `- ${e.time} ${e.text}`), '',
        '## Root cause', '', ...causes.map((c, k) => `${k + 1}. ${c}`), '',
        '## Action items', '', ...actions.map((a) => `- [${a.done ? 'x' : ' '}] ${a.text} (${a.ticket})`), '',
      ].join('\n');
    } else if (shape === 1) {
      format = 'markdown';
      text = [
        `# ${title}`, '', '## Overview', '', summary, '', ...prose.flatMap((p) => [p, '']),
        '## Timeline', '', '| Time (UTC) | Event |', '|---|---|', ...events.map((e, k) => `| ${k === 0 ? `${date} ` : ''}${e.time} | ${e.text} |`), '',
        '## Contributing factors', '', ...causes.map((c) => `- ${c}`), '',
        '## Follow-ups', '', '| Action | Owner | Status | Ticket |', '|---|---|---|---|',
        ...actions.map((a) => `| ${a.text} | ${service} team | ${a.done ? 'Done' : 'Open'} | ${a.ticket} |`), '',
      ].join('\n');
    } else if (shape === 2) {
      format = 'markdown';
      text = [
        `# ${title}`, '', '## Summary', '', summary, '', '## Timeline', '', 'All times in UTC.', '', `### ${date}`, '',
        ...events.flatMap((e) => [`#### ${e.time} — ${e.text}`, '', ...(rnd() < 0.5 ? [pick(PROSE), ''] : [])]),
        '## Analysis', '', ...causes.map((c) => `* ${c}`), '', '## Next steps', '', ...actions.map((a) => `* ${a.text}: ${a.ticket}${a.done ? ' **[done]**' : ''}`), '',
      ].join('\n');
    } else if (shape === 3) {
      format = 'wikitext';
      text = [
        `= ${title} =`, '', '== Summary ==', summary, ...prose, '', '== Timeline ==', 'All times in UTC.', `'''${date}'''`,
        ...events.map((e) => `* ${e.time} ${e.text}`), '', '== Root cause ==', ...causes.map((c) => `# ${c}`), '',
        '== Actionables ==', ...actions.map((a) => `* ${a.done ? '{{done}} ' : ''}${a.text} ${a.ticket}`), '',
      ].join('\n');
    } else if (shape === 4) {
      format = 'text';
      text = [
        title, '', summary, ...prose, '', `Timeline for ${date} (UTC):`, ...events.map((e) => `${e.time}:00 ${e.text}`), '',
        'Root cause:', ...causes, '', 'Action items:', ...actions.map((a) => `${a.done ? '[x]' : '[ ]'} ${a.text} (${a.ticket})`), '',
      ].join('\n');
    } else {
      format = 'markdown';
      const [y, m, d] = date.split('-');
      text = [
        `# ${title}`, '', '## Zusammenfassung', '', `Am ${d}.${m}.${y} ist der Dienst ${service} ausgefallen, und die Anfragen an ${other} haben sich für etwa eine Stunde gestaut.`, '',
        '## Zeitlicher Ablauf (UTC)', '', `- ${d}.${m}.${y}`, ...events.map((e) => `  - ${e.time} ${e.text}`), '',
        '## Ursachen', '', ...causes.map((c, k) => `${k + 1}. ${c}`), '', '## Maßnahmen', '', ...actions.map((a) => `- [${a.done ? 'x' : ' '}] ${a.text} ${a.ticket}`), '',
      ].join('\n');
    }
    docs.push({
      name: `generated-${String(i + 1).padStart(4, '0')}-${['md-list', 'md-table', 'md-headings', 'wiki', 'text', 'de'][shape]}`,
      format,
      text,
      expected: { title, timeline: events.length, actionables: actions.length, causalFactors: causes.length },
    });
  }
  return docs;
}
