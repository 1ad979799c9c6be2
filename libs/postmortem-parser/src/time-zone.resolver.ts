/** A zone as the document named it: a fixed offset or an IANA zone whose offset depends on the date. */
export type ZoneSpec =
  | { kind: 'fixed'; offsetMinutes: number; label: string }
  | { kind: 'iana'; name: string; label: string };

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// Offsets in minutes. US abbreviations win the ambiguous ones (CST, IST, BST are also used
// elsewhere) because English postmortems overwhelmingly mean the US/UK/India zones.
const ABBREVIATIONS: Record<string, number | string> = {
  UTC: 0, GMT: 0, UT: 0, Z: 0, WET: 0, WEST: 60, BST: 60, IST: 330,
  CET: 60, CEST: 120, MEZ: 60, MESZ: 120, EET: 120, EEST: 180, MSK: 180,
  GST: 240, ICT: 420, WIB: 420, SGT: 480, HKT: 480, AWST: 480, JST: 540, KST: 540,
  AEST: 600, AEDT: 660, NZST: 720, NZDT: 780,
  HST: -600, AKST: -540, AKDT: -480, PST: -480, PDT: -420, MST: -420, MDT: -360,
  CST: -360, CDT: -300, EST: -300, EDT: -240, BRT: -180, ART: -180,
  PT: 'America/Los_Angeles', MT: 'America/Denver', CT: 'America/Chicago', ET: 'America/New_York',
};

const NAMED: [RegExp, string][] = [
  [/^pacific( (standard|daylight))?( time)?$/i, 'America/Los_Angeles'],
  [/^mountain( (standard|daylight))?( time)?$/i, 'America/Denver'],
  [/^central( (standard|daylight))?( time)?$/i, 'America/Chicago'],
  [/^eastern( (standard|daylight))?( time)?$/i, 'America/New_York'],
  [/^(heure de paris|paris time)$/i, 'Europe/Paris'],
  [/^(berliner zeit|deutsche zeit)$/i, 'Europe/Berlin'],
  [/^(hora de madrid|hora peninsular)$/i, 'Europe/Madrid'],
  [/^(giờ việt nam|gio viet nam|vietnam time|giờ hà nội)$/i, 'Asia/Ho_Chi_Minh'],
];

const formatters = new Map<string, Intl.DateTimeFormat>();

function isIanaZone(name: string): boolean {
  if (!/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Reads `UTC`, `PDT`, `+02:00`, `UTC+7`, `GMT-08:00`, `Europe/Berlin`, `Pacific Time`; null if not a zone. */
export function resolveZone(token: string): ZoneSpec | null {
  const label = token.trim().replace(/^\(|\)$/g, '').trim();
  if (!label) return null;
  const upper = label.toUpperCase();
  const abbreviation = ABBREVIATIONS[upper];
  if (abbreviation !== undefined && label === upper) {
    return typeof abbreviation === 'number' ? { kind: 'fixed', offsetMinutes: abbreviation, label } : { kind: 'iana', name: abbreviation, label };
  }
  const offset = /^(?:(?:UTC|GMT)\s?)?([+\-−])\s?(\d{1,2})(?::?(\d{2}))?$/i.exec(label);
  if (offset && (/^(UTC|GMT)/i.test(label) || offset[3] !== undefined || label.length >= 5)) {
    const hours = Number(offset[2]);
    const minutes = Number(offset[3] ?? '0');
    if (hours > 14 || minutes > 59) return null;
    const sign = offset[1] === '+' ? 1 : -1;
    return { kind: 'fixed', offsetMinutes: sign * (hours * 60 + minutes), label };
  }
  if (isIanaZone(label)) return { kind: 'iana', name: label, label };
  for (const [pattern, name] of NAMED) if (pattern.test(label)) return { kind: 'iana', name, label };
  return null;
}

function ianaOffsetMinutes(name: string, utcMillis: number): number {
  let formatter = formatters.get(name);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(name, formatter);
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(utcMillis))) parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return Math.round((wall - utcMillis) / 60000);
}

/**
 * The instant, as ISO 8601 UTC, of a wall-clock time in a zone. Without a zone the wall clock is
 * kept unconverted (still written with `Z`, because an instant needs a zone to be stored); the
 * caller records that in the report.
 */
export function toUtcIso(local: LocalDateTime, zone: ZoneSpec | null): string {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  let utc = wall;
  if (zone?.kind === 'fixed') {
    utc = wall - zone.offsetMinutes * 60000;
  } else if (zone?.kind === 'iana') {
    // Two passes settle the offset on both sides of a daylight-saving change.
    const first = ianaOffsetMinutes(zone.name, wall);
    utc = wall - first * 60000;
    const second = ianaOffsetMinutes(zone.name, utc);
    if (second !== first) utc = wall - second * 60000;
  }
  return new Date(utc).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ZONE_TOKEN = /\(\s*([A-Z]{2,5}|(?:UTC|GMT)\s?[+\-−]\s?\d{1,2}(?::?\d{2})?|[A-Za-z]+\/[A-Za-z_]+)\s*\)|\b(UTC|GMT|[A-Z]{3,5})\b(?:\s?([+\-−]\s?\d{1,2}(?::?\d{2})?))?/g;

/**
 * A zone named anywhere in a short text, such as a heading "Timeline of events (UTC)" or a note
 * "All times are PDT". Two-letter abbreviations only count in parentheses, where they cannot be
 * ordinary words.
 */
export function findZoneInText(text: string): ZoneSpec | null {
  for (const match of text.matchAll(ZONE_TOKEN)) {
    const token = match[1] ?? (match[3] ? `${match[2]}${match[3].replace(/\s/g, '')}` : match[2]);
    if (!token) continue;
    const zone = resolveZone(token);
    if (zone) return zone;
  }
  // An IANA name written anywhere ("times below in America/Chicago").
  for (const match of text.matchAll(/(?<![\w/])([A-Z][A-Za-z_]+\/[A-Z][A-Za-z_]+(?:\/[A-Z][A-Za-z_]+)?)(?![\w/])/g)) {
    if (isIanaZone(match[1])) return { kind: 'iana', name: match[1], label: match[1] };
  }
  for (const [pattern, name] of NAMED) {
    const source = pattern.source.replace(/^\^|\$$/g, '');
    const m = new RegExp(source, 'i').exec(text);
    if (m) return { kind: 'iana', name, label: m[0] };
  }
  return null;
}

/**
 * Words that say a line is about the document's times: "All times", "timestamps", "Zeiten",
 * "heures", "horas", "время", "時刻", "时间", "시간", "giờ". A short line naming such a word and a
 * zone, and starting with no time of its own, states the zone of the document's times.
 */
const ZONE_NOTE = /(?<![\p{L}])(?:times?|timestamps?|hours?|clock|zeiten|uhrzeiten|zeitangaben|heures?|horas?|horários?|orari|время|час(?:ов|ы)?|giờ|thời gian)(?![\p{L}])|時刻|時間|时间|時區|时区|시간|시각/iu;
const CLOCK_IN_TEXT = /(?<![+\-−\d])\d{1,2}[:h]\d{2}(?!\d)/;

/** A line that only says which zone the times are in ("All times in UTC.", "(times below in America/Chicago)", "時刻はすべてUTCです"), or null. */
export function parseZoneNote(text: string): ZoneSpec | null {
  const plain = text.replace(/[*_`'"]/g, '').trim();
  if (plain.length > 80 || !ZONE_NOTE.test(plain)) return null;
  // "14:00 UTC: all hands paged" is an event, not a note.
  if (CLOCK_IN_TEXT.test(plain.replace(/(?:UTC|GMT)?\s?[+\-−]\d{1,2}:?\d{2}/g, ''))) return null;
  return findZoneInText(plain);
}
