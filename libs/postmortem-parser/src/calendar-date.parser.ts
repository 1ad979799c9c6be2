import * as chrono from 'chrono-node';
/** A calendar day as written; `year` is null when the text leaves it out ("March 31st"). */
export interface CalendarDate {
  year: number | null;
  month: number;
  day: number;
}

export interface FoundDate {
  date: CalendarDate;
  /** The date exactly as written. */
  text: string;
  index: number;
}

/** Day-first is the rule outside English (22/2 is the 22nd of February in Vietnamese and German). */
export interface DateReadingHints {
  dayFirst?: boolean;
}

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
  januar: 1, jänner: 1, februar: 2, märz: 3, maerz: 3, mai: 5, juni: 6, juli: 7, okt: 10, oktober: 10, dez: 12, dezember: 12,
  janvier: 1, janv: 1, février: 2, fevrier: 2, févr: 2, mars: 3, avril: 4, avr: 4, juin: 6, juillet: 7, juil: 7,
  août: 8, aout: 8, septembre: 9, octobre: 10, novembre: 11, décembre: 12, decembre: 12,
  enero: 1, febrero: 2, marzo: 3, abril: 4, mayo: 5, junio: 6, julio: 7, agosto: 8, septiembre: 9, setiembre: 9,
  octubre: 10, noviembre: 11, diciembre: 12,
};

// Longest names first so "september" is not read as "sep" followed by letters.
export const MONTH_ALTERNATION = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');

export const WEEKDAY_ALTERNATION =
  'monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|' +
  'montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|' +
  'lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo|thứ hai|thứ ba|thứ tư|thứ năm|thứ sáu|thứ bảy|chủ nhật';

export function monthNumber(name: string): number | null {
  return MONTHS[name.toLowerCase().replace(/\.$/, '')] ?? null;
}

export function expandYear(year: string | undefined): number | null {
  if (year === undefined) return null;
  const n = Number(year);
  if (year.length === 2) return n < 70 ? 2000 + n : 1900 + n;
  return n;
}

function valid(year: number | null, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  if (year !== null && (year < 1970 || year > 2100)) return false;
  if (year !== null) {
    const d = new Date(Date.UTC(year, month - 1, day));
    return d.getUTCMonth() === month - 1;
  }
  return true;
}

type Reader = { pattern: RegExp; read: (m: RegExpExecArray, hints: DateReadingHints) => CalendarDate | null };

const L = '(?<![\\p{L}\\p{N}])';
const R = '(?![\\p{L}\\p{N}])';

const READERS: Reader[] = [
  {
    pattern: new RegExp(`${L}(\\d{4})-(\\d{1,2})-(\\d{1,2})(?!\\d)`, 'gu'),
    read: (m) => ({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }),
  },
  {
    pattern: new RegExp(`${L}(\\d{4})/(\\d{1,2})/(\\d{1,2})(?!\\d)`, 'gu'),
    read: (m) => ({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }),
  },
  {
    // 23.01.2011, "23. 01. 2011", 14.03.
    pattern: new RegExp(`(?<![\\p{L}\\p{N}.])(\\d{1,2})\\.\\s?(\\d{1,2})\\.(?:\\s?(\\d{4}))?(?![\\d])`, 'gu'),
    read: (m) => ({ year: expandYear(m[3]), month: Number(m[2]), day: Number(m[1]) }),
  },
  {
    pattern: new RegExp(`${L}(?:ngày\\s+)?(\\d{1,2})\\s+tháng\\s+(\\d{1,2})(?:\\s+năm\\s+(\\d{4}))?${R}`, 'giu'),
    read: (m) => ({ year: expandYear(m[3]), month: Number(m[2]), day: Number(m[1]) }),
  },
  {
    pattern: new RegExp(`${L}(${MONTH_ALTERNATION})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?(?![\\p{N}:])`, 'giu'),
    read: (m) => ({ year: expandYear(m[3]), month: monthNumber(m[1]) ?? 0, day: Number(m[2]) }),
  },
  {
    pattern: new RegExp(`${L}(\\d{1,2})(?:st|nd|rd|th|\\.)?\\s+(?:de\\s+)?(${MONTH_ALTERNATION})\\.?(?:,?\\s+(?:de\\s+)?(\\d{4}))?${R}`, 'giu'),
    read: (m) => ({ year: expandYear(m[3]), month: monthNumber(m[2]) ?? 0, day: Number(m[1]) }),
  },
  {
    // 2/22/22, 22/2, 2-22-22. A dash needs the year, or "3-5 minutes" would be a date.
    pattern: new RegExp(`${L}(\\d{1,2})([/-])(\\d{1,2})(?:\\2(\\d{4}|\\d{2}))?(?![\\d/])`, 'gu'),
    read: (m, hints) => {
      if (m[2] === '-' && m[4] === undefined) return null;
      const a = Number(m[1]);
      const b = Number(m[3]);
      const dayFirst = a > 12 ? true : b > 12 ? false : hints.dayFirst ?? false;
      return { year: expandYear(m[4]), month: dayFirst ? b : a, day: dayFirst ? a : b };
    },
  },
];

const CJK_DATE = /\d\s*[月日]/;
const CHRONO_REFERENCE = new Date(Date.UTC(2000, 0, 1));

/** Dates written the Chinese and Japanese way ("2023年11月5日", "4 月 9 日"), read by chrono-node. */
function cjkDates(text: string): FoundDate[] {
  const out: FoundDate[] = [];
  for (const parser of [chrono.zh, chrono.ja]) {
    for (const r of parser.parse(text, CHRONO_REFERENCE)) {
      const month = r.start.get('month');
      const day = r.start.get('day');
      if (!r.start.isCertain('month') || !r.start.isCertain('day') || month === null || day === null || !/[月日]/.test(r.text)) continue;
      out.push({ date: { year: r.start.isCertain('year') ? r.start.get('year') : null, month, day }, text: r.text, index: r.index });
    }
  }
  return out;
}

/** Every date written in a text, in order of appearance (overlapping readings dropped). */
export function findDates(text: string, hints: DateReadingHints = {}): FoundDate[] {
  const found: FoundDate[] = [];
  // Characters already claimed by an earlier reader; a lookup table keeps long texts linear.
  const claimed = new Uint8Array(text.length);
  if (CJK_DATE.test(text)) {
    for (const d of cjkDates(text)) {
      const end = d.index + d.text.length;
      if (!valid(d.date.year, d.date.month, d.date.day) || claimed.subarray(d.index, end).some((c) => c === 1)) continue;
      claimed.fill(1, d.index, end);
      found.push(d);
    }
  }
  for (const reader of READERS) {
    reader.pattern.lastIndex = 0;
    for (const m of text.matchAll(reader.pattern)) {
      const date = reader.read(m, hints);
      if (!date || !valid(date.year, date.month, date.day)) continue;
      const index = m.index ?? 0;
      const end = index + m[0].length;
      if (claimed.subarray(index, end).some((c) => c === 1)) continue;
      claimed.fill(1, index, end);
      found.push({ date, text: m[0], index });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

export function findFirstDate(text: string, hints: DateReadingHints = {}): FoundDate | null {
  return findDates(text, hints)[0] ?? null;
}

export function addDays(date: CalendarDate, days: number): CalendarDate {
  if (date.year === null) {
    // Without a year, any leap year keeps 29 February reachable.
    const d = new Date(Date.UTC(2000, date.month - 1, date.day + days));
    return { year: null, month: d.getUTCMonth() + 1, day: d.getUTCDate() };
  }
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function isoDate(date: CalendarDate & { year: number }): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}
