/**
 * Reads figures from an incident's sentences: rates, durations, counts and caps, percentages
 * and sizes, each converted to one canonical unit and kept with the sentence it came from.
 * Hand-written rules (regular expressions) rather than a library: no maintained package reads
 * operational figures ("3,444 requests/sec", "15s keep-alive", "MaxClients 150") with their
 * context, and the rules must be the same bytes on every machine so suggestions are repeatable.
 */
import { passagesOf, type IncidentText, type Passage } from './incident-text';

export type FigureKind = 'rate' | 'duration' | 'count' | 'percent' | 'size';

export interface Figure {
  kind: FigureKind;
  /** In the canonical unit: per second, seconds, a number, a ratio 0–1, megabytes. */
  value: number;
  unit: 'per s' | 's' | 'count' | 'ratio' | 'MB';
  /** The figure as written ("3,444 requests/sec"). */
  raw: string;
  /** For counts: the thing counted ("retries", "sessions"); for rates, what arrives. */
  noun: string;
  passage: Passage;
  /** Character offset of the figure in its sentence. */
  index: number;
}

const NUM = String.raw`(?:~|≈|about |around |roughly |approximately |nearly |over |almost |some |up to )?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(k|m|thousand|million)(?![a-z]))?`;
const WORDNUM: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, fifty: 50, hundred: 100 };

const TIME_UNITS: [RegExp, number][] = [
  [/^(?:ms|msec|millis(?:econds?)?)$/, 0.001],
  [/^(?:s|sec|secs|seconds?)$/, 1],
  [/^(?:m|min|mins|minutes?)$/, 60],
  [/^(?:h|hr|hrs|hours?)$/, 3600],
  [/^(?:d|days?)$/, 86400],
];
const SIZE_UNITS: Record<string, number> = { kb: 1 / 1024, kib: 1 / 1024, mb: 1, mib: 1, gb: 1024, gib: 1024, tb: 1024 * 1024, tib: 1024 * 1024 };

const COUNT_NOUNS = String.raw`retries|retry attempts|attempts|times|connections?|sessions?|workers?|process(?:es)?|threads?|slots?|nodes?|servers?|hosts?|machines?|instances?|pods?|replicas?|shards?|clients?|users|requests|queries|calls|jobs|events|messages|file descriptors?|fds|sockets?|ip addresses|ips|cores|cpus|containers?|builds|runners?|keys|items|entries|tasks|lookups|members|channels|boots|pages|cap|limit`;

function scale(num: string, suffix: string | undefined): number {
  const v = Number(num.replace(/,/g, ''));
  if (!suffix) return v;
  const s = suffix.toLowerCase();
  return s === 'k' || s === 'thousand' ? v * 1000 : v * 1e6;
}

function timeFactor(unit: string): number | null {
  const u = unit.toLowerCase().replace(/\.$/, '');
  for (const [re, f] of TIME_UNITS) if (re.test(u)) return f;
  return null;
}

/** Figures in one sentence, left to right; a stretch of text is read as one figure at most. */
export function figuresIn(passage: Passage): Figure[] {
  const text = passage.text;
  const lower = text.toLowerCase().replace(/[’]/g, "'");
  const out: Figure[] = [];
  const taken: [number, number][] = [];
  const free = (a: number, b: number) => taken.every(([x, y]) => b <= x || a >= y);
  const push = (m: RegExpExecArray, f: Omit<Figure, 'raw' | 'passage' | 'index'>) => {
    const a = m.index;
    const b = m.index + m[0].length;
    // A figure glued to a letter or a version/time ("T134456", "v1.2", "10:23") is not a quantity.
    const prev = lower[a - 1] ?? ' ';
    if (/[\p{L}\d_:.\/#-]/u.test(prev) && !/^[~≈]/.test(m[0])) return;
    if (!free(a, b) || !Number.isFinite(f.value)) return;
    taken.push([a, b]);
    out.push({ ...f, raw: text.slice(a, b).trim(), passage, index: a });
  };
  let m: RegExpExecArray | null;

  const rate = new RegExp(String.raw`${NUM}\s*(?:\+\s*)?((?:[a-z-]+ ){0,2}?(?:requests?|reqs?|queries|calls|events|messages|connections|conns|jobs|ops|operations|hits|writes|reads|lookups|boots|attempts|emails|builds|pushes|downloads|rps|qps|tps|packets|logins|retries))?\s*(?:\/|per |a |an |each )\s?(s|sec|second|ms|m|min|minute|h|hr|hour|day)\b|${NUM}\s*(rps|qps|tps|req\/s|rq\/s)\b`, 'g');
  while ((m = rate.exec(lower))) {
    if (m[1] !== undefined) {
      const per = timeFactor(m[4]!) ?? 1;
      if (!m[3] && !/^(?:s|sec|second)$/.test(m[4]!)) continue; // "5 per minute" without a noun is too vague
      push(m, { kind: 'rate', value: scale(m[1], m[2]) / per, unit: 'per s', noun: (m[3] ?? 'requests').trim() });
    } else {
      push(m, { kind: 'rate', value: scale(m[5]!, m[6]), unit: 'per s', noun: 'requests' });
    }
  }

  const pct = new RegExp(String.raw`${NUM}\s?(%|percent|per cent)`, 'g');
  while ((m = pct.exec(lower))) push(m, { kind: 'percent', value: scale(m[1]!, undefined) / 100, unit: 'ratio', noun: '' });

  const size = new RegExp(String.raw`${NUM}\s?(kb|kib|mb|mib|gb|gib|tb|tib)\b`, 'g');
  while ((m = size.exec(lower))) push(m, { kind: 'size', value: scale(m[1]!, m[2]) * SIZE_UNITS[m[3]!]!, unit: 'MB', noun: '' });

  const dur = new RegExp(String.raw`${NUM}\s?-?\s?(ms|msec|milliseconds?|s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|days?)\b(?![\/.]\d)`, 'g');
  while ((m = dur.exec(lower))) {
    const unit = m[3]!;
    // "5 m" is ambiguous (metres, millions); only the spelled forms and "min" count as minutes.
    if (unit === 'm' && !/\d\s?m\b(?!\w)/.test(m[0])) continue;
    if (unit === 'm') continue;
    const f = timeFactor(unit);
    if (f !== null) push(m, { kind: 'duration', value: scale(m[1]!, undefined) * f, unit: 's', noun: '' });
  }
  // "half an hour", "an hour": the article is the number. ("A day" is left out: "once a day" is a rate.)
  const articleDur = /\b(half an|an) (hour)\b/g;
  while ((m = articleDur.exec(lower))) push(m, { kind: 'duration', value: (m[1] === 'half an' ? 0.5 : 1) * 3600, unit: 's', noun: '' });
  const wordDur = /\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|fifty)[- ](seconds?|minutes?|hours?|days?)\b/g;
  while ((m = wordDur.exec(lower))) push(m, { kind: 'duration', value: WORDNUM[m[1]!]! * timeFactor(m[2]!)!, unit: 's', noun: '' });

  const count = new RegExp(String.raw`${NUM}(?:\s|-)?(?:\w+ ){0,2}?(${COUNT_NOUNS})\b`, 'g');
  while ((m = count.exec(lower))) {
    const n = scale(m[1]!, m[2]);
    if (/^(?:19|20)\d\d$/.test(m[1]!) && !m[2]) continue;
    push(m, { kind: 'count', value: n, unit: 'count', noun: m[3]! });
  }
  const wordCount = new RegExp(String.raw`\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|fifty|hundred)\s(?:\w+ )?(${COUNT_NOUNS})\b`, 'g');
  while ((m = wordCount.exec(lower))) push(m, { kind: 'count', value: WORDNUM[m[1]!]!, unit: 'count', noun: m[2]! });
  // Caps written as a setting or a limit: "MaxClients 150", "limit of 40,000", "capped at 40,000".
  const cap = new RegExp(String.raw`\b(max[a-z]*|limits?|caps?|capped|ceiling|quota|pool size|ulimit|maximum)\b(?: [a-z]+){0,4}? (?:of |at |to |is |=\s?|:\s?)?${NUM}(?!\s?(?:%|percent|ms|s\b|sec|min|hour|day|kb|mb|gb|\/))`, 'g');
  while ((m = cap.exec(lower))) {
    const numAt = m.index + m[0].search(/\d/);
    const sub = { ...m, index: numAt, 0: m[0].slice(numAt - m.index) } as unknown as RegExpExecArray;
    push(sub, { kind: 'count', value: scale(m[2]!, m[3]), unit: 'count', noun: m[1]!.startsWith('max') && m[1]!.length > 3 ? m[1]! : 'limit' });
  }
  // Figures written in words: "every page" is a share of 100 %, "no timeout" a timeout of 0.
  const every = /\b(?:every (?:single )?|each |all (?:the )?)(?:page(?: view)?s?|requests?|calls?|page loads?)\b/g;
  while ((m = every.exec(lower))) push(m, { kind: 'percent', value: 1, unit: 'ratio', noun: 'every' });
  const noTimeout = /\b(?:no|without(?: a| any)?|neither an?|missing|lacked|lacking|lack of)\b(?: [a-z-]+){0,3}? time ?-?outs?\b/g;
  while ((m = noTimeout.exec(lower))) push(m, { kind: 'duration', value: 0, unit: 's', noun: 'no timeout' });
  return out.sort((a, b) => a.index - b.index);
}

/** Every figure of the incident, in reading order (summary, impact, timeline, factors, narrative). */
export function figuresOf(incident: IncidentText): Figure[] {
  return passagesOf(incident).flatMap(figuresIn);
}
