import { addDays, findDates, type CalendarDate } from './calendar-date.parser';
import { parseLeadingTime, type ClockTime } from './time-expression.parser';
import type { ZoneSpec } from './time-zone.resolver';

/**
 * The first expression of a day in a sentence, in any of the languages the importer reads:
 * an absolute date ("2024-03-17", "March 3rd", "3月5日", with a time after it if one follows),
 * or a day stated relative to another ("the day after", "第二天", "am nächsten Tag", "on
 * Saturday", "24 日", "today"). A relative day is resolved by `resolveDay` against the last
 * absolute date before it (or, for "today", the document's own date).
 */
export interface DayExpression {
  /** As written. */
  text: string;
  index: number;
  /** An absolute date (its year may be missing). */
  date: CalendarDate | null;
  relative: RelativeDay | null;
  clock: ClockTime | null;
  zone: ZoneSpec | null;
}

export type RelativeDay =
  | { kind: 'offset'; days: number }
  | { kind: 'today' }
  | { kind: 'weekday'; weekday: number }
  | { kind: 'day-of-month'; day: number };

const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';
const phrases = (list: readonly string[]) => list.join('|');

// One day later than the last date the text named.
const NEXT_DAY = phrases([
  'the day after', 'the next day', 'the following day', 'the next morning', 'the following morning', 'next morning', 'the day after that',
  'am nächsten tag', 'am folgenden tag', 'am tag darauf', 'am nächsten morgen', 'le lendemain', 'le jour suivant', 'al día siguiente',
  'el día siguiente', 'a la mañana siguiente', 'no dia seguinte', 'ngày hôm sau', 'hôm sau', 'на следующий день', 'назавтра', 'наутро',
]);
const NEXT_DAY_CJK = '第二天|第二日|次日|翌日|翌朝|隔天|隔日|次の日|다음 날|다음날|이튿날';
const PREVIOUS_DAY = phrases([
  'the day before', 'the previous day', 'the night before', 'the evening before', 'am vortag', 'am tag davor', 'la veille', 'el día anterior',
  'no dia anterior', 'hôm trước', 'накануне',
]);
const PREVIOUS_DAY_CJK = '前一天|前一日|前日|前天晚上|전날';
// The day the document was written.
const TODAY = phrases(['today', 'this morning', 'this afternoon', 'this evening', 'tonight', 'heute', "aujourd'hui", 'hoy', 'hoje', 'hôm nay', 'сегодня']);
const TODAY_CJK = '今天|今日|今晚|今早|本日|오늘';

const WEEKDAYS: [RegExp, number][] = [
  [/^(?:sun(?:day)?|sonntag|dimanche|domingo|chủ nhật|воскресенье|日曜日?|星期日|星期天|周日|週日|礼拜天|禮拜天|일요일)$/iu, 0],
  [/^(?:mon(?:day)?|montag|lundi|lunes|segunda(?:-feira)?|thứ hai|понедельник|月曜日?|星期一|周一|週一|礼拜一|월요일)$/iu, 1],
  [/^(?:tue(?:s(?:day)?)?|dienstag|mardi|martes|terça(?:-feira)?|thứ ba|вторник|火曜日?|星期二|周二|週二|礼拜二|화요일)$/iu, 2],
  [/^(?:wed(?:nesday)?|mittwoch|mercredi|miércoles|quarta(?:-feira)?|thứ tư|среда|среду|水曜日?|星期三|周三|週三|礼拜三|수요일)$/iu, 3],
  [/^(?:thu(?:rs(?:day)?)?|donnerstag|jeudi|jueves|quinta(?:-feira)?|thứ năm|четверг|木曜日?|星期四|周四|週四|礼拜四|목요일)$/iu, 4],
  [/^(?:fri(?:day)?|freitag|vendredi|viernes|sexta(?:-feira)?|thứ sáu|пятница|пятницу|金曜日?|星期五|周五|週五|礼拜五|금요일)$/iu, 5],
  [/^(?:sat(?:urday)?|samstag|sonnabend|samedi|sábado|thứ bảy|суббота|субботу|土曜日?|星期六|周六|週六|礼拜六|토요일)$/iu, 6],
];
// A weekday counts as a day only after a preposition ("on Saturday", "am Samstag", "le samedi"),
// before a part of the day ("Saturday morning"), or in the CJK forms, which are unambiguous.
const LATIN_WEEKDAY = '(?:sun|mon|tues|wednes|thurs|fri|satur)day|sonntag|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|dimanche|lundi|mardi|mercredi|jeudi|vendredi|samedi|domingo|lunes|martes|miércoles|jueves|viernes|sábado|segunda-feira|terça-feira|quarta-feira|quinta-feira|sexta-feira';
const WEEKDAY_PHRASE = new RegExp(
  `${B}(?:(?:on|last|that|am|le|el|na|no|в|vào)\\s+(${LATIN_WEEKDAY}|thứ (?:hai|ba|tư|năm|sáu|bảy)|chủ nhật|воскресенье|понедельник|вторник|среду|четверг|пятницу|субботу)|(${LATIN_WEEKDAY})\\s+(?:morning|afternoon|evening|night|früh|morgen|abend|nachmittag|matin|soir))${E}` +
    `|((?:星期|周|週|礼拜|禮拜)[一二三四五六日天]|[月火水木金土日]曜日|[일월화수목금토]요일)`,
  'giu',
);
const RELATIVE = new RegExp(
  `${B}(?:(${NEXT_DAY})|(${PREVIOUS_DAY})|(${TODAY}))${E}|(${NEXT_DAY_CJK})|(${PREVIOUS_DAY_CJK})|(${TODAY_CJK})`,
  'giu',
);
// "24 日晚": a day of the month the text is in (Chinese, Japanese), not "3 日間" (three days).
const DAY_OF_MONTH = /(?<!\d)(?<!月\s{0,2})(\d{1,2})\s*[日号號](?![間间内後后前以])/gu;

function weekdayOf(word: string): number | null {
  for (const [pattern, n] of WEEKDAYS) if (pattern.test(word.trim())) return n;
  return null;
}

/** The first day expression of a sentence, absolute or relative; null when it names no day. */
export function findDayExpression(text: string, hints: { dayFirst?: boolean } = {}): DayExpression | null {
  const found: DayExpression[] = [];
  for (const d of findDates(text, hints)) {
    // A time straight after the date belongs to it ("On 2024-03-17 10h47 CEST ...").
    const lt = parseLeadingTime(text.slice(d.index), hints);
    const withClock = lt?.date && lt.clock ? lt : null;
    found.push({ text: withClock?.asWritten ?? d.text, index: d.index, date: d.date, relative: null, clock: withClock?.clock ?? null, zone: withClock?.zone ?? null });
    break;
  }
  const absoluteAt = found[0]?.index ?? Infinity;
  for (const m of text.matchAll(RELATIVE)) {
    const relative: RelativeDay = m[1] || m[4] ? { kind: 'offset', days: 1 } : m[2] || m[5] ? { kind: 'offset', days: -1 } : { kind: 'today' };
    found.push({ text: m[0], index: m.index, date: null, relative, ...clockAfter(text, m.index + m[0].length, hints) });
    break;
  }
  for (const m of text.matchAll(WEEKDAY_PHRASE)) {
    const word = m[1] ?? m[2] ?? m[3] ?? '';
    const weekday = weekdayOf(word);
    // "Saturday March 16th": the date is the day; the weekday only names it.
    if (weekday === null || (absoluteAt >= m.index && absoluteAt - (m.index + m[0].length) <= 3)) continue;
    found.push({ text: m[0], index: m.index, date: null, relative: { kind: 'weekday', weekday }, ...clockAfter(text, m.index + m[0].length, hints) });
    break;
  }
  for (const m of text.matchAll(DAY_OF_MONTH)) {
    const day = Number(m[1]);
    if (day < 1 || day > 31) continue;
    // Part of an absolute date already found.
    if (m.index >= absoluteAt && m.index < absoluteAt + (found[0]?.text.length ?? 0)) continue;
    found.push({ text: m[0], index: m.index, date: null, relative: { kind: 'day-of-month', day }, ...clockAfter(text, m.index + m[0].length, hints) });
    break;
  }
  found.sort((a, b) => a.index - b.index);
  return found[0] ?? null;
}

/** "今日晚 22:24", "the day after at 09:00": a clock right after a relative day. */
function clockAfter(text: string, end: number, hints: { dayFirst?: boolean }): { clock: ClockTime | null; zone: ZoneSpec | null } {
  const after = text.slice(end).replace(/^\s*(?:at|um|à|a las|lúc|в)?\s*/iu, '');
  const lt = parseLeadingTime(after, hints);
  if (lt && !lt.date && lt.clock) return { clock: lt.clock, zone: lt.zone };
  return { clock: null, zone: null };
}

/**
 * The calendar day a relative expression names: an offset from the last absolute date, the
 * latest such weekday on or before it, a day of its month; "today" is the document's own date
 * (else the last date). Null when there is nothing to count from.
 */
export function resolveDay(relative: RelativeDay, anchor: CalendarDate | null, documentDate: CalendarDate | null): CalendarDate | null {
  switch (relative.kind) {
    case 'offset':
      return anchor ? addDays(anchor, relative.days) : null;
    case 'today':
      return documentDate ?? anchor;
    case 'day-of-month':
      return anchor ? { year: anchor.year, month: anchor.month, day: relative.day } : null;
    case 'weekday': {
      if (!anchor || anchor.year === null) return null;
      const current = new Date(Date.UTC(anchor.year, anchor.month - 1, anchor.day)).getUTCDay();
      return addDays(anchor, -((current - relative.weekday + 7) % 7));
    }
  }
}
