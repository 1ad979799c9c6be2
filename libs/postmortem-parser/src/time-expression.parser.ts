import type { TimePrecision } from '@hindsight/domain';
import { MONTH_ALTERNATION, WEEKDAY_ALTERNATION, expandYear, monthNumber, type CalendarDate } from './calendar-date.parser';
import { resolveZone, type ZoneSpec } from './time-zone.resolver';

export interface ClockTime {
  hour: number;
  minute: number;
  second: number;
}

/** A time (and maybe a date) found at the start of a timeline line. */
export interface LeadingTime {
  /** The time text exactly as written, prefixes and suffixes such as "(ca.)" included. */
  asWritten: string;
  /** What follows the time, separators removed. */
  rest: string;
  date: CalendarDate | null;
  /** Null for a date on its own. */
  clock: ClockTime | null;
  zone: ZoneSpec | null;
  precision: TimePrecision;
}

const OPENERS = /(?:\*\*|__|'''|''|`|\[|\*|_)*/y;
const CLOSING: Record<string, string> = { '[': ']' };
const APPROX_PREFIX =
  /(?:\(\s*(?:ca\.?|approx\.?|circa|~)\s*\)|~|≈|ca\.|circa|approx\.|approximately|approx|around|about|roughly|gegen|etwa|ungefähr|vers|environ|alrededor de las|alrededor de|hacia las|sobre las|khoảng)\s*/iy;
const APPROX_SUFFIX = /\s*\(\s*(?:ca\.?|approx\.?|approximately|approximate|est\.?|estimated|circa|~|ungefähr|env\.?|aprox\.?)\s*\)|\s+(?:ca\.|approx\.)(?=\s|$)/iy;
const WEEKDAY = new RegExp(`(?:${WEEKDAY_ALTERNATION})\\.?,?\\s+`, 'iuy');
const ISO_DATE = /(\d{4})-(\d{2})-(\d{2})/y;
const SLASH_YMD = /(\d{4})\/(\d{1,2})\/(\d{1,2})/y;
// "11-04 09:15": month and day without a year, only when a time follows.
const DASH_MD = /(\d{1,2})-(\d{1,2})(?=[ T]\d{1,2}[:h]\d)/y;
const DOT_DMY = /(\d{1,2})\.(\d{1,2})\.(\d{4})?/y;
// "2013 年 10 月 2 日", "3月5日", "10 月 1 日晚": dates written with 年/月/日 (Chinese, Japanese), spaces allowed.
const CJK_YMD = /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]/y;
/** Parts of the day written after a CJK date or before a clock: 晚 (evening), 下午 (afternoon), 午後, …; `pm` moves a 12-hour clock. */
export const CJK_PART_OF_DAY = /\s*(凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜間|夜间|深夜|午前|午後|夕方|早|晚|夜|朝)/y;
const CJK_PM = /^(?:下午|傍晚|晚上|夜里|夜間|夜间|深夜|午後|夕方|晚|夜)$/;
// "3点", "15時20分", "下午3点半".
const CJK_CLOCK_AHEAD = /^\s*(?:(?:凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜間|夜间|深夜|午前|午後|夕方|早|晚|夜|朝)\s*\d|\d{1,2}\s*[点點時时])/;
const CJK_CLOCK = /\s*(\d{1,2})\s*[点點時时](?:\s*(\d{1,2})\s*分|(半))?/y;
const SLASH_DATE = /(\d{1,2})\/(\d{1,2})(?:\/(\d{4}|\d{2}))?/y;
const NAMED_MDY = new RegExp(`(${MONTH_ALTERNATION})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?(?![\\d:])`, 'iuy');
const NAMED_DMY = new RegExp(`(\\d{1,2})(?:st|nd|rd|th|\\.)?\\s+(?:de\\s+)?(${MONTH_ALTERNATION})\\.?(?:,?\\s+(?:de\\s+)?(\\d{4}))?(?![\\p{L}\\d])`, 'iuy');
const DATE_TIME_SEPARATOR = /(?:T|,?\s+(?:at\s+|um\s+|à\s+|a las\s+|lúc\s+)?|,\s*)/iy;
// Minutes and seconds may be blurred with X (02:3X is "some time in 02:30–02:39").
const CLOCK = /(\d{1,2})[:h](\d{2}|\d[xX]|[xX]{2})(?::(\d{2}|\d[xX]|[xX]{2}))?(?:[.,]\d{1,6})?(?![\d:])/y;
const HOUR_12 = /(\d{1,2})\s?([ap])\.?\s?m\.?(?![\p{L}])/iuy;
const MERIDIEM = /\s?([ap])\.?\s?m\.?(?![\p{L}])/iuy;
const UHR = /\s?Uhr(?![\p{L}])/uy;
const ZONE = /\s?\(?(Z(?![\p{L}\d])|(?:UTC|GMT)(?:\s?[+\-−]\s?\d{1,2}(?::?\d{2})?)?|[+\-−]\d{2}:?\d{2}|[A-Z]{2,5}(?![\p{L}\d]))\)?/uy;
const RANGE_SEPARATOR = /\s?(?:–|—|-|→|->|to|until|till|bis|à|a|đến)\s?/iy;
const REST_SEPARATORS = /^\s*(?:(?:[-–—:|,>，：、；]|\.(?!\d))+\s*)*/;

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  take(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.pos;
    const m = pattern.exec(this.text);
    if (m) this.pos = pattern.lastIndex;
    return m;
  }
}

interface ParsedClock {
  clock: ClockTime;
  precision: TimePrecision;
}

/** A clock with an optional CJK part of the day before it: "下午3点半", "晚 22:24", "15時20分". */
function readCjkClock(cursor: Cursor): ParsedClock | null {
  const start = cursor.pos;
  const part = cursor.take(CJK_PART_OF_DAY)?.[1] ?? null;
  const pm = part !== null && CJK_PM.test(part);
  cursor.take(/\s*/y);
  const latin = readClock(cursor, false);
  if (latin) {
    if (pm && latin.clock.hour < 12) latin.clock.hour += 12;
    return latin;
  }
  const m = cursor.take(CJK_CLOCK);
  if (m) {
    let hour = Number(m[1]);
    const minute = m[3] ? 30 : m[2] ? Number(m[2]) : 0;
    if (pm && hour < 12) hour += 12;
    if (hour <= 23 && minute <= 59) return { clock: { hour, minute, second: 0 }, precision: m[2] || m[3] ? 'minute' : 'hour' };
  }
  cursor.pos = start;
  return null;
}

function readClock(cursor: Cursor, cjk = true): ParsedClock | null {
  if (cjk && CJK_CLOCK_AHEAD.test(cursor.text.slice(cursor.pos, cursor.pos + 12))) {
    const c = readCjkClock(cursor);
    if (c) return c;
  }
  const start = cursor.pos;
  const m = cursor.take(CLOCK);
  if (m) {
    let hour = Number(m[1]);
    const minuteText = m[2];
    const secondText = m[3];
    let precision: TimePrecision = 'minute';
    let minute: number;
    if (/^[xX]{2}$/.test(minuteText)) {
      minute = 0;
      precision = 'hour';
    } else if (/[xX]$/.test(minuteText)) {
      minute = Number(minuteText[0]) * 10;
      precision = 'ten_minutes';
    } else {
      minute = Number(minuteText);
    }
    let second = 0;
    if (secondText !== undefined && precision === 'minute') {
      if (/^\d{2}$/.test(secondText)) {
        second = Number(secondText);
        precision = 'second';
      }
    }
    const meridiem = cursor.take(MERIDIEM);
    if (meridiem) {
      if (hour < 1 || hour > 12) {
        cursor.pos = start;
        return null;
      }
      hour = (hour % 12) + (meridiem[1].toLowerCase() === 'p' ? 12 : 0);
    }
    if (hour > 23 || minute > 59 || second > 59) {
      cursor.pos = start;
      return null;
    }
    return { clock: { hour, minute, second }, precision };
  }
  const h12 = cursor.take(HOUR_12);
  if (h12) {
    const hour = Number(h12[1]);
    if (hour < 1 || hour > 12) {
      cursor.pos = start;
      return null;
    }
    return { clock: { hour: (hour % 12) + (h12[2].toLowerCase() === 'p' ? 12 : 0), minute: 0, second: 0 }, precision: 'hour' };
  }
  return null;
}

function readZone(cursor: Cursor): ZoneSpec | null {
  const start = cursor.pos;
  const m = cursor.take(ZONE);
  if (!m) return null;
  const raw = m[0].trim();
  // A lone "(" or ")" belongs to the zone only when both are there.
  if (raw.startsWith('(') !== raw.endsWith(')')) {
    cursor.pos = start;
    return null;
  }
  const zone = resolveZone(m[1].replace('−', '-'));
  if (!zone) cursor.pos = start;
  return zone;
}

function readDate(cursor: Cursor, hints: { dayFirst?: boolean }): CalendarDate | null {
  const start = cursor.pos;
  cursor.take(WEEKDAY);
  const afterWeekday = cursor.pos;
  let m = cursor.take(CJK_YMD);
  if (m) return checked({ year: m[1] ? Number(m[1]) : null, month: Number(m[2]), day: Number(m[3]) }, cursor, start);
  m = cursor.take(ISO_DATE) ?? cursor.take(SLASH_YMD);
  if (m) return checked({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, cursor, start);
  m = cursor.take(DASH_MD);
  if (m) return checked({ year: null, month: Number(m[1]), day: Number(m[2]) }, cursor, start);
  m = cursor.take(NAMED_MDY);
  if (m) return checked({ year: expandYear(m[3]), month: monthNumber(m[1]) ?? 0, day: Number(m[2]) }, cursor, start);
  cursor.pos = afterWeekday;
  m = cursor.take(NAMED_DMY);
  if (m) return checked({ year: expandYear(m[3]), month: monthNumber(m[2]) ?? 0, day: Number(m[1]) }, cursor, start);
  cursor.pos = afterWeekday;
  m = cursor.take(DOT_DMY);
  if (m && (m[3] !== undefined || /^\s+\d{1,2}[:h]\d/.test(cursor.text.slice(cursor.pos)))) {
    return checked({ year: expandYear(m[3]), month: Number(m[2]), day: Number(m[1]) }, cursor, start);
  }
  cursor.pos = afterWeekday;
  // 2/22/2022 or 22/2/2022: which part is the day depends on the language, unless one is > 12.
  // Without a year only when a time follows, so "1/2 of the fleet" stays text.
  m = cursor.take(SLASH_DATE);
  if (m && (m[3] !== undefined || /^\s+\d{1,2}[:h]\d/.test(cursor.text.slice(cursor.pos)))) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const dayFirst = a > 12 ? true : b > 12 ? false : hints.dayFirst ?? false;
    return checked({ year: expandYear(m[3]), month: dayFirst ? b : a, day: dayFirst ? a : b }, cursor, start);
  }
  cursor.pos = start;
  return null;
}

function checked(date: CalendarDate, cursor: Cursor, start: number): CalendarDate | null {
  if (date.month >= 1 && date.month <= 12 && date.day >= 1 && date.day <= 31) return date;
  cursor.pos = start;
  return null;
}

/**
 * Reads the time a timeline line starts with: `2016-05-05T02:16:10`, `02:3X`, `(ca.) 03:20`,
 * `10:05 PM PDT`, `~14:00`, `14:00–14:20 UTC`, `March 31, 10:23`, or a date alone. Returns null
 * when the line does not start with a time or a date.
 */
export function parseLeadingTime(input: string, hints: { dayFirst?: boolean } = {}): LeadingTime | null {
  const cursor = new Cursor(input);
  cursor.take(/\s*/y);
  const openers = cursor.take(OPENERS)?.[0] ?? '';
  const start = cursor.pos;
  const approxPrefix = cursor.take(APPROX_PREFIX) !== null;
  const afterPrefix = cursor.pos;

  const date = readDate(cursor, hints);
  let parsed: ParsedClock | null = null;
  if (date) {
    const beforeSeparator = cursor.pos;
    if (/[日号號]$/.test(cursor.text.slice(start, cursor.pos))) {
      // A CJK date may carry a part of the day and a clock straight after it: "10 月 1 日晚", "3月5日下午3点".
      parsed = readCjkClock(cursor);
      if (!parsed) cursor.take(CJK_PART_OF_DAY);
    } else if (cursor.take(DATE_TIME_SEPARATOR)) {
      parsed = readClock(cursor);
      if (!parsed) cursor.pos = beforeSeparator;
    }
  } else {
    parsed = readClock(cursor);
  }
  if (!date && !parsed) return null;
  if (approxPrefix && cursor.pos === afterPrefix) return null;

  let zone: ZoneSpec | null = null;
  let precision: TimePrecision = parsed ? parsed.precision : 'day';
  if (parsed) {
    cursor.take(UHR);
    zone = readZone(cursor);
    // A range keeps its start; the end stays in asWritten.
    const beforeRange = cursor.pos;
    if (cursor.take(RANGE_SEPARATOR) && readClock(cursor)) {
      cursor.take(UHR);
      zone = readZone(cursor) ?? zone;
    } else {
      cursor.pos = beforeRange;
    }
  }
  const approxSuffix = cursor.take(APPROX_SUFFIX) !== null;
  if (approxPrefix || approxSuffix) precision = 'approximate';
  const end = cursor.pos;
  // A date glued to letters ("2016-05-05x") is not a timeline date.
  const next = input.slice(end, end + 1);
  // Chinese and Japanese run words together: a CJK date or clock may be followed by Han or kana.
  if (/[\p{L}\p{N}]/u.test(next) && !(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(next) && /[日号號点點時时分半晚夜朝午]$/u.test(input.slice(start, end)))) return null;
  // Close only the markup opened before the time: "''search1031''" after it is the text's own.
  const closers = [...openers].reverse().map((c) => CLOSING[c] ?? c).join('');
  if (closers && input.startsWith(closers, cursor.pos)) cursor.pos += closers.length;
  const asWritten = input.slice(start, end).trim();
  const rest = input.slice(cursor.pos).replace(REST_SEPARATORS, '').trim();
  return { asWritten, rest, date, clock: parsed?.clock ?? null, zone, precision };
}

/**
 * The date and time a heading names, at its start or after a word or an opening parenthesis
 * ("Update (2025-09-09 11:05 UTC)", "Incident report — March 3, 14:05"); null without a date.
 */
export function findTimeInHeading(text: string, hints: { dayFirst?: boolean } = {}): LeadingTime | null {
  const starts = [0, ...[...text.matchAll(/[\s(\[—–-]+(?=\d|\p{L})/gu)].map((m) => m.index + m[0].length)];
  for (const start of starts) {
    const lt = parseLeadingTime(text.slice(start), hints);
    if (lt?.date && lt.clock) return lt;
  }
  return null;
}
