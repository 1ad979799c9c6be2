import type { TimePrecision, TimelineEventDocument } from '@hindsight/domain';
import { addDays, findDates, findFirstDate, WEEKDAY_ALTERNATION, type CalendarDate } from './calendar-date.parser';
import type { DocumentBlock, ListItemBlock, ParagraphBlock, TableBlock } from './document-block.types';
import { classifyEventKind } from './event-kind.classifier';
import type { DocumentFormat, ImportWarning, SourceLine } from './importer.types';
import { markdownToPlain, toMarkdownInline } from './inline.converter';
import type { DocumentSection } from './section.builder';
import { cleanHeading } from './section.classifier';
import { slugify, KeyAllocator } from './slug.util';
import { findDayExpression, resolveDay } from './day-expression.reader';
import { capitalise, continuesPrevious, reportsHappening, splitSentences, splitStatements, type ProseUnit, type Statement } from './prose.reader';
import { findTimeInHeading, parseLeadingTime, type LeadingTime } from './time-expression.parser';
import { findZoneInText, parseZoneNote, toUtcIso, type LocalDateTime, type ZoneSpec } from './time-zone.resolver';

export interface TimelineEnvironment {
  format: DocumentFormat;
  dayFirst: boolean;
  /** Year for dates written without one. */
  year: number | null;
  /** Day that bare times belong to until the timeline names another. */
  date: CalendarDate | null;
  /** The incident's date as the document gives it (front matter, title, a dated line): dates without a year take the year nearest it. */
  referenceDate?: CalendarDate | null;
  /** Set when `date` was guessed from the prose; the report says so if an event relies on it. */
  dateInferredFrom: string | null;
  /** Zone stated for the whole document (front matter, "All times in UTC"). */
  documentZone: ZoneSpec | null;
  /** Zone from the caller's options, used only when the document states none. */
  assumedZone: ZoneSpec | null;
  used: Set<number>;
  warnings: ImportWarning[];
  /** The document's language (BCP 47), for reading events out of sentences. */
  language: string;
  /** The document's prose, read sentence by sentence when no timeline gives any event. */
  proseUnits?: readonly ProseUnit[];
}

export interface TimelineExtraction {
  events: TimelineEventDocument[];
  /** Blocks of the timeline sections that were prose, not events: they stay in the narrative. */
  prose: Map<DocumentSection, DocumentBlock[]>;
  zones: { converted: number; assumed: number; local: number; zoneLabel: string | null };
  /** Events read from sentences: untimed list items split up, or prose when there was no timeline. */
  fromProse: number;
  /** One per event, in the same order. */
  decisions: EventDecision[];
}

interface PendingEvent {
  asWritten: string | null;
  at: string | null;
  precision: TimePrecision;
  text: string;
  /** Wall-clock "HHMM" as written, for the key. */
  clockTag: string | null;
  indent: number;
  /** Wall clock kept unconverted for want of a zone; converted later if an entry names one. */
  local?: LocalDateTime;
  /** The calendar day it was placed on, for relative days after it. */
  day?: CalendarDate;
  /** Read from a dated sentence of the prose (placed among the other events by its line). */
  dated?: boolean;
  /** Its day was counted from another ("the day after"): it is no anchor for later relative days. */
  relative?: boolean;
  /** Converted from the caller's assumed zone rather than kept as written. */
  assumed?: boolean;
  /** The source line the entry starts on, and how its time was settled, for the report. */
  line?: number;
  basis?: string;
  confidence?: number;
}

/** How one event's time was settled, for the import report. */
export interface EventDecision {
  line: number | null;
  confidence: number;
  basis: string;
}

const DATE_CHANGE_WORDS =
  /^[<[(]?\s*(?:date change|day change|next day|new day|datumswechsel|nächster tag|changement de (?:jour|date)|jour suivant|cambio de (?:día|fecha)|día siguiente|sang ngày(?: mới)?|ngày hôm sau)\s*[>\])]?:?$/i;
/** `<date change>`, `[next day]`: the following bare times are one day later. */
const isDateChange = (text: string) => DATE_CHANGE_WORDS.test(text.trim());
const FILLER_WORDS = new RegExp(
  `(?<![\\p{L}])(?:${WEEKDAY_ALTERNATION}|timeline|time line|for|on|of|the|day|date|events?|am|le|el|ngày|dòng thời gian|diễn biến|zeitleiste|ablauf|chronologie|cronología|tag|jour|día)(?![\\p{L}])`,
  'giu',
);
const TIME_HEADER = /^(?:time|times|timestamp|when|at|hora|heure|zeit|uhrzeit|thời gian|giờ|date ?\/ ?time|date and time|datetime|time \(.*\))\b/iu;
const DATE_HEADER = /^(?:date|day|datum|tag|jour|fecha|día|ngày)$/iu;
const EVENT_HEADER = /(event|what|description|details?|action|ereignis|beschreibung|événement|evento|descripción|sự kiện|mô tả|diễn biến|note|summary|message)/iu;
const INLINE_DATE_CUE = /(?:^|[\s(])(?:on|ngày|am|le|el|vào)\s*$/iu;

/** Fewer dated entries than this in the timeline's lists, tables and headings: the chronology is told in sentences. */
const DATED_ENTRIES_FOR_A_TIMELINE = 3;
/**
 * "Last modified: 2024-05-02", "时间：（2013 年）3 月 5 日至 9 日": a date right after a short label,
 * with little after it, is a field's value, not an event.
 */
const isFieldValue = (before: string, after: string) =>
  /[\p{L}\p{N}][:：][^:：.。!?]{0,14}$/u.test(before) &&
  before.trim().split(/\s+/).length <= 6 &&
  after.trim().split(/\s+/).filter(Boolean).length <= 3 &&
  after.replace(/\s/g, '').length <= 24;
/** A log line or a JSON fragment quoted in the prose: braces, quotes and colons outnumber the words. */
const looksLikeCode = (sentence: string) => /^[{[<]/.test(sentence.trim()) || (sentence.match(/[{}"=<>]/g)?.length ?? 0) > sentence.split(/\s+/).length / 2;
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Reads the timeline sections into events: bullet lists, tables, one heading per event, dates
 * given by headings or by lines of their own, `<date change>` markers, and times in any of the
 * forms `parseLeadingTime` knows. Times are converted to UTC when a zone is known.
 */
export function extractTimeline(sections: readonly DocumentSection[], env: TimelineEnvironment): TimelineExtraction {
  const pending: PendingEvent[] = [];
  const prose = new Map<DocumentSection, DocumentBlock[]>();
  const zones = { converted: 0, assumed: 0, local: 0, zoneLabel: null as string | null };
  const sectionZones = new Map<DocumentSection, ZoneSpec | null>();
  let date: CalendarDate | null = env.date;
  let lastClock: number | null = null;
  let noteZone: ZoneSpec | null = null;
  // The zone the last entry named: a zone written on some entries applies to the entries without one.
  let entryZone: ZoneSpec | null = null;
  let entryZoneSeen: ZoneSpec | null = null;
  let warnedDateUnknown = false;
  let warnedInferred = false;

  const plain = (text: string) => markdownToPlain(toMarkdownInline(text, env.format));
  const use = (...lines: number[]) => lines.forEach((l) => env.used.add(l));
  const keepProse = (section: DocumentSection, block: DocumentBlock) => {
    const list = prose.get(section) ?? [];
    list.push(block);
    prose.set(section, list);
  };
  const withYear = (d: CalendarDate): CalendarDate => {
    if (d.year !== null) return d;
    const reference = env.referenceDate ?? env.date;
    if (reference?.year != null) {
      // A date without a year takes the year that puts it nearest the incident's date ("11-28" in a
      // January postmortem is the November before it).
      const at = (year: number) => Date.UTC(year, d.month - 1, d.day);
      const ref = Date.UTC(reference.year, reference.month - 1, reference.day);
      const year = [reference.year - 1, reference.year, reference.year + 1].reduce((a, b) => (Math.abs(at(b) - ref) < Math.abs(at(a) - ref) ? b : a));
      return { ...d, year };
    }
    return env.year !== null ? { ...d, year: env.year } : d;
  };
  const setDate = (d: CalendarDate) => {
    date = withYear(d);
    lastClock = null;
  };

  /** "Timeline for April 1st:", "**Thursday, 14 March**", "2024-03-14": a line that only names a day. */
  const dateOnly = (text: string): CalendarDate | null => {
    const t = plain(text);
    const found = findFirstDate(t, { dayFirst: env.dayFirst });
    if (!found) return null;
    const rest = (t.slice(0, found.index) + t.slice(found.index + found.text.length))
      .replace(/\([^()]*\)/g, (inner) => (findZoneInText(inner) ? ' ' : inner))
      .replace(FILLER_WORDS, ' ')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    return rest.split(' ').filter(Boolean).length <= 1 ? found.date : null;
  };

  const resolve = (lt: LeadingTime, zone: ZoneSpec | null, line: number): Omit<PendingEvent, 'text' | 'indent'> => {
    if (lt.date) setDate(lt.date);
    const clock = lt.clock;
    if (clock && !lt.date && date !== null && lastClock !== null) {
      const minutes = clock.hour * 60 + clock.minute;
      // Times that jump back from late evening to early morning crossed midnight.
      if (lastClock >= 18 * 60 && minutes < 6 * 60) {
        date = addDays(date, 1);
        env.warnings.push({ code: 'DATE_ROLLOVER_ASSUMED', message: `"${lt.asWritten}" follows a late-evening time, so it was placed on the next day.`, line });
      }
    }
    if (clock) lastClock = clock.hour * 60 + clock.minute;
    const clockTag = clock ? `${pad(clock.hour)}${pad(clock.minute)}` : null;
    const day = lt.date ? withYear(lt.date) : date;
    if (!lt.date && day && day === env.date && env.dateInferredFrom && !warnedInferred) {
      warnedInferred = true;
      env.warnings.push({ code: 'DATE_INFERRED', message: `"${lt.asWritten}" has no date; it was placed on ${env.dateInferredFrom}, the first date the document mentions before its timeline.`, line });
    }
    if (!day || day.year === null) {
      if (!warnedDateUnknown) {
        env.warnings.push({
          code: 'DATE_UNKNOWN',
          message: day
            ? `"${lt.asWritten}" has no year and the document names none; such events keep their time as written but no instant (pass a default year).`
            : `"${lt.asWritten}" has no date and the timeline names none; such events keep their time as written but no instant (add a date heading or line).`,
          line,
        });
        warnedDateUnknown = true;
      }
      return { asWritten: lt.asWritten, at: null, precision: 'none', clockTag, line, basis: day ? 'no year anywhere: kept as written, no instant' : 'no date anywhere: kept as written, no instant', confidence: 0.3 };
    }
    const dayBasis = lt.date ? (lt.date.year !== null ? 'date on the entry' : 'date on the entry, year from the document') : day === env.date && env.dateInferredFrom ? `day inferred from "${env.dateInferredFrom}"` : 'day from the date above it';
    const dayConfidence = lt.date ? 1 : day === env.date && env.dateInferredFrom ? 0.6 : 0.9;
    if (lt.zone) {
      entryZone = lt.zone;
      entryZoneSeen ??= lt.zone;
    }
    const stated = lt.zone ?? zone ?? noteZone ?? env.documentZone ?? entryZone;
    const effectiveZone = stated ?? env.assumedZone;
    if (stated) zones.converted++;
    else if (env.assumedZone) zones.assumed++;
    else if (clock) zones.local++;
    if (effectiveZone && !zones.zoneLabel) zones.zoneLabel = effectiveZone.label;
    const local: LocalDateTime = { year: day.year, month: day.month, day: day.day, hour: clock?.hour ?? 0, minute: clock?.minute ?? 0, second: clock?.second ?? 0 };
    // A day is the day the document names: only a time of day moves with the zone.
    const at = toUtcIso(local, clock ? effectiveZone : null);
    const [zoneBasis, zoneConfidence] = !clock
      ? ['date only', 1]
      : lt.zone
        ? [`zone ${lt.zone.label} written on the entry`, 1]
        : zone
          ? [`zone ${zone.label} from the heading`, 0.95]
          : noteZone
            ? [`zone ${noteZone.label} from a note in the timeline`, 0.9]
            : env.documentZone
              ? [`zone ${env.documentZone.label} stated for the document`, 0.9]
              : entryZone
                ? [`zone ${entryZone.label} named on an earlier entry`, 0.75]
                : env.assumedZone
                  ? [`zone ${env.assumedZone.label} assumed from the options`, 0.6]
                  : ['no zone stated: wall clock kept as if UTC', 0.4];
    const decided = { line, basis: `${dayBasis}; ${zoneBasis}`, confidence: Math.min(dayConfidence, zoneConfidence as number), day: day as CalendarDate };
    if (!stated && clock) return { asWritten: lt.asWritten, at, precision: lt.precision, clockTag, local, assumed: effectiveZone !== null, ...decided };
    return { asWritten: lt.asWritten, at, precision: lt.precision, clockTag, ...decided };
  };

  /** An event line without a leading time may still name its day ("... on 22/2 ..."). */
  const namedDates = (t: string) =>
    findDates(t, { dayFirst: env.dayFirst }).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.text) || INLINE_DATE_CUE.test(t.slice(0, d.index)));
  const untimed = (text: string, indent: number, zone: ZoneSpec | null, line: number): PendingEvent => {
    const t = plain(text);
    const dates = namedDates(t);
    if (dates.length === 1 && withYear(dates[0].date).year !== null) {
      const lt: LeadingTime = { asWritten: dates[0].text, rest: t, date: dates[0].date, clock: null, zone: null, precision: 'day' };
      // A date mentioned in passing does not move the timeline's current day.
      const saved = { date, lastClock };
      const resolved = resolve(lt, zone, line);
      ({ date, lastClock } = saved);
      return { ...resolved, text, indent };
    }
    // "第二天", "the next day", "on Saturday": a day relative to the current one.
    const relative = dates.length === 0 ? findDayExpression(t, { dayFirst: env.dayFirst }) : null;
    if (relative?.relative) {
      const event = relativeEvent(relative, date, zone, line);
      if (event) return { ...event, text, indent };
    }
    return { asWritten: null, at: null, precision: 'none', text, clockTag: null, indent, line, basis: 'no time written: kept in order, untimed', confidence: 0.9 };
  };

  /** An event on a relative day, counted from `anchor`; the current day does not move. */
  const relativeEvent = (expr: ReturnType<typeof findDayExpression> & object, anchor: CalendarDate | null, zone: ZoneSpec | null, line: number) => {
    const day = expr.relative ? resolveDay(expr.relative, anchor, env.referenceDate ?? env.date) : null;
    if (!day || withYear(day).year === null) return null;
    const saved = { date, lastClock };
    const resolved = resolve({ asWritten: expr.text, rest: '', date: withYear(day), clock: expr.clock, zone: expr.zone, precision: expr.clock ? 'minute' : 'day' }, zone, line);
    ({ date, lastClock } = saved);
    const base = expr.relative?.kind === 'today' ? 'the document\'s date' : 'the last date named before it';
    return { ...resolved, basis: `"${expr.text}" counted from ${base}; ${resolved.basis?.split('; ')[1] ?? ''}`.replace(/; $/, ''), confidence: Math.min(resolved.confidence ?? 0.7, 0.7), relative: true };
  };

  const eventFrom = (lt: LeadingTime, indent: number, zone: ZoneSpec | null, line: number): PendingEvent => ({
    ...resolve(lt, zone, line),
    text: lt.rest,
    indent,
  });

  let fromProse = 0;
  let lastProseEvent: PendingEvent | null = null;
  /**
   * Events from statements: each one that reports something happening. A date applies to the
   * statements after it in the same sentence; "and ..." continues the event before it.
   */
  const readStatements = (statements: readonly Statement[], indent: number, zone: ZoneSpec | null, line: number): number => {
    let added = 0;
    let dated = null as { sentence: number; at: string; precision: TimePrecision } | null;
    for (const statement of statements) {
      // Whether it names a date is asked without resolving it: a statement that is not kept must
      // leave no warning and no zone count behind. Statements are plain text already.
      if (!reportsHappening(statement, env.language, namedDates(statement.text).length === 1)) {
        if (statement.text.split(' ').length >= 3) lastProseEvent = null;
        continue;
      }
      if (lastProseEvent && continuesPrevious(statement)) {
        lastProseEvent.text = `${lastProseEvent.text.replace(/[.:;]$/, '')} ${statement.text}`;
        continue;
      }
      const event = untimed(capitalise(statement.text), indent, zone, line);
      if (event.at === null && dated?.sentence === statement.sentence) {
        event.at = dated.at;
        event.precision = dated.precision;
      }
      if (event.at !== null) dated = { sentence: statement.sentence, at: event.at, precision: event.precision };
      pending.push(event);
      lastProseEvent = event;
      added++;
    }
    fromProse += added;
    return added;
  };

  /**
   * A chronology told in sentences: every sentence of the prose (outside the timeline's own
   * entries, action items and lessons) that starts with or contains a day, absolute or relative,
   * is an event of that day, placed among the other events by its line. A relative day counts
   * from the last absolute date before it. A sentence whose instant an event already has is not
   * read twice.
   */
  function readDatedSentences(): void {
    if (!env.proseUnits) return;
    const fromStatements = new Set(pending.filter((p) => !p.dated && p.line !== undefined).map((p) => p.line));
    const anchors = pending.filter((p) => p.day && !p.relative).map((p) => ({ line: p.line ?? 0, day: p.day! }));
    const instants = new Set(pending.filter((p) => p.at && p.clockTag).map((p) => p.at));
    const dayKey = (d: CalendarDate) => `${d.year}-${d.month}-${d.day}`;
    // A day the timeline already tells hour by hour needs no day-only entry from a sentence.
    const timedDays = new Set(pending.filter((p) => p.day && p.clockTag).map((p) => dayKey(p.day!)));
    const added: PendingEvent[] = [];
    // With a timeline of its own the document's other prose only recounts it.
    const toldInProse = pending.filter((p) => p.at !== null && !p.dated).length < DATED_ENTRIES_FOR_A_TIMELINE;
    for (const unit of env.proseUnits) {
      if ((!toldInProse && !unit.timeline) || unit.lessons || env.used.has(unit.line) || fromStatements.has(unit.line)) continue;
      for (const sentence of splitSentences(unit.text)) {
        if (/[?？]$/.test(sentence) || sentence.split(/\s+/).length < 2 && !/\p{Script=Han}{4}/u.test(sentence)) continue;
        const expr = findDayExpression(sentence, { dayFirst: env.dayFirst });
        if (!expr || isFieldValue(sentence.slice(0, expr.index), sentence.slice(expr.index + expr.text.length)) || looksLikeCode(sentence)) continue;
        const anchor = [...anchors].reverse().find((a) => a.line <= unit.line)?.day ?? env.date;
        let event: PendingEvent | null = null;
        if (expr.date) {
          const day = withYear(expr.date);
          if (day.year === null) continue;
          const saved = { date, lastClock };
          const resolved = resolve({ asWritten: expr.text, rest: '', date: day, clock: expr.clock, zone: expr.zone, precision: expr.clock ? 'minute' : 'day' }, null, unit.line);
          ({ date, lastClock } = saved);
          event = { ...resolved, text: sentence, indent: 0 };
          anchors.push({ line: unit.line, day });
          anchors.sort((a, b) => a.line - b.line);
        } else {
          const relative = relativeEvent(expr, anchor, null, unit.line);
          if (relative) event = { ...relative, text: sentence, indent: 0 };
        }
        if (!event || (event.at && event.clockTag && instants.has(event.at)) || (!event.clockTag && event.day && timedDays.has(dayKey(event.day)))) continue;
        if (event.at) instants.add(event.at);
        event.dated = true;
        event.basis = `dated sentence; ${event.basis ?? ''}`;
        added.push(event);
      }
    }
    if (added.length === 0) return;
    fromProse += added.length;
    // Document order: each sentence's event goes after the events of earlier lines.
    for (const event of added) {
      const at = pending.findIndex((p) => (p.line ?? 0) > (event.line ?? 0));
      pending.splice(at < 0 ? pending.length : at, 0, event);
    }
  }

  const readLine = (text: string, line: number, zone: ZoneSpec | null): 'event' | 'context' | 'none' => {
    if (isDateChange(text)) {
      if (date) date = addDays(date, 1);
      lastClock = null;
      use(line);
      return 'context';
    }
    const note = parseZoneNote(plain(text));
    if (note) {
      noteZone = note;
      use(line);
      return 'context';
    }
    let lt = parseLeadingTime(text, { dayFirst: env.dayFirst });
    // "3/14       disk warning logged": a date without a year, then the entry in an aligned column.
    const aligned = lt ? null : /^\s*(\d{1,2})\/(\d{1,2})(?:\s{2,}|\t)(?=\S)/.exec(text);
    if (aligned) {
      const a = Number(aligned[1]);
      const b = Number(aligned[2]);
      const dayFirst = a > 12 ? true : b > 12 ? false : env.dayFirst;
      const month = dayFirst ? b : a;
      const day = dayFirst ? a : b;
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31) {
        lt = { asWritten: `${aligned[1]}/${aligned[2]}`, rest: text.slice(aligned[0].length).trim(), date: { year: null, month, day }, clock: null, zone: null, precision: 'day' };
      }
    }
    if (lt && (lt.clock || lt.rest)) {
      pending.push(eventFrom(lt, 0, zone, line));
      use(line);
      return 'event';
    }
    const day = lt?.date ?? dateOnly(text);
    if (day) {
      setDate(day);
      use(line);
      return 'context';
    }
    return 'none';
  };

  const readParagraph = (section: DocumentSection, block: ParagraphBlock, zone: ZoneSpec | null) => {
    const leftover: SourceLine[] = [];
    let previous: 'event' | 'context' | 'none' = 'none';
    for (const { line, text } of block.lines) {
      const result = readLine(text, line, zone);
      // Plain text aligns a long entry's next line under its text: an indented line continues it.
      const indented = env.format === 'text' && /^\s{2,}\S/.test(text);
      if (result === 'none' && previous === 'event' && (env.format !== 'text' || indented) && leftover.length === 0) {
        // Markdown and wikitext wrap long lines: the line continues the event above it.
        const last = pending[pending.length - 1];
        last.text = `${last.text} ${text.trim()}`.trim();
        use(line);
        continue;
      }
      if (result === 'none') leftover.push({ line, text });
      previous = result === 'none' ? 'none' : result;
    }
    if (leftover.length > 0) keepProse(section, { type: 'paragraph', lines: leftover });
  };

  let lastItemEvent: { event: PendingEvent; indent: number } | null = null;
  let dateItemIndent: number | null = null;

  const readItem = (section: DocumentSection, block: ListItemBlock, zone: ZoneSpec | null) => {
    const continuation = block.continuation.map((l) => l.text).join(' ');
    use(block.line, ...block.continuation.map((l) => l.line));
    if (isDateChange(block.text)) {
      if (date) date = addDays(date, 1);
      lastClock = null;
      return;
    }
    const lt = parseLeadingTime(block.text, { dayFirst: env.dayFirst });
    if (lastItemEvent && block.indent > lastItemEvent.indent && !lt?.clock) {
      // A deeper bullet without a time explains the event above it.
      lastItemEvent.event.text = `${lastItemEvent.event.text} — ${[block.text, continuation].filter(Boolean).join(' ')}`.trim();
      return;
    }
    if (lt && !lt.clock && lt.date) {
      setDate(lt.date);
      dateItemIndent = block.indent;
      if (!lt.rest && !continuation) return;
      if (!lt.rest) {
        // "- 2024-06-21:" with its text on the indented lines below: an entry of that day.
        const event = eventFrom(lt, block.indent, zone, block.line);
        event.text = continuation.trim();
        pending.push(event);
        lastItemEvent = { event, indent: block.indent };
        return;
      }
    } else if (!lt) {
      const day = dateOnly(block.text);
      if (day) {
        setDate(day);
        dateItemIndent = block.indent;
        return;
      }
    }
    if (dateItemIndent !== null && block.indent <= dateItemIndent && lt?.clock) dateItemIndent = null;
    if (!lt) {
      // An untimed item that tells several things ("Trigger: X happened; then Y") gives an event per thing it reports.
      const statements = splitStatements(plain([block.text, continuation].filter(Boolean).join(' ')), { item: true });
      if (statements.length >= 2 && readStatements(statements, block.indent, zone, block.line) > 0) {
        lastItemEvent = { event: pending[pending.length - 1], indent: block.indent };
        // The events leave out what the item says in general; the item as written stays in the narrative.
        keepProse(section, block);
        return;
      }
    }
    const event = lt ? eventFrom(lt, block.indent, zone, block.line) : untimed(block.text, block.indent, zone, block.line);
    if (continuation) event.text = `${event.text} ${continuation}`.trim();
    pending.push(event);
    lastItemEvent = { event, indent: block.indent };
  };

  const readTable = (section: DocumentSection, block: TableBlock, zone: ZoneSpec | null) => {
    const header = block.header?.cells.map((c) => plain(c)) ?? [];
    let timeColumn = header.findIndex((h) => TIME_HEADER.test(h));
    const dateColumn = header.findIndex((h) => DATE_HEADER.test(h));
    const first = block.rows[0]?.cells ?? [];
    if (timeColumn < 0) timeColumn = first.findIndex((c) => parseLeadingTime(c)?.clock);
    if (timeColumn < 0 && dateColumn < 0) {
      keepProse(section, block);
      return;
    }
    const tableZone = (timeColumn >= 0 ? findZoneInText(header[timeColumn] ?? '') : null) ?? zone;
    let eventColumn = header.findIndex((h, i) => i !== timeColumn && i !== dateColumn && EVENT_HEADER.test(h));
    if (eventColumn < 0) eventColumn = first.findIndex((_, i) => i !== timeColumn && i !== dateColumn);
    use(...block.markupLines);
    if (block.header) use(block.header.line);
    for (const row of block.rows) {
      const cell = (i: number) => (i >= 0 ? (row.cells[i] ?? '').trim() : '');
      const text = cell(eventColumn);
      if (dateColumn >= 0 && cell(dateColumn)) {
        const day = parseLeadingTime(cell(dateColumn), { dayFirst: env.dayFirst })?.date ?? dateOnly(cell(dateColumn));
        if (day) setDate(day);
      }
      if (!text) {
        if (dateColumn >= 0 && cell(dateColumn)) use(row.line);
        continue;
      }
      use(row.line);
      // Other columns (who, where) stay with the event rather than being dropped.
      const extras = row.cells
        .map((c, i) => ({ c: c.trim(), i }))
        .filter(({ c, i }) => c && i !== timeColumn && i !== dateColumn && i !== eventColumn)
        .map(({ c, i }) => (header[i] ? `${header[i]}: ${c}` : c));
      const fullText = extras.length > 0 ? `${text} (${extras.join('; ')})` : text;
      let lt = timeColumn >= 0 && cell(timeColumn) ? parseLeadingTime(cell(timeColumn), { dayFirst: env.dayFirst }) : null;
      // A row with a date and no time is an entry of that day.
      const rowDay = dateColumn >= 0 && cell(dateColumn) ? (parseLeadingTime(cell(dateColumn), { dayFirst: env.dayFirst })?.date ?? dateOnly(cell(dateColumn))) : null;
      if (!lt?.clock && rowDay && !(timeColumn >= 0 && cell(timeColumn) && !lt)) {
        lt = { asWritten: cell(dateColumn).trim(), rest: '', date: rowDay, clock: null, zone: null, precision: 'day' };
      }
      const event = lt ? { ...eventFrom(lt, 0, tableZone, row.line), text: fullText } : untimed(fullText, 0, tableZone, row.line);
      if (!lt && cell(timeColumn)) event.asWritten = null;
      pending.push(event);
    }
  };

  for (const section of sections) {
    const parentZone = section.parent ? sectionZones.get(section.parent) ?? null : null;
    const headingText = section.heading ? cleanHeading(section.heading.text) : '';
    const zone = (section.heading ? findZoneInText(headingText) : null) ?? parentZone;
    sectionZones.set(section, zone);
    lastItemEvent = null;
    dateItemIndent = null;

    if (section.heading && ((section.parent && sections.includes(section.parent)) || section.datedEntry)) {
      const headingInline = toMarkdownInline(section.heading.text, env.format);
      const lt = section.datedEntry ? findTimeInHeading(cleanHeading(headingInline), { dayFirst: env.dayFirst }) : parseLeadingTime(headingInline, { dayFirst: env.dayFirst });
      if (lt?.clock) {
        // One heading per event: the heading holds the time, the body the details.
        const event = eventFrom(lt, 0, zone, section.heading.line);
        // "Update 3" beside the time is a label; the body tells what happened.
        if (section.datedEntry) event.text = '';
        const body: string[] = [];
        let ruled = false;
        for (const block of section.blocks) {
          // A thematic break ends the entry: what follows is the document's own text again.
          if (block.type === 'rule') {
            use(block.line);
            ruled = true;
            continue;
          }
          if (ruled) {
            keepProse(section, block);
            continue;
          }
          if (block.type === 'paragraph') body.push(block.lines.map((l) => l.text.trim()).join(' '));
          else if (block.type === 'item') body.push([block.text, ...block.continuation.map((l) => l.text)].join(' '));
          else if (block.type === 'code' || block.type === 'table') {
            keepProse(section, block);
            continue;
          } else continue;
          use(...(block.type === 'paragraph' ? block.lines.map((l) => l.line) : [block.line, ...block.continuation.map((l) => l.line)]));
        }
        const details = body.join(' ').trim();
        event.text = event.text && details ? `${event.text}${/[.!?:]$/.test(event.text) ? '' : '.'} ${details}` : event.text || details;
        pending.push(event);
        continue;
      }
    }
    if (section.heading) {
      const day = dateOnly(section.heading.text) ?? findFirstDate(plain(section.heading.text), { dayFirst: env.dayFirst })?.date ?? null;
      if (day) setDate(day);
    }
    for (const block of section.blocks) {
      switch (block.type) {
        case 'paragraph':
          readParagraph(section, block, zone);
          lastItemEvent = null;
          break;
        case 'item':
          readItem(section, block, zone);
          break;
        case 'table':
          readTable(section, block, zone);
          break;
        case 'rule':
          use(block.line);
          break;
        case 'code':
          keepProse(section, block);
          break;
        case 'comment':
        case 'heading':
          break;
      }
    }
  }

  if (pending.length === 0 && env.proseUnits) {
    lastProseEvent = null;
    for (const unit of env.proseUnits) {
      if (unit.summary || unit.lessons) continue;
      readStatements(splitStatements(unit.text, { item: unit.item }), 0, null, unit.line);
    }
  }

  readDatedSentences();

  // Entries before the first one that names a zone take that zone too.
  const firstEntryZone = entryZoneSeen as ZoneSpec | null;
  if (firstEntryZone) {
    for (const p of pending) {
      if (!p.local) continue;
      p.at = toUtcIso(p.local, firstEntryZone);
      p.basis = `${p.basis?.split(';')[0] ?? 'day from the date above it'}; zone ${firstEntryZone.label} named on a later entry`;
      p.confidence = 0.7;
      if (p.assumed) zones.assumed--;
      else zones.local--;
      zones.converted++;
    }
  }

  const keys = new KeyAllocator();
  const kept = pending.filter((p) => p.text.trim() !== '' || p.asWritten !== null);
  const decisions: EventDecision[] = kept.map((p) => ({ line: p.line ?? null, confidence: p.confidence ?? 0.5, basis: p.basis ?? 'read from a sentence' }));
  const events: TimelineEventDocument[] = kept
    .map((p) => {
      const text = toMarkdownInline(p.text, env.format) || (p.asWritten ?? '');
      const base = slugify(markdownToPlain(text), { maxWords: 5, maxLength: 48 });
      return {
        key: keys.allocate(p.clockTag ? `${base || 'event'}-${p.clockTag}` : base, 'event'),
        asWritten: p.asWritten,
        at: p.at,
        precision: p.precision,
        kind: classifyEventKind(text),
        text,
      };
    });
  return { events, prose, zones, fromProse, decisions };
}
