import { AppError, validateIncidentDocument, type FieldProblem, type IncidentDocument, type TimeValue, type TimelineEventDocument } from '@hindsight/domain';
import { actionablesFromProse, extractActionables, isActionTable, looksLikeActionList, STATUS_RULE_CONFIDENCE } from './actionable.extractor';
import { parseBlocks } from './block.parser';
import { takeFirstPost } from './blog-post.splitter';
import { findDates, findFirstDate, type CalendarDate, type FoundDate } from './calendar-date.parser';
import { extractCausalFactors } from './causal-factor.extractor';
import { blockLines, type DocumentBlock, type HeadingBlock } from './document-block.types';
import { detectFormat } from './format.detector';
import { readFrontMatter, type DocumentMetadata } from './front-matter.parser';
import { ImportError } from './import.error';
import {
  DOCUMENT_FORMATS,
  type DocumentFormat,
  type ImportDecision,
  type ImportResult,
  type ImportWarning,
  type ParsePostmortemOptions,
  type RecognisedSection,
  type SourceLine,
} from './importer.types';
import { markdownToPlain, toMarkdownInline } from './inline.converter';
import { DEFAULT_MAX_BYTES, normaliseInput } from './input.normalizer';
import { detectLanguage } from './language.detector';
import { buildNarrative, renderBlocks, splitTextParagraphs, type NarrativePart } from './narrative.builder';
import { suggestPatterns } from './pattern.suggester';
import { judgePostmortem } from './postmortem.verdict';
import { readProseActions, settleProseActions, splitStatements, type ProseAction, type ProseUnit } from './prose.reader';
import { buildSections, markDatedEntries, type DocumentSection } from './section.builder';
import { classifyHeading, cleanHeading } from './section.classifier';
import { slugify } from './slug.util';
import { parseLeadingTime } from './time-expression.parser';
import { extractTimeline } from './timeline.extractor';
import { parseZoneNote, resolveZone, type ZoneSpec } from './time-zone.resolver';

function checkOptions(options: ParsePostmortemOptions): void {
  const bad = (message: string) => new ImportError('INVALID_OPTIONS', message);
  if (options.format !== undefined && !DOCUMENT_FORMATS.includes(options.format)) {
    throw bad(`Unknown format "${String(options.format)}"; expected one of ${DOCUMENT_FORMATS.join(', ')}.`);
  }
  if (options.sourceUrl != null && (typeof options.sourceUrl !== 'string' || options.sourceUrl.length > 1200 || !/^https?:\/\/[^\s/]+/i.test(options.sourceUrl))) {
    throw new ImportError('INVALID_OPTIONS', `sourceUrl: expected an http(s) URL of at most 1200 characters; got ${String(options.sourceUrl).slice(0, 80)}`, { field: 'sourceUrl' });
  }
  if (options.maxBytes !== undefined && !(Number.isInteger(options.maxBytes) && options.maxBytes > 0)) {
    throw bad(`maxBytes must be a positive whole number of bytes; got ${String(options.maxBytes)}.`);
  }
  if (options.defaultYear !== undefined && !(Number.isInteger(options.defaultYear) && options.defaultYear >= 1970 && options.defaultYear <= 2100)) {
    throw bad(`defaultYear must be a year between 1970 and 2100; got ${String(options.defaultYear)}.`);
  }
  if (options.assumeTimeZone !== undefined && !resolveZone(options.assumeTimeZone)) {
    throw bad(`assumeTimeZone "${options.assumeTimeZone}" is not a zone the importer knows (try UTC, PDT, +02:00 or Europe/Berlin).`);
  }
}

const isBlank = (l: SourceLine) => l.text.trim() === '';
// Japanese and Chinese are written without spaces: about two characters make a word.
const wordCount = (text: string) =>
  text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length + (text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0) / 2;

/** A heading or first line that names the incident, not a section of it. */
function titleCandidate(block: DocumentBlock | undefined): HeadingBlock | null {
  // A bold line promoted to a heading (level 7) labels a section or an entry, never the document.
  if (!block || block.type !== 'heading' || block.level > 6) return null;
  if (classifyHeading(block.text).confidence >= 0.7) return null;
  return block;
}

function firstSentence(text: string, max = 100): string {
  const plain = markdownToPlain(text).replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(plain)?.[1] ?? plain;
  if (sentence.length <= max) return sentence.replace(/[.!?]$/, '');
  return `${sentence.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en', german: 'de', deutsch: 'de', french: 'fr', français: 'fr', francais: 'fr', spanish: 'es', español: 'es', espanol: 'es',
  vietnamese: 'vi', 'tiếng việt': 'vi', 'tieng viet': 'vi',
};

/** Characters of the source's own text kept beside the draft for a source not in English. */
const ORIGINAL_TEXT_CHARS = 4000;

/**
 * The key passages of a source not in English, in its language (the summary, then the start of
 * the narrative), so the incident stays findable by the source's words after it is translated.
 */
function originalTextOf(language: string, summary: string, narrative: string): string | null {
  if (language.split('-')[0] === 'en') return null;
  const text = [summary, narrative].filter((t) => t.trim() !== '').join('\n\n');
  return text.length <= ORIGINAL_TEXT_CHARS ? text || null : text.slice(0, ORIGINAL_TEXT_CHARS);
}

/** A BCP 47 tag from what front matter says: "en", "pt-BR", or a language's name. */
function languageTag(value: string): string | null {
  const v = value.trim();
  if (/^[a-z]{2,3}(?:-[A-Za-z0-9]+)*$/i.test(v)) {
    const [primary, ...rest] = v.split('-');
    return [primary.toLowerCase(), ...rest].join('-');
  }
  return LANGUAGE_NAMES[v.toLowerCase()] ?? null;
}

/** Cut at a sentence end (or a word) so a field stays within what an incident may hold. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const sentence = new RegExp(`^([\\s\\S]{${Math.floor(max / 2)},${max - 1}}[.!?])\\s`).exec(text);
  return sentence ? sentence[1] : `${text.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

function timeValue(event: TimelineEventDocument | undefined): TimeValue | null {
  return event && event.at ? { at: event.at, precision: event.precision } : null;
}

/** Takes the block that names the incident out of the body: a first heading nothing outranks, or a short first line of plain text. */
function takeTitle(blocks: DocumentBlock[], format: DocumentFormat, used: Set<number>): { text: string; line: number } | null {
  const firstIndex = blocks.findIndex((b) => b.type !== 'comment');
  const first = blocks[firstIndex];
  const heading = titleCandidate(first);
  // "# Title" over "## Summary" names the incident; "## Summary" first does not.
  if (heading && blocks.every((b) => b.type !== 'heading' || b.level >= heading.level)) {
    blockLines(heading).forEach((l) => used.add(l));
    blocks.splice(firstIndex, 1);
    return { text: markdownToPlain(toMarkdownInline(cleanHeading(heading.text), format)), line: heading.line };
  }
  if (!heading && format === 'text' && first?.type === 'paragraph' && first.lines.length === 1) {
    const t = first.lines[0].text.trim();
    if (t.length <= 100 && !/[.!?,;]$/.test(t)) {
      used.add(first.lines[0].line);
      blocks.splice(firstIndex, 1);
      return { text: t, line: first.lines[0].line };
    }
  }
  return null;
}

const LINK_DEFINITION = /^\s{0,3}\[([^\]]{1,200})\]:\s*<?(\S+?)>?(?:\s+["'(].*)?\s*$/;

/**
 * Markdown reference links ("[#275][issue-275]", "[the outage][gh]", "[docs]") are written out
 * as inline links, so the URL travels with the text that cites it; the definitions that were
 * cited count as used and leave the body.
 */
function resolveReferenceLinks(body: SourceLine[], used: Set<number>): SourceLine[] {
  const definitions = new Map<string, string>();
  const definitionLines = new Map<string, number[]>();
  for (const l of body) {
    const m = LINK_DEFINITION.exec(l.text);
    if (!m || !/^(?:https?:|mailto:|\/|#)/i.test(m[2])) continue;
    const label = m[1].trim().toLowerCase();
    if (!definitions.has(label)) definitions.set(label, m[2]);
    definitionLines.set(label, [...(definitionLines.get(label) ?? []), l.line]);
  }
  if (definitions.size === 0) return body;
  const cited = new Set<string>();
  const lookup = (label: string) => {
    const url = definitions.get(label.trim().toLowerCase());
    if (url) cited.add(label.trim().toLowerCase());
    return url;
  };
  const rewritten = body.map((l) => {
    if (LINK_DEFINITION.test(l.text)) return l;
    const text = l.text
      .replace(/\[([^\]]+)\]\[([^\]]*)\]/g, (whole, text: string, label: string) => {
        const url = lookup(label || text);
        return url ? `[${text}](${url})` : whole;
      })
      .replace(/(?<![\]!\\])\[([^\]]+)\](?![([])/g, (whole, label: string) => {
        const url = lookup(label);
        return url ? `[${label}](${url})` : whole;
      });
    return text === l.text ? l : { line: l.line, text };
  });
  const removed = new Set<number>();
  for (const label of cited) for (const line of definitionLines.get(label) ?? []) removed.add(line);
  removed.forEach((line) => used.add(line));
  return rewritten.filter((l) => !removed.has(l.line));
}

/**
 * A letter or notice ends with its date and who signed it ("2026年3月20日" then a team's name):
 * that sign-off is not part of the last section. The date line counts as used (it dates the
 * document); the signers' lines are listed unused.
 */
function withoutSignOff(body: SourceLine[], used: Set<number>, dayFirst: boolean): { body: SourceLine[]; date: CalendarDate | null } {
  const filled = body.filter((l) => l.text.trim() !== '');
  const tail = filled.slice(-4);
  const at = tail.findIndex((l) => {
    if (/^\s*(?:[-*+#|=]|\d+[.)])\s|^\s/.test(l.text)) return false;
    const t = markdownToPlain(l.text).trim();
    const found = findDates(t, { dayFirst }).find((d) => d.date.year !== null);
    return found !== undefined && t.replace(found.text, '').replace(/[\p{P}\p{Z}]/gu, '').length === 0;
  });
  if (at < 0 || tail.length - at > 3) return { body, date: null };
  // Signers are a name or two: not list items, entries with a time, or sentences.
  const signers = tail.slice(at + 1);
  if (signers.some((l) => l.text.trim().length > 60 || /^\s*(?:[-*+#|]|\d+[.)])\s/.test(l.text) || parseLeadingTime(l.text) !== null || /[.!?;:]$/.test(l.text.trim()))) {
    return { body, date: null };
  }
  const dateLine = tail[at];
  used.add(dateLine.line);
  const cut = new Set(tail.slice(at).map((l) => l.line));
  const date = findDates(markdownToPlain(dateLine.text), { dayFirst }).find((d) => d.date.year !== null)?.date ?? null;
  return { body: body.filter((l) => !cut.has(l.line)), date };
}

const ARMOUR_START = /^-----BEGIN PGP SIGNED MESSAGE-----\s*$/;
const SIGNATURE_START = /^-----BEGIN PGP SIGNATURE-----\s*$/;
const SIGNATURE_END = /^-----END PGP SIGNATURE-----\s*$/;

function withoutSignatureArmour(body: SourceLine[]): SourceLine[] {
  const start = body.findIndex((l) => ARMOUR_START.test(l.text));
  if (start < 0) return body;
  // The header is the armour line and the "Hash:" lines up to the first blank line.
  let headerEnd = start + 1;
  while (headerEnd < body.length && body[headerEnd].text.trim() !== '') headerEnd++;
  const sigStart = body.findIndex((l, i) => i > headerEnd && SIGNATURE_START.test(l.text));
  const sigEnd = sigStart < 0 ? -1 : body.findIndex((l, i) => i > sigStart && SIGNATURE_END.test(l.text));
  return body.filter((_, i) => !(i >= start && i < headerEnd) && !(sigStart >= 0 && i >= sigStart && (sigEnd < 0 || i <= sigEnd)));
}

/** A line that holds only a full date, among the first or last lines: the date a letter or notice was written. */
function documentDateLine(body: readonly SourceLine[], dayFirst: boolean): CalendarDate | null {
  const lines = body.filter((l) => l.text.trim() !== '');
  for (const l of [...lines.slice(0, 8), ...lines.slice(-8).reverse()]) {
    const t = markdownToPlain(l.text).trim();
    const found = findDates(t, { dayFirst }).find((d) => d.date.year !== null);
    if (found && t.replace(found.text, '').replace(/[\p{P}\p{Z}]/gu, '').length === 0) return found.date;
  }
  return null;
}

const STATED_START = /(?<![\p{L}])(?:outage|incident|impact|downtime|disruption|problem)s? (?:starts?|started|begins?|began)(?![\p{L}])|(?<![\p{L}])(?:start|beginning) of (?:the )?(?:outage|incident|impact)(?![\p{L}])/iu;
const STATED_END = /(?<![\p{L}])(?:outage|incident|impact|downtime|disruption)s? (?:ends?|ended|is over|was over|resolved)(?![\p{L}])|(?<![\p{L}])end of (?:the )?(?:outage|incident|impact)(?![\p{L}])|(?:fully|completely) (?:restored|recovered|resolved)/iu;

/**
 * Key times from the timeline. Started: the entry that says the outage starts, else the earliest
 * entry with a time (so it is never later than detection or mitigation), or a day-only entry on an
 * earlier day. Resolved: the entry that
 * says it ends, else the last recovery.
 */
function keyTimesOf(events: readonly TimelineEventDocument[]): IncidentDocument['keyTimes'] {
  const timed = events.filter((e) => e.at);
  const first = (kind: TimelineEventDocument['kind']) => timed.find((e) => e.kind === kind);
  const earliest = (...candidates: (TimelineEventDocument | undefined)[]) =>
    candidates.filter((e): e is TimelineEventDocument => e !== undefined).sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : 0))[0];
  const detected = first('detection');
  const mitigated = first('mitigation');
  const recoveries = timed.filter((e) => e.kind === 'recovery');
  // Entries that give only a day are less precise than any timed one.
  const precise = timed.filter((e) => e.precision !== 'day');
  // ...unless a day-only entry lies on an earlier day: the incident began no later than that day.
  const firstPrecise = earliest(...precise);
  const firstDay = earliest(...timed.filter((e) => e.precision === 'day'));
  const earliestEntry = firstPrecise && firstDay && firstDay.at!.slice(0, 10) < firstPrecise.at!.slice(0, 10) ? firstDay : firstPrecise ?? firstDay;
  const started = timed.find((e) => STATED_START.test(e.text)) ?? earliestEntry;
  const resolved = [...timed].reverse().find((e) => STATED_END.test(e.text)) ?? recoveries.at(-1);
  return { started: timeValue(started), detected: timeValue(detected), mitigated: timeValue(mitigated), resolved: timeValue(resolved) };
}

/** A date (and time) the title starts with, taken off it; else the first full date the title names. */
function splitTitleDate(title: string, dayFirst: boolean): { title: string; date: CalendarDate | null } {
  const lead = parseLeadingTime(title, { dayFirst });
  if (lead?.date && /\p{L}{2}/u.test(lead.rest)) {
    return { title: lead.rest.replace(/^[\s,:;\-–—|]+/, ''), date: lead.date.year !== null ? lead.date : null };
  }
  const found = findDates(title, { dayFirst }).find((d) => d.date.year !== null);
  return { title, date: found?.date ?? null };
}

/** A list of imperatives or task ids right after the action items, at the same level ("Alerts"), is more action items. */
function extendActionables(sections: DocumentSection[], format: DocumentFormat): void {
  for (let i = 1; i < sections.length; i++) {
    const s = sections[i];
    const previousTop = sections.slice(0, i).reverse().find((p) => p.level <= s.level);
    if (s.kind === 'other' && previousTop?.kind === 'actionables' && previousTop.level === s.level && looksLikeActionList(s, format)) {
      s.kind = 'actionables';
      s.confidence = 0.5;
      s.inheritedFrom = previousTop.title;
      s.continues = true;
    }
  }
}

/** The year for dates written without one: front matter, the post header, the first dated line, a year near the top, the options. */
function documentYear(
  context: { metaDate: CalendarDate | null; postDate: CalendarDate | null; writtenOn: CalendarDate | null; body: readonly SourceLine[]; title: string | null; dayFirst: boolean },
  defaultYear: number | undefined,
  warnings: ImportWarning[],
): number | null {
  let dated: FoundDate | null = null;
  for (const l of context.body) {
    dated = findDates(l.text, { dayFirst: context.dayFirst }).find((d) => d.date.year !== null) ?? null;
    if (dated) break;
  }
  const standalone = [context.title ?? '', ...context.body.slice(0, 12).map((l) => l.text)]
    .map((t) => /(?<!\d)(19[7-9]\d|20\d\d)(?!\d)/.exec(t)?.[1])
    .find(Boolean);
  const year = context.metaDate?.year ?? context.postDate?.year ?? context.writtenOn?.year ?? dated?.date.year ?? (standalone ? Number(standalone) : null);
  if (year !== null || defaultYear === undefined) return year;
  warnings.push({ code: 'YEAR_ASSUMED', message: `The document names no year; ${defaultYear} from the options was used for dates written without one.` });
  return defaultYear;
}

/** A zone stated for the whole document: the front matter, or an "All times in UTC" line outside the timeline. */
function documentZoneOf(meta: DocumentMetadata, sections: readonly DocumentSection[], warnings: ImportWarning[]): ZoneSpec | null {
  if (meta.timeZone) {
    const zone = resolveZone(meta.timeZone);
    if (zone) return zone;
    warnings.push({ code: 'UNKNOWN_ZONE', message: `The front matter's time zone "${meta.timeZone}" is not one the importer knows; it was ignored.` });
  }
  // A front-matter date written with its offset ("2024-11-02 08:30:00 +0900") gives the zone.
  const dateZone = meta.date ? /\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\s*([+\-−]\d{2}:?\d{2}|Z|[A-Z]{2,5})\s*$/.exec(meta.date)?.[1] : undefined;
  if (dateZone) {
    const zone = resolveZone(dateZone === 'Z' ? 'UTC' : dateZone);
    if (zone) return zone;
  }
  for (const block of sections.filter((s) => s.kind !== 'timeline').flatMap((s) => s.blocks)) {
    if (block.type !== 'paragraph') continue;
    const note = block.lines.map((l) => parseZoneNote(markdownToPlain(l.text))).find(Boolean);
    if (note) return note;
  }
  return null;
}

/** The day bare times belong to when no timeline heading gives one: the front matter's date, else the first full date written before the timeline. */
function timelineStartDate(
  metaDate: CalendarDate | null,
  sections: readonly DocumentSection[],
  firstTimeline: DocumentSection | undefined,
  dayFirst: boolean,
): { date: CalendarDate | null; inferredFrom: string | null } {
  if (metaDate && metaDate.year !== null) return { date: metaDate, inferredFrom: null };
  if (!firstTimeline) return { date: null, inferredFrom: null };
  const before = sections.slice(0, sections.indexOf(firstTimeline));
  const text = before
    .flatMap((s) => [s.title, ...s.blocks.flatMap((b) => (b.type === 'paragraph' ? b.lines.map((l) => l.text) : b.type === 'item' ? [b.text] : []))])
    .join('\n');
  const found = findDates(text, { dayFirst }).find((d) => d.date.year !== null);
  return found ? { date: found.date, inferredFrom: found.text } : { date: null, inferredFrom: null };
}

const LABEL_VALUE = /(?:^|\s)(?:\*\*|__)[^*_]{1,30}?(?::(?:\*\*|__)|(?:\*\*|__)\s*:)/g;
/** A paragraph made of "**Key**: value" lines (date, authors, status): metadata, not prose. */
function isLabelBlock(text: string): boolean {
  const labels = text.match(LABEL_VALUE)?.length ?? 0;
  return labels >= 2 && text.replace(LABEL_VALUE, ' ').split(/\s+/).filter(Boolean).length <= labels * 12;
}
const DATE_LABEL = /^\s*(?:\*\*|__)?(?:date|incident date|datum|fecha|data|日付|日期|날짜)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/iu;

/** The summary section, else the first paragraph (or bullet) long enough to stand as one. */
function summaryOf(sections: readonly DocumentSection[], format: DocumentFormat, warnings: ImportWarning[]): string {
  const section = sections.find((s) => s.kind === 'summary');
  const fromSection = section ? renderBlocks(section.blocks.filter((b) => b.type !== 'comment'), format) : '';
  if (fromSection) return fromSection;
  const prose = sections.filter((s) => s.kind === 'other' || s.kind === 'background' || s.kind === 'impact').flatMap((s) => s.blocks);
  const paragraphs = prose.flatMap((b) =>
    b.type === 'paragraph'
      ? (format === 'text' ? splitTextParagraphs(b.lines) : [b.lines]).map((g) => toMarkdownInline(g.map((l) => l.text.trim()).join(' '), format))
      : [],
  );
  const items = prose.flatMap((b) => (b.type === 'item' ? [toMarkdownInline(b.text, format)] : []));
  // An epigraph in quotes is not a summary, nor a block of "**Date**: …" metadata lines.
  const candidate = (t: string) => wordCount(t) >= 12 && !/^["“«„'‘]/.test(t.trim()) && !isLabelBlock(t);
  const summary = paragraphs.find(candidate) ?? items.find(candidate) ?? '';
  if (!summary) warnings.push({ code: 'NO_SUMMARY', message: 'No summary section and no paragraph long enough to stand as one; the summary is the title.' });
  return summary;
}

/** A title when the document has none: the source URL's last segment, else the summary's first sentence. */
function fallbackTitle(sourceUrl: string | null | undefined, summary: string, warnings: ImportWarning[]): string {
  const segment = sourceUrl
    ?.replace(/[?#].*$/, '')
    .split('/')
    .filter(Boolean)
    .reverse()
    .find((s) => /[a-z]{3}/i.test(s) && !/\.\w+$/.test(s));
  if (sourceUrl && segment) {
    const title = decodeURIComponent(segment).replace(/[-_]+/g, ' ').trim();
    warnings.push({ code: 'NO_TITLE', message: `The document has no title; "${title}" was taken from its source URL.` });
    return title;
  }
  const title = summary ? firstSentence(summary) : 'Untitled incident';
  warnings.push({ code: 'NO_TITLE', message: `The document has no title line or heading; "${title}" was taken from its first sentence. Edit it before saving.` });
  return title;
}

/**
 * A line of the front matter's `tags` is used only when a tag it names reached the draft (as a
 * pattern); a key line without a value (`tags:` above a YAML list) when one of its items did.
 * The rest stay unused, so a tag the draft has no place for is reported instead of vanishing.
 */
function markTagLinesUsed(tagLines: readonly SourceLine[], patterns: readonly string[], used: Set<number>) {
  if (patterns.length === 0) return;
  const named = (text: string) => {
    const value = text.replace(/^\s*(?:-\s+)?(?:[\w-]+\s*[:=]\s*)?/, '');
    return value.split(/[,\[\]"']+/).map((t) => slugify(t.trim())).some((t) => t !== '' && patterns.includes(t));
  };
  let keyLine: number | null = null;
  for (const l of tagLines) {
    if (/^\s*[\w-]+\s*[:=]\s*$/.test(l.text)) {
      keyLine = l.line;
      continue;
    }
    if (!named(l.text)) continue;
    used.add(l.line);
    if (keyLine !== null) used.add(keyLine);
  }
}

/** Patterns the front matter names (and tags that are pattern keys), then suggestions from the wording. */
function patternsOf(meta: DocumentMetadata, usedLines: readonly SourceLine[], known: readonly string[] | undefined, warnings: ImportWarning[]) {
  const stated = [
    ...new Set([
      ...meta.patterns.map((p) => slugify(p)).filter(Boolean),
      ...(known ? meta.tags.map((t) => slugify(t)).filter((t) => known.includes(t)) : []),
    ]),
  ];
  const suggested = suggestPatterns(usedLines, known).filter((s) => !stated.includes(s.key));
  if (suggested.length > 0) {
    warnings.push({
      code: 'PATTERNS_SUGGESTED',
      message: `Patterns ${suggested.map((s) => `${s.key} ("${s.evidence}", line ${s.line})`).join(', ')} are suggestions from the wording; confirm or remove them.`,
    });
  }
  return { patterns: [...stated, ...suggested.map((s) => s.key)], suggested };
}

/**
 * The document's prose as paragraphs and list items in plain text, for reading events and action
 * items out of sentences: everything but action-item lists and related links, and in a timeline
 * only the lines and items that do not start with a time.
 */
function proseUnitsOf(sections: readonly DocumentSection[], format: DocumentFormat, summary: string): ProseUnit[] {
  const flat = (text: string) => markdownToPlain(toMarkdownInline(text, format)).replace(/\s+/g, ' ').trim();
  const summaryText = markdownToPlain(summary).replace(/\s+/g, ' ').trim();
  const untimed = (section: DocumentSection, text: string) => section.kind !== 'timeline' || parseLeadingTime(text) === null;
  const units: ProseUnit[] = [];
  let lessons = false;
  let inTimeline = false;
  const add = (text: string, line: number, item: boolean) => {
    const t = flat(text);
    const inline = toMarkdownInline(text, format);
    const urls = [...inline.matchAll(/\]\((https?:\/\/[^\s()]+)\)|<(https?:\/\/[^<>\s]+)>|(?<![(<\w])(https?:\/\/[^\s<>()]+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
    if (/\p{L}/u.test(t)) units.push({ text: t, line, item, summary: t === summaryText, lessons, urls, timeline: inTimeline });
  };
  for (const section of sections) {
    // A "Lessons" section (a weak sign of action items) is prose too; a real action-item list is not.
    lessons = section.kind === 'actionables' && section.confidence < 0.5;
    inTimeline = section.kind === 'timeline';
    if ((section.kind === 'actionables' && !lessons) || section.kind === 'related') continue;
    for (const block of section.blocks) {
      if (block.type === 'paragraph') {
        for (const group of format === 'text' ? splitTextParagraphs(block.lines) : [block.lines]) {
          const lines = group.filter((l) => untimed(section, l.text));
          if (lines.length > 0) add(lines.map((l) => l.text.trim()).join(' '), lines[0].line, false);
        }
      } else if (block.type === 'item' && untimed(section, block.text)) {
        add([block.text, ...block.continuation.map((l) => l.text.trim())].join(' '), block.line, true);
      }
    }
  }
  return units;
}

/**
 * Action items from the prose, each with the URLs of the paragraph it came from; a short
 * paragraph right after it that reads as no action of its own and only cites a link ("The tracking
 * issue has the details.", "See the ticket.") gives its URLs to the action before it.
 */
function readProseActionsWithLinks(units: readonly ProseUnit[], language: string): ProseAction[] {
  const out: ProseAction[] = [];
  let previous: ProseAction | null = null;
  for (const u of units) {
    const actions = readProseActions(splitStatements(u.text, { item: u.item }), language);
    const urls = u.urls ?? [];
    if (actions.length > 0) {
      if (urls.length > 0) actions[actions.length - 1].links = urls;
      out.push(...actions);
      previous = actions[actions.length - 1];
    } else if (previous && urls.length > 0 && wordCount(u.text) <= 25) {
      previous.links = [...(previous.links ?? []), ...urls];
    } else {
      previous = null;
    }
  }
  return out;
}

function sectionReport(sections: readonly DocumentSection[], format: DocumentFormat): RecognisedSection[] {
  return sections
    .filter((s): s is DocumentSection & { heading: HeadingBlock } => s.heading !== null)
    .map((s) => ({
      heading: markdownToPlain(toMarkdownInline(s.title, format)),
      line: s.heading.line,
      level: s.level,
      kind: s.kind,
      confidence: s.confidence,
      ...(s.inheritedFrom ? { inheritedFrom: s.inheritedFrom, inheritance: s.continues ? ('continues' as const) : ('inside' as const) } : {}),
    }));
}

/**
 * Reads a postmortem written in Markdown, MediaWiki wikitext or plain text into a draft
 * `IncidentDocument` and a report of what was recognised, what was assumed and which lines were
 * not used. Pure: no I/O, no clock, the same input always gives the same output.
 */
export function parsePostmortem(document: string | Buffer, options: ParsePostmortemOptions = {}): ImportResult {
  checkOptions(options);
  const input = normaliseInput(document, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const all: SourceLine[] = input.lines.map((text, i) => ({ line: i + 1, text }));
  // Every line that went into the draft; the others are reported unused.
  const used = new Set<number>();
  const warnings: ImportWarning[] = [];
  const format = options.format ?? detectFormat(input.lines);

  const front = readFrontMatter(all);
  front.used.forEach((l) => used.add(l));
  warnings.push(...front.warnings);
  const meta = front.metadata;
  let body = all.slice(front.bodyStart);
  if (body.every(isBlank)) throw new ImportError('EMPTY_DOCUMENT', 'The document has front matter but no text after it.');
  const bodyText = body.map((l) => l.text).join('\n');
  if (!/\p{L}/u.test(bodyText)) throw new ImportError('NO_STRUCTURE', 'The document contains no words: nothing in it can be read as a postmortem.');
  const statedLanguage = meta.language ? languageTag(meta.language) : null;
  if (meta.language && !statedLanguage) {
    warnings.push({ code: 'FRONT_MATTER_INVALID', message: `The front matter's language "${meta.language}" is not a language tag such as "en" or "vi"; the language was detected instead.` });
  }
  const language = statedLanguage ?? detectLanguage(bodyText);
  const languageBasis = statedLanguage ? 'front matter' : 'detected from the script, then tinyld';
  // "5/20" is month first in English, Japanese, Chinese and Korean, day first elsewhere.
  const dayFirst = !['en', 'ja', 'zh', 'ko'].includes(language.split('-')[0]);

  // A saved blog page: only the first post is the incident.
  let title: string | null = meta.title ?? null;
  let titleFrom: { line: number | null; basis: string; confidence: number } = {
    line: front.used.find((n) => /^\s*title\s*[:=]/i.test(all[n - 1]?.text ?? '')) ?? null,
    basis: 'front matter',
    confidence: 1,
  };
  const post = takeFirstPost(body, { dayFirst });
  if (post) {
    body = post.body;
    used.add(post.header.line);
    if (post.title) {
      used.add(post.title.line);
      if (title === null) titleFrom = { line: post.title.line, basis: 'the first post of a blog page', confidence: 0.8 };
      title ??= post.title.text.replace(/^#+\s*/, '').trim();
    }
    if (post.postCount > 1) {
      warnings.push({
        code: 'MULTIPLE_POSTS',
        message: `The page holds ${post.postCount} dated posts; only the first ("${post.title?.text.trim() ?? post.header.text.trim()}") was imported and the rest is listed as unused.`,
        line: post.header.line,
      });
    }
  }

  // A signed message's armour (the PGP header and signature block) wraps the text; it is left out and listed unused.
  body = withoutSignatureArmour(body);
  const signOff = withoutSignOff(body, used, dayFirst);
  body = signOff.body;
  if (format === 'markdown') body = resolveReferenceLinks(body, used);
  const blocks = parseBlocks(body, format);
  const bodyTitle = takeTitle(blocks, format, used);
  if (title === null && bodyTitle) titleFrom = { line: bodyTitle.line, basis: format === 'text' ? 'a short first line' : 'the first heading, outranked by none', confidence: 0.9 };
  title ??= bodyTitle?.text ?? null;
  // "2024-03-12, Disk full" and "March 12th, 2024 Disk full" name the day, then the incident.
  const titleParts = title ? splitTitleDate(title, dayFirst) : { title: null, date: null };
  title = titleParts.title;
  const sections = buildSections(blocks);
  markDatedEntries(sections, dayFirst);
  extendActionables(sections, format);
  for (const s of sections) if (s.heading) blockLines(s.heading).forEach((l) => used.add(l));

  // A "**Date**: 2024-03-12" line near the top dates the incident as front matter would.
  const dateLine = meta.date ? null : body.slice(0, 30).map((l) => DATE_LABEL.exec(l.text)?.[1]).find((v) => v && findFirstDate(v, { dayFirst })?.date.year != null);
  const metaDate = meta.date ? findFirstDate(meta.date, { dayFirst })?.date ?? null : dateLine ? findFirstDate(dateLine, { dayFirst })?.date ?? null : null;
  const writtenOn = signOff.date ?? documentDateLine(body, dayFirst);
  const year = documentYear({ metaDate, postDate: post?.date.date ?? null, writtenOn, body, title, dayFirst }, options.defaultYear, warnings);
  let summary = summaryOf(sections, format, warnings);
  const proseUnits = proseUnitsOf(sections, format, summary);
  const timelineSections = sections.filter((s) => s.kind === 'timeline');
  const start = timelineStartDate(metaDate ?? titleParts.date, sections, timelineSections[0], dayFirst);
  const timeline = extractTimeline(timelineSections, {
    format,
    dayFirst,
    year,
    date: start.date,
    referenceDate: metaDate?.year != null ? metaDate : titleParts.date ?? post?.date.date ?? writtenOn ?? start.date,
    dateInferredFrom: start.inferredFrom,
    documentZone: documentZoneOf(meta, sections, warnings),
    assumedZone: options.assumeTimeZone ? resolveZone(options.assumeTimeZone) : null,
    used,
    warnings,
    language,
    proseUnits,
  });
  if (timeline.fromProse > 0) {
    warnings.push({
      code: 'EVENTS_FROM_PROSE',
      message: `${timeline.fromProse} event(s) were read from sentences, not from timeline lines: check their order, wording and times before publishing.`,
    });
  }

  // Action items: a list under an action-item heading; failing that, what the prose says was done
  // or is to be done; failing that, a "Lessons" list (low confidence).
  // A document kept in a GitHub repository numbers its issues there: "#123" links to that repository.
  const sourceRepository = /^https?:\/\/(?:www\.)?github\.com\/([\w.-]+)\/([\w.-]+)(?:[/?#]|$)/i.exec(options.sourceUrl ?? meta.source ?? '');
  const trackers = { ...(sourceRepository ? { github: `https://github.com/${sourceRepository[1]}/${sourceRepository[2]}` } : {}), ...(options.trackers ?? {}) };
  // A table of action items outside an action-item section (after the summary, under "Impact") is read as one.
  for (const s of [...sections]) {
    if (s.kind === 'actionables' || s.kind === 'timeline') continue;
    const tables = s.blocks.filter((b) => isActionTable(b, format));
    if (tables.length === 0) continue;
    s.blocks = s.blocks.filter((b) => !tables.includes(b));
    sections.splice(sections.indexOf(s) + 1, 0, { ...s, heading: null, title: s.title, kind: 'actionables', confidence: 0.6, parent: null, inheritedFrom: null, blocks: tables });
  }
  const actionSections = sections.filter((s) => s.kind === 'actionables');
  const proseActions =
    actionSections.some((s) => s.confidence >= 0.5)
      ? []
      : settleProseActions(readProseActionsWithLinks(proseUnits, language));
  let actions;
  if (proseActions.length > 0) {
    // The lessons stay prose: the document says elsewhere what was and will be done.
    for (const s of actionSections) s.kind = 'other';
    const fromProse = actionablesFromProse(proseActions, trackers);
    actions = {
      actionables: fromProse,
      decisions: fromProse.map(() => ({ line: null, statusRule: 'prose' as const })),
      prose: new Map<DocumentSection, DocumentBlock[]>(),
      headingOwners: [] as string[],
    };
    warnings.push({
      code: 'ACTIONS_FROM_PROSE',
      message: `The document has no action-item list; ${proseActions.length} action item(s) were read from sentences (${[...new Set(proseActions.map((a) => a.rule))].join(', ')}): check them before publishing.`,
    });
  } else {
    actions = extractActionables(actionSections, { format, trackers, year, dayFirst, used });
  }
  const organization = meta.organization ?? options.organization ?? /^([\p{Lu}][\p{L}\d&.-]*(?: [\p{Lu}][\p{L}\d&.-]*)?)['’]s\s/u.exec(title ?? '')?.[1] ?? null;
  const causalFactors = extractCausalFactors(
    sections.filter((s) => s.kind === 'causes'),
    { format, used, fallbackComponent: null },
  );

  // Narrative: all prose; structured sections contribute only what did not become data.
  const parts: NarrativePart[] = sections.map((section) => {
    const structured = section.kind === 'timeline' ? timeline.prose : section.kind === 'actionables' ? actions.prose : null;
    const blocksOf = structured ? structured.get(section) ?? [] : section.blocks.filter((b) => b.type !== 'comment');
    return { section, blocks: blocksOf, keepEmptyHeading: !structured && sections.some((s) => s.parent === section) };
  });
  const narrative = buildNarrative(parts, format, used);

  const impactSection = sections.find((s) => s.kind === 'impact');
  const impact = impactSection ? renderBlocks(impactSection.blocks.filter((b) => b.type !== 'comment'), format) : '';
  if (title === null) titleFrom = { line: null, basis: 'no title in the document: the source URL or the first sentence', confidence: 0.3 };
  title ??= fallbackTitle(options.sourceUrl, summary, warnings);
  // Within what an incident may hold: a 2,000-character summary and a 200-character title are generous.
  summary = shorten(summary || title, 2000);
  title = shorten(title, 200);
  const { patterns, suggested } = patternsOf(meta, all.filter((l) => used.has(l.line)), options.knownPatterns, warnings);
  markTagLinesUsed(front.tagLines, patterns, used);

  const events = timeline.events;
  const structureFound = sections.some((s) => s.heading && s.kind !== 'other') || events.length > 0 || actions.actionables.length > 0;
  if (!structureFound) {
    if (options.requireStructure) {
      throw new ImportError('NO_STRUCTURE', 'No section of the document could be recognised (no timeline, causes, action items or summary heading).');
    }
    warnings.push({ code: 'NO_STRUCTURE', message: 'No recognisable sections: the draft holds the text as narrative only; add the timeline and action items by hand.' });
  }
  if (events.length === 0) {
    warnings.push({ code: 'NO_TIMELINE', message: timelineSections.length > 0 ? 'A timeline section was found but no events could be read from it.' : 'No timeline section was found.' });
  }
  if (actions.actionables.length === 0) warnings.push({ code: 'NO_ACTIONABLES', message: 'No action items were found.' });
  if (causalFactors.length === 0) warnings.push({ code: 'NO_CAUSES', message: 'No causes section with items was found.' });
  for (const s of sections) {
    if (s.heading && s.kind !== 'other' && s.confidence < 0.5) {
      warnings.push({ code: 'LOW_CONFIDENCE_SECTION', message: `"${s.title}" was read as ${s.kind} with low confidence (${s.confidence}); check it.`, line: s.heading.line });
    }
  }
  if (timeline.zones.local > 0) {
    warnings.push({
      code: 'TIMES_KEPT_LOCAL',
      message: `${timeline.zones.local} event time(s) have no zone and the document states none: they were kept as written, not converted (stored as if UTC). Pass assumeTimeZone or add a zone to the timeline heading.`,
    });
  }
  if (timeline.zones.assumed > 0) {
    warnings.push({ code: 'ZONE_ASSUMED', message: `${timeline.zones.assumed} event time(s) have no zone in the document; they were converted from ${options.assumeTimeZone} as the options asked.` });
  }
  if (!organization) warnings.push({ code: 'ORGANIZATION_UNKNOWN', message: 'The document does not say which organization it is about; set it before saving.' });

  const byKind = (kind: TimelineEventDocument['kind']) => events.filter((e) => e.kind === kind && e.at);
  const components = [...new Set([...meta.components, ...causalFactors.map((f) => f.component).filter((c): c is string => c !== null && c !== organization), ...actions.headingOwners])];
  const slugYear = metaDate?.year ?? year;
  // A title in a script slugs cannot spell (Japanese, Chinese) gives a slug from the content's hash.
  const baseSlug = meta.slug ? slugify(meta.slug, { maxLength: 120 }) : slugify(title, { maxLength: 100 }) || `incident-${input.contentHash.slice(0, 8)}`;
  const slug = meta.slug || !slugYear || baseSlug.endsWith(String(slugYear)) ? baseSlug : `${baseSlug}-${slugYear}`;

  const draft: IncidentDocument = {
    slug,
    title,
    organization,
    components: components.slice(0, 20),
    summary,
    narrative,
    impact,
    patterns,
    source: { title: meta.sourceTitle ?? title, url: options.sourceUrl ?? meta.source ?? null, language, originalText: originalTextOf(language, summary, narrative) },
    keyTimes: keyTimesOf(events),
    timeline: events,
    causalFactors,
    causalLinks: [],
    actionables: actions.actionables,
  };

  let problems: FieldProblem[] = [];
  try {
    validateIncidentDocument(draft);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems = (error.details.problems as FieldProblem[] | undefined) ?? [{ field: '', reason: error.message }];
    warnings.push({ code: 'DRAFT_INCOMPLETE', message: `The draft needs editing before it can be saved: ${problems.map((p) => `${p.field} ${p.reason}`).join('; ')}.` });
  }

  const recognised = sectionReport(sections, format);
  const verdict = judgePostmortem(bodyText, recognised);
  if (!verdict.isPostmortem) {
    warnings.push({ code: 'NOT_A_POSTMORTEM', message: `The document does not read as a postmortem (${verdict.evidence.join('; ')}); check that it is one before importing it.` });
  }
  const decisions: ImportDecision[] = [
    { field: 'title', value: title, confidence: titleFrom.confidence, line: titleFrom.line, basis: titleParts.date ? `${titleFrom.basis}; the date it started with was taken off` : titleFrom.basis },
    { field: 'language', value: language, confidence: statedLanguage ? 1 : 0.8, line: null, basis: languageBasis },
    { field: 'postmortem', value: String(verdict.isPostmortem), confidence: verdict.confidence, line: null, basis: verdict.evidence.join('; ') },
    { field: 'organization', value: organization || null, confidence: organization ? (meta.organization || options.organization ? 1 : 0.6) : 0, line: null, basis: meta.organization ? 'front matter' : options.organization ? 'the options' : organization ? 'the title ("X\'s …")' : 'not stated: left empty' },
    ...causalFactors.flatMap((f) => (f.component === null ? [{ field: `causalFactors.${f.key}.component`, value: null, confidence: 0, line: null, basis: 'not stated: left empty' }] : [])),
    ...recognised.map((s) => ({ field: 'section', value: s.kind, confidence: s.confidence, line: s.line, basis: s.inheritedFrom ? `"${s.heading}" inside "${s.inheritedFrom}"` : `heading "${s.heading}"` })),
    ...events.map((e, i) => ({ field: `timeline.${e.key}`, value: e.at, confidence: timeline.decisions[i]?.confidence ?? 0.5, line: timeline.decisions[i]?.line ?? null, basis: `${e.precision}: ${timeline.decisions[i]?.basis ?? ''}; kind ${e.kind} from its words` })),
    ...actions.actionables.flatMap((a, i) => {
      const d = actions.decisions[i];
      const line = d?.line ?? null;
      return [
        { field: `actionables.${a.key}.status`, value: a.status, confidence: STATUS_RULE_CONFIDENCE[d?.statusRule ?? 'none stated'], line, basis: d?.statusRule ?? 'none stated' },
        ...a.references.map((r) => ({ field: `actionables.${a.key}.references`, value: r.url ?? r.ref, confidence: r.url ? 1 : 0.5, line, basis: `${r.kind} "${r.ref}"${r.url ? '' : ' (no tracker URL configured)'}` })),
      ];
    }),
    ...(['started', 'detected', 'mitigated', 'resolved'] as const).map((k) => {
      const at = draft.keyTimes[k]?.at ?? null;
      const event = at ? events.find((e) => e.at === at) : undefined;
      const i = event ? events.indexOf(event) : -1;
      return { field: `keyTimes.${k}`, value: at, confidence: at ? 0.7 : 0, line: i >= 0 ? timeline.decisions[i]?.line ?? null : null, basis: event ? `from the entry "${event.text.slice(0, 60)}"` : 'no entry says so: left empty' };
    }),
    ...suggested.map((p) => ({ field: 'patterns', value: p.key, confidence: 0.5, line: p.line, basis: `suggested from "${p.evidence}"` })),
  ];
  const zoneSource = timeline.zones.converted > 0 ? 'document' : timeline.zones.assumed > 0 ? 'option' : 'none';
  return {
    draft,
    report: {
      format,
      formatDetected: options.format === undefined,
      contentHash: input.contentHash,
      language,
      postmortem: verdict,
      timeZone: { zone: zoneSource === 'none' ? null : timeline.zones.zoneLabel, source: zoneSource },
      sections: recognised,
      counts: { lines: all.length, usedLines: all.filter((l) => !isBlank(l) && used.has(l.line)).length, timeline: events.length, actionables: actions.actionables.length, causalFactors: causalFactors.length },
      warnings,
      // Lines outside the first post of a blog page were never read, so they are here too.
      unusedLines: all.filter((l) => !isBlank(l) && !used.has(l.line)).map((l) => ({ line: l.line, text: l.text })),
      suggestedPatterns: suggested,
      problems,
      decisions,
    },
  };
}
