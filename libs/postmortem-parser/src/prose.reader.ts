import type { ActionableStatus } from '@hindsight/domain';
import { IMPERATIVE_VERBS } from './actionable.extractor';

/**
 * Reading events and action items out of running prose, for documents (or parts of documents)
 * that have no timeline lines or action-item list. The rules are deliberately plain and listed
 * here in full, so that a reviewer can predict what the importer proposes: every result is
 * reported as read from prose, and nothing is published without review.
 *
 * Languages: English and Vietnamese have word lists; in other languages only the structural rules
 * (labels such as "Fix:" or "Khắc phục:", dates and times) apply.
 */

/** A paragraph or list item of the document's prose, in plain text. */
export interface ProseUnit {
  text: string;
  /** First source line. */
  line: number;
  item: boolean;
  /** The paragraph the summary was taken from: it restates the incident, so no event is read from it. */
  summary: boolean;
  /** From a "Lessons" section: read for action items only. */
  lessons: boolean;
  /** From a timeline section: prose of the chronology itself. */
  timeline?: boolean;
  /** The URLs its links pointed to (the text keeps only the link words). */
  urls?: string[];
}

/** One sentence or clause of prose. */
export interface Statement {
  text: string;
  /** Statements of the same sentence share a number (a sentence split at ";" or ":"). */
  sentence: number;
  /** "Kích hoạt", "Fix": the label a list item starts with, on the first statement of the item. */
  label: string | null;
  /** What the label (or an earlier one in the same item) says this part of the item is. */
  role: 'remediation' | 'follow-up' | null;
  /** The statement ends with ":" and introduces what follows rather than saying something itself. */
  introduces: boolean;
}

const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|ca|approx|cf|no|nr|mr|mrs|ms|dr|st|z\.b|d\.h|bzw|v\.v|[A-Z])\.$/iu;
const LABEL = /^([^:;.!?()]{1,60}(?:\([^()]*\))?):\s+(?=\S)/u;

/** Calls `visit` for each character outside parentheses, brackets and quotes. */
function eachTopLevel(text: string, visit: (i: number) => void): void {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === '"') quoted = !quoted;
    else if (c === '“') quoted = true;
    else if (c === '”') quoted = false;
    else if (depth === 0 && !quoted) visit(i);
  }
}

const SENTENCES = new Intl.Segmenter('und', { granularity: 'sentence' });

/**
 * Sentences, by `Intl.Segmenter` (Unicode sentence boundaries: "." "!" "?" and the ideographic
 * "。！？", so Japanese and Chinese prose splits too), then joined again where a boundary falls
 * after an abbreviation ("e.g.", "ca."), inside parentheses, brackets or quotes, or before a
 * lower-case word.
 */
export function splitSentences(text: string): string[] {
  const t = text.replace(/\s+/g, ' ').trim();
  const topLevel = new Uint8Array(t.length + 1);
  eachTopLevel(t, (i) => (topLevel[i] = 1));
  const out: string[] = [];
  let current = '';
  for (const { segment, index } of SENTENCES.segment(t)) {
    let last = index - 1;
    while (last >= 0 && t[last] === ' ') last--;
    // Keep a boundary only after a sentence end at top level that is not an abbreviation.
    const split = current !== '' && last >= 0 && topLevel[last] === 1 && !ABBREVIATIONS.test(t.slice(Math.max(0, last - 8), last + 1)) && !/^["“(]?\p{Ll}/u.test(segment);
    if (current !== '' && !split) {
      current += segment;
      continue;
    }
    if (current.trim()) out.push(current.trim());
    current = segment;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** Clauses of one sentence: split at ";" and at a ":" that more words follow, outside parentheses and quotes. */
function splitClauses(sentence: string): { text: string; introduces: boolean }[] {
  const cuts: number[] = [];
  eachTopLevel(sentence, (i) => {
    if (sentence[i] === ';' || (sentence[i] === ':' && /^\s+\S/u.test(sentence.slice(i + 1, i + 3)))) cuts.push(i + 1);
  });
  const out: { text: string; introduces: boolean }[] = [];
  let from = 0;
  for (const cut of [...cuts, sentence.length]) {
    const piece = sentence.slice(from, cut).trim();
    from = cut;
    const text = piece.replace(/[;:]$/, '').trim();
    if (text) out.push({ text, introduces: cut === sentence.length && /:$/.test(piece) });
  }
  return out;
}

/**
 * A paragraph or list item as statements: sentences, then clauses at ";" and ":". In a list item a
 * sentence may start with a label of eight words at most ("Khắc phục:", "Later:"); the label says
 * what the statements after it are, until the next label.
 */
export function splitStatements(text: string, options: { item?: boolean } = {}): Statement[] {
  const out: Statement[] = [];
  let sentence = 0;
  let role: Statement['role'] = null;
  for (const whole of splitSentences(text)) {
    let body = whole;
    let label: string | null = null;
    const m = options.item ? LABEL.exec(body) : null;
    if (m && m[1].trim().split(/\s+/).length <= 8) {
      label = m[1].trim();
      role = labelRole(label);
      body = body.slice(m[0].length);
    }
    splitClauses(body).forEach((clause, i) => out.push({ text: clause.text, sentence, label: i === 0 ? label : null, role, introduces: clause.introduces }));
    sentence++;
  }
  return out;
}

// What a label or heading inside an item says the words after it are.
const REMEDIATION_LABEL =
  /^(?:fix(?:es)?|the fix|mitigation|remediation|resolution|recovery|response|what we did|behebung|lösung|maßnahmen|correctif|résolution|atténuation|solución|mitigación|khắc phục|xử lý|giải quyết|cách xử lý)$/iu;
const FOLLOW_UP_LABEL =
  /^(?:later|afterwards|follow[- ]?ups?|next steps?|longer[- ]term|long[- ]term|going forward|in future|in the future|später|langfristig|plus tard|à long terme|más adelante|a largo plazo|về sau|sau đó|lâu dài|về lâu dài|tiếp theo|sắp tới)$/iu;

function labelRole(label: string | null): Statement['role'] {
  if (!label) return null;
  const l = label.trim();
  if (REMEDIATION_LABEL.test(l)) return 'remediation';
  if (FOLLOW_UP_LABEL.test(l)) return 'follow-up';
  return null;
}

const words = (list: readonly string[]) => new RegExp(`(?<![\\p{L}\\p{N}_])(?:${list.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');

/** Verbs and phrases that report something happening to a system or being done to it. */
const HAPPENING: Record<string, RegExp> = {
  en: words([
    'went down', 'goes down', 'go down', 'fell over', 'fell', 'failed', 'crash(?:ed|es)?', 'stall(?:s|ed)?', 'hang(?:s)?', 'hung', 'wedged',
    'stuck', 'fill(?:s|ed)?', 'pile(?:s|d)? up', 'timed out', 'times out', 'restart(?:s|ed)?', 'reboot(?:s|ed)?', 'reload(?:s|ed)?',
    "(?:does|did|do) not help", "(?:doesn't|didn't) help", 'stay(?:s|ed)? (?:low|high|up|down|put|idle|flat)', 'logs? (?:any|no) errors?',
    'show(?:s|ed)? (?:up|in)', 'pairs', 'spiked?', 'peaked', 'dropped', 'rose', 'surged', 'climbed', 'jumped', 'degraded', 'overloaded',
    'saturated', 'exhausted', 'ran out', 'alerted', 'paged', 'noticed', 'detected', 'discovered', 'traced', 'diagnosed', 'deployed',
    'rolled (?:out|back)', 'reverted', 'disabled', 'enabled', 'turned (?:on|off)', 'throttled', 'restored', 'recovered', 'resumed',
    'mitigated', 'fixed', 'cleared', 'drained', 'killed', 'blocked', 'switched (?:on|off|over)', 'failed over',
  ]),
  vi: words([
    'tụt', 'giảm', 'tăng', 'sập', 'lỗi', 'hỏng', 'treo', 'timeout', 'quá tải', 'dừng', 'ngừng', 'rơi vào', 'rớt', 'khởi động lại',
    'phát hiện', 'khôi phục', 'hồi phục', 'triển khai', 'rollback', 'bật', 'tắt', 'chặn', 'nghẽn',
  ]),
};

/** "Last week", "yesterday", "22/2": a statement anchored in time reports something that happened. */
const TIME_ANCHOR: Record<string, RegExp> = {
  en: words(['last (?:week|night|month|year|(?:mon|tues|wednes|thurs|fri|satur|sun)day)', 'yesterday', 'earlier that day', 'that (?:morning|afternoon|evening|night)', 'the (?:week|day|night) before']),
  vi: words(['tuần trước', 'hôm qua', 'hôm trước', 'tháng trước', 'sáng hôm', 'chiều hôm', 'tối hôm', 'đêm hôm', 'ngày \\d{1,2}(?:/\\d{1,2})?']),
};

/** Words that make a statement general, hypothetical or background rather than a report. */
const NOT_A_REPORT: Record<string, RegExp> = {
  en: words([
    'will', 'would', 'could', 'might', 'can', 'cannot', "can't", 'should', 'must', 'need to', 'it pays', 'whenever', 'usually',
    'typically', 'generally', 'normally', 'always',
  ]),
  vi: words(['sẽ', 'có thể', 'nên', 'phải', 'cần', 'muốn', 'đang', 'thì', 'luôn', 'thường']),
};
const GENERIC_START: Record<string, RegExp> = {
  en: /^(?:if|whenever|each|every|normally|usually|typically|in general|this is|here is|these are|here are|that is)(?![\p{L}])/iu,
  vi: /^(?:nếu|khi|hễ|mỗi|bình thường|thường|chỉ cần|muốn|giả sử)(?![\p{L}])/iu,
};
/** Present perfect with "since": a state that has held since something happened ("Neither has failed since"). */
const SINCE: Record<string, RegExp> = {
  en: /(?<![\p{L}])(?:has|have)(?: \p{L}+){0,3} since(?![\p{L}])/iu,
  vi: /(?<![\p{L}])từ đó(?![\p{L}])/iu,
};

const wordCount = (text: string) => text.split(/\s+/).filter((w) => /\p{L}{2,}/u.test(w)).length;
const lang = (language: string) => (language.startsWith('vi') ? 'vi' : language.startsWith('en') ? 'en' : null);

/**
 * True when a statement reports something that happened: it is anchored in time, or it uses one of
 * the verbs of failure, detection and repair, and it is not a quotation, an exclamation, a
 * question, a rule ("each", "if", "normally") or a possibility ("could", "will").
 */
export function reportsHappening(statement: Statement, language: string, hasDate: boolean): boolean {
  const text = statement.text.trim();
  if (statement.role === 'follow-up') return false;
  if (statement.role === 'remediation') return wordCount(text) >= 2;
  if (wordCount(text) < 3) return false;
  if (/^["“«„'‘]/.test(text) || /[!?]["”»]?$/.test(text)) return false;
  const l = lang(language);
  if (!l) return hasDate;
  // "I went through the code and put ... on every call I could find": what we did is a report, whatever modal follows.
  if (l === 'en' && DONE_BY_US_ONCE.test(text)) return true;
  if (GENERIC_START[l].test(text) || NOT_A_REPORT[l].test(text)) return false;
  return hasDate || TIME_ANCHOR[l].test(text) || HAPPENING[l].test(text) || SINCE[l].test(text);
}

const CONTINUES = /^(?:and|but|yet|or|và|nhưng|rồi)\s/u;

/** "and netstat pairs them with ..." after an event continues that event rather than starting one. */
export const continuesPrevious = (statement: Statement) => CONTINUES.test(statement.text);

/** An action item read from prose: what was done, is being done, or is to be done. */
export interface ProseAction {
  text: string;
  status: ActionableStatus;
  owner: string | null;
  /** Why the importer read it as an action item, for the report. */
  rule: 'remediation-label' | 'follow-up-label' | 'done-by-us' | 'gerund' | 'commitment' | 'ongoing' | 'missing-safeguard';
  /** Verbs that name the work, to merge two mentions of the same commitment. */
  verbs: string[];
  /** URLs cited by the sentence, or by a short sentence right after it that only points to them. */
  links?: string[];
}

const FIX_PAST = [
  'raised', 'lowered', 'shortened', 'lengthened', 'increased', 'decreased', 'reduced', 'added', 'put', 'set', 'fixed', 'patched',
  'changed', 'disabled', 'removed', 'dropped', 'moved', 'cached', 'throttled', 'capped', 'limited', 'rolled back', 'reverted', 'replaced',
  'switched', 'upgraded', 'downgraded', 'rewrote', 'rewritten', 'introduced', 'deployed', 'tuned', 'split', 'sharded', 'rate-limited',
  'given', 'made', 'built', 'wrote', 'written', 'configured', 'documented', 'automated',
];
const FIX_BASE = [
  'raise', 'lower', 'shorten', 'lengthen', 'increase', 'decrease', 'reduce', 'add', 'put', 'set', 'fix', 'patch', 'change', 'disable',
  'remove', 'drop', 'move', 'cache', 'throttle', 'cap', 'limit', 'roll back', 'revert', 'replace', 'switch', 'upgrade', 'rewrite',
  'introduce', 'deploy', 'tune', 'split', 'shard', 'cut',
];
// Also "cache" and "watch": "we will watch latency and cache the result" names two pieces of work.
const ACTION_VERB = [...IMPERATIVE_VERBS, 'cache', 'watch'].join('|');
const SUBJECT = "(?:we|i|our team|the [\\p{L}-]+(?: [\\p{L}-]+)? team)";
const ADVERB = '(?:(?:then|also|quickly|immediately|finally|eventually|manually|temporarily|since|now|already) )?';
/** "we raised", "I went through the code and put", "the development team fixed", "we decided to shorten", "we have since given". */
const DONE_BY_US = new RegExp(
  `(?<![\\p{L}])(${SUBJECT}) ${ADVERB}(?:(?:have|has) ${ADVERB})?(?:(?:went|worked|looked) through (?:[\\p{L}\\d'-]+ ){1,4}and |(?:decided|chose|had|opted|agreed) to (?=(?:${FIX_BASE.join('|')})(?![\\p{L}])))?(?:${[...FIX_PAST, ...FIX_BASE].join('|')})(?![\\p{L}])`,
  'giu',
);
const DONE_BY_US_ONCE = new RegExp(DONE_BY_US.source, 'iu');
const COMMITMENT = new RegExp(
  `(?<![\\p{L}])(?:(${SUBJECT}) (?:will|shall|are going to|plan to|intend to|need to|have to|must|should|want to)|(${SUBJECT})'ll) (?:(?:also|then|now|still) )?(?=\\p{L})`,
  'giu',
);
const RELATIVE_COMMITMENT = /,\s*which (?:we|I) (?:will|shall|are going to|plan to|intend to|need to) ([\p{L} ,'-]+?)(?:[.;]|$)/iu;
const ONGOING = new RegExp(`(?<![\\p{L}])(?:${SUBJECT}) (?:are|am|is|'re) (?!(?:going|trying|seeing|getting|having)\\b)(\\p{L}+ing)(?![\\p{L}])`, 'iu');
const NOT_GERUND = /^(?:during|nothing|something|anything|everything|morning|evening|thing|king|ring|string|spring|ceiling|according|including|regarding|following|concerning|being|having|seeing|given)$/iu;
/** "without caching the result" → "Cache the result"; "without a timeout" → "Add a timeout". */
const SAFEGUARDS: Record<string, string> = {
  caching: 'Cache', retrying: 'Retry', 'backing off': 'Back off', testing: 'Test', monitoring: 'Monitor', alerting: 'Alert on',
  'rate limiting': 'Rate-limit', 'rate-limiting': 'Rate-limit', limiting: 'Limit', checking: 'Check', validating: 'Validate',
  'a timeout': 'Add a timeout', 'any timeout': 'Add a timeout', timeouts: 'Add timeouts', 'a limit': 'Add a limit',
  'a canary': 'Add a canary', 'a circuit breaker': 'Add a circuit breaker',
};
const SAFEGUARD = new RegExp(`(?<![\\p{L}])without (${Object.keys(SAFEGUARDS).join('|')})((?: [\\p{L}\\d'-]+){0,6})`, 'iu');
const MODAL = /(?<![\p{L}])(?:can|could|would|should|might|may|will)(?![\p{L}])/iu;

const ACTION_VERBS = new RegExp(`(?<![\\p{L}])(?:${ACTION_VERB})(?![\\p{L}])`, 'gu');

function verbsOf(text: string): string[] {
  const found = text.toLowerCase().match(ACTION_VERBS) ?? [];
  return [...new Set(found.filter((v) => !['use', 'make', 'run', 'look', 'set'].includes(v)))];
}

export const capitalise = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

const BASE_OF: Record<string, string> = {
  raised: 'raise', lowered: 'lower', shortened: 'shorten', lengthened: 'lengthen', increased: 'increase', decreased: 'decrease',
  reduced: 'reduce', added: 'add', fixed: 'fix', patched: 'patch', changed: 'change', disabled: 'disable', removed: 'remove',
  dropped: 'drop', moved: 'move', cached: 'cache', throttled: 'throttle', capped: 'cap', limited: 'limit', reverted: 'revert',
  replaced: 'replace', switched: 'switch', upgraded: 'upgrade', downgraded: 'downgrade', rewrote: 'rewrite', rewritten: 'rewrite',
  introduced: 'introduce', deployed: 'deploy', tuned: 'tune', sharded: 'shard', given: 'give', made: 'make', built: 'build',
  wrote: 'write', written: 'write', configured: 'configure', documented: 'document', automated: 'automate', went: 'go', worked: 'work',
  looked: 'look', 'rate-limited': 'rate-limit', 'rolled back': 'roll back',
};

/** "raised the limit" → "Raise the limit": an action item's title reads as something to do. */
function imperative(phrase: string): string {
  const m = /^(rolled back|[\p{L}-]+)(?![\p{L}])/u.exec(phrase);
  const base = m ? BASE_OF[m[1].toLowerCase()] : undefined;
  return capitalise(base ? `${base}${phrase.slice(m![1].length)}` : phrase);
}
const trimEnd = (t: string) => t.replace(/[\s,;:.]+$/u, '').trim();

/** "the development team" → "Development team"; "we" and "I" name no owner. */
function ownerOf(subject: string): string | null {
  const s = subject.trim().toLowerCase();
  if (s === 'we' || s === 'i' || s === 'our team') return null;
  return capitalise(s.replace(/^the /, ''));
}

/** Splits "watch X and use Y to Z" into its actions; "measure and test" (one word after "and") stays whole. */
function splitConjoined(text: string): string[] {
  const parts = text.split(new RegExp(` and (?=(?:${ACTION_VERB}) \\p{L})`, 'u'));
  return parts.map(trimEnd).filter((p) => wordCount(p) >= 1);
}

/**
 * Action items in one sentence of English prose:
 * - done by us: "we raised the limit", "the development team fixed the code" (one per subject);
 * - a leading gerund: "Dropping the first request by ..." is something done, "Pulling data in
 *   asynchronously can often ..." something suggested;
 * - commitments: "we will watch X and use Y", "..., which we will measure and test";
 * - ongoing work: "we are holding a discussion";
 * - a missing safeguard: "... without caching the result" suggests caching it.
 */
function actionsInSentence(sentence: string, introduces: boolean, language: string): ProseAction[] {
  if (lang(language) !== 'en') return [];
  const text = sentence.trim();
  const out: ProseAction[] = [];
  const firstWord = /^(\p{L}+ing)(?![\p{L}])/u.exec(text)?.[1];
  if (firstWord && /^\p{Lu}/u.test(firstWord) && !NOT_GERUND.test(firstWord) && !introduces && wordCount(text) >= 3) {
    const suggested = MODAL.test(text);
    out.push({ text: trimEnd(text), status: suggested ? 'open' : 'done', owner: null, rule: 'gerund', verbs: verbsOf(text) });
  }
  const done = [...text.matchAll(DONE_BY_US)];
  if (!out.some((o) => o.rule === 'gerund')) {
    done.forEach((m, i) => {
      const end = i + 1 < done.length ? done[i + 1].index : text.length;
      // "..., and the processor resent ..." starts a clause about someone else.
      const own = text.slice(m.index + m[0].length, end).split(/,\s+(?:and|but|while|so|whereas)\s+(?=(?:the|a|an|their|its|it|they|he|she|this|that)\s)/iu)[0];
      const clause = trimEnd(own.replace(/(?:,\s*|\s+)(?:while|and|but|whereas)\s*$/iu, ''));
      const lead = m[0].slice(m[1].length).trim().replace(new RegExp(`^${ADVERB}(?:(?:have|has) ${ADVERB})?(?:(?:decided|chose|had|opted|agreed) to )?`, 'iu'), '');
      // "given uploads a deadline and made the page show ..." is two things done.
      const [first, ...more] = clause.split(new RegExp(` and (?=(?:${FIX_PAST.join('|')}) )`, 'u'));
      for (const [verbs, rest] of [[lead, first], ...more.map((p) => ['', p])] as [string, string][]) {
        const phrase = trimEnd(`${verbs} ${rest}`.trim());
        out.push({ text: imperative(phrase), status: 'done', owner: ownerOf(m[1]), rule: 'done-by-us', verbs: verbsOf(phrase) });
      }
    });
  }
  for (const m of text.matchAll(COMMITMENT)) {
    if (/which\s*$/iu.test(text.slice(0, m.index))) continue;
    const after = trimEnd(text.slice(m.index + m[0].length).split(/[.;]/)[0]);
    for (const part of splitConjoined(after)) {
      out.push({ text: capitalise(part), status: 'open', owner: ownerOf(m[1] ?? m[2] ?? 'we'), rule: 'commitment', verbs: verbsOf(part) });
    }
  }
  const relative = RELATIVE_COMMITMENT.exec(text);
  if (relative) {
    const antecedent = trimEnd(text.slice(0, relative.index).split(/,\s*/).pop() ?? '');
    const what = trimEnd(relative[1]);
    out.push({ text: capitalise(`${what}${antecedent ? ` (${antecedent})` : ''}`), status: 'open', owner: null, rule: 'commitment', verbs: verbsOf(what) });
  }
  const ongoing = ONGOING.exec(text);
  if (ongoing) {
    const body = trimEnd(text.slice(ongoing.index).replace(new RegExp(`^${SUBJECT} (?:are|am|is|'re) `, 'iu'), ''));
    out.push({ text: capitalise(body), status: 'in_progress', owner: null, rule: 'ongoing', verbs: verbsOf(body) });
  }
  const missing = SAFEGUARD.exec(text);
  if (missing) {
    const phrase = trimEnd(`${SAFEGUARDS[missing[1].toLowerCase()]}${missing[2]}`);
    out.push({ text: phrase, status: 'open', owner: null, rule: 'missing-safeguard', verbs: verbsOf(phrase) });
  }
  return out;
}

/**
 * Action items in a run of statements (one paragraph or list item): what follows a "Fix:" label
 * was done, what follows a "Later:" label is still to do (a list split at commas), and sentences
 * are read with the rules of `actionsInSentence`.
 */
export function readProseActions(statements: readonly Statement[], language: string): ProseAction[] {
  const out: ProseAction[] = [];
  const bySentence = new Map<number, Statement[]>();
  for (const s of statements) bySentence.set(s.sentence, [...(bySentence.get(s.sentence) ?? []), s]);
  for (const group of bySentence.values()) {
    const labelled = group.filter((s) => s.role !== null);
    for (const s of labelled) {
      if (s.role === 'remediation' && wordCount(s.text) >= 2) {
        out.push({ text: capitalise(s.text), status: 'done', owner: null, rule: 'remediation-label', verbs: verbsOf(s.text) });
      } else if (s.role === 'follow-up') {
        for (const part of s.text.split(/,\s+(?![^()]*\))/u).map(trimEnd).filter((p) => wordCount(p) >= 2)) {
          out.push({ text: capitalise(part), status: 'open', owner: null, rule: 'follow-up-label', verbs: verbsOf(part) });
        }
      }
    }
    if (labelled.length === group.length) continue;
    const plain = group.filter((s) => s.role === null);
    out.push(...actionsInSentence(plain.map((s) => s.text).join('; '), plain.at(-1)?.introduces ?? false, language));
  }
  return out;
}

/**
 * Orders action items read from prose (what was done, then what is under way or still to do,
 * each in document order) and folds a later mention of a commitment into the first one
 * when both name the same work ("we will measure it" ... "use client timings to measure it").
 */
export function settleProseActions(actions: readonly ProseAction[]): (ProseAction & { mentions: string[] })[] {
  const merged: (ProseAction & { mentions: string[] })[] = [];
  for (const a of actions) {
    const same = a.rule === 'commitment' ? merged.find((m) => m.rule === 'commitment' && m.verbs.some((v) => a.verbs.includes(v))) : undefined;
    if (same) same.mentions.push(a.text);
    else merged.push({ ...a, mentions: [] });
  }
  const rank: Record<ActionableStatus, number> = { done: 0, in_progress: 1, open: 1, wont_do: 1 };
  return merged.map((a, i) => ({ a, i })).sort((x, y) => rank[x.a.status] - rank[y.a.status] || x.i - y.i).map(({ a }) => a);
}
