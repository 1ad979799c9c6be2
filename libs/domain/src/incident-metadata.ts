import { AppError, echo, type FieldProblem } from './app-error';

/** The severity scale when `INCIDENT_SEVERITY_LEVELS` is not set: most severe first. */
export const DEFAULT_SEVERITY_LEVELS: readonly string[] = ['SEV1', 'SEV2', 'SEV3', 'SEV4'];

const LEVEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,29}$/;

export const TAG_LIMITS = { tags: 30, length: 50 } as const;

/** A customer-impact duration longer than this is a typo (a year in minutes). */
export const MAX_IMPACT_MINUTES = 525_600;

/**
 * Reads a severity scale written as comma-separated levels, most severe first
 * (`SEV1,SEV2,SEV3`). Problems name `field`; at least two distinct levels, at most twelve.
 */
export function parseSeverityLevels(raw: string, field: string): { levels: string[]; problems: FieldProblem[] } {
  const levels = raw.split(',').map((l) => l.trim()).filter((l) => l !== '');
  const problems: FieldProblem[] = [];
  const bad = levels.filter((l) => !LEVEL.test(l));
  if (bad.length > 0) problems.push({ field, reason: `levels are letters, digits, "_", "." or "-" (at most 30); got ${bad.map((b) => echo(b)).join(', ')}` });
  const seen = new Set<string>();
  const dupes = levels.filter((l) => (seen.has(l.toLowerCase()) ? true : (seen.add(l.toLowerCase()), false)));
  if (dupes.length > 0) problems.push({ field, reason: `each level once; repeated ${dupes.map((d) => echo(d)).join(', ')}` });
  if (levels.length < 2 || levels.length > 12) problems.push({ field, reason: `expected 2 to 12 comma-separated levels, most severe first; got ${levels.length}` });
  return { levels, problems };
}

/** BAD_USER_INPUT naming `field` unless `level` is null or a level of `scale`. */
export function checkSeverity(level: string | null | undefined, scale: readonly string[], field: string): void {
  if (level === null || level === undefined || scale.includes(level)) return;
  throw AppError.badField(field, `expected one of ${scale.join(', ')} (the configured severity scale) or null; got ${echo(level)}`);
}

/** One tag as stored: NFKC, lower case, runs of spaces and underscores as one dash, only letters, digits and `.+#-`. */
export function normalizeTag(tag: string): string {
  return tag
    .normalize('NFKC')
    .toLowerCase()
    .trim()
    .replace(/[\s_]+/g, '-')
    .replace(/[^\p{L}\p{N}.+#-]/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
}

/** Tags as stored: each normalised, empty ones dropped, distinct, sorted. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normalizeTag).filter((t) => t !== ''))].sort();
}
