import type { TimePrecision } from '@hindsight/domain';

/** How sure the source was about a time, in words a reader needs no glossary for. */
export const PRECISION_LABELS: Record<TimePrecision, string> = {
  second: 'to the second',
  minute: 'to the minute',
  ten_minutes: 'within ten minutes',
  hour: 'within the hour',
  day: 'day only',
  approximate: 'approximate',
  none: 'no time given',
};

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * An instant shown no more precisely than the source knew it: a `ten_minutes` time is the
 * interval `02:30–02:39`, a `day` time has no clock part. Always UTC, and says so.
 */
export function formatInstant(at: Date, precision: TimePrecision): string {
  const date = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
  const hh = pad(at.getUTCHours());
  const mm = pad(at.getUTCMinutes());
  switch (precision) {
    case 'second':
      return `${date} ${hh}:${mm}:${pad(at.getUTCSeconds())} UTC`;
    case 'minute':
      return `${date} ${hh}:${mm} UTC`;
    case 'ten_minutes': {
      const start = Math.floor(at.getUTCMinutes() / 10) * 10;
      return `${date} ${hh}:${pad(start)}–${hh}:${pad(start + 9)} UTC`;
    }
    case 'hour':
      return `${date} ${hh}:00–${hh}:59 UTC`;
    case 'day':
      return date;
    case 'approximate':
      return `about ${date} ${hh}:${mm} UTC`;
    case 'none':
      return date;
  }
}

/** Calendar date of a `date` column (stored as midnight UTC). */
export function formatDate(day: Date): string {
  return day.toISOString().slice(0, 10);
}
