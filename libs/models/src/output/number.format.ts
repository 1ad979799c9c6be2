/**
 * The one number formatter of model output. The CLI, the check explanations, the verdict
 * reasons, the SVG renderer and the web pages (charts, tables, chart text) all print numbers
 * through these functions, so a figure reads the same wherever it appears: thousands grouped
 * with commas, a typographic minus (U+2212), ratios as percentages.
 */

const MINUS = '−';

/**
 * A number as a reader writes it, the one grammar of typed numbers (the CLI's figure targets,
 * the page's fields): an optional sign, digits with an optional point, an optional exponent.
 * `Number()` alone would also take `0x1f`, `Infinity`, `1_000` or an empty string. Text of this
 * form may still be beyond a double (`1e400` reads as Infinity): check the value is finite.
 */
export const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Locale-independent number text: thousands grouped, small values to three significant digits. */
export function formatNumber(x: number | null): string {
  if (x === null || Number.isNaN(x)) return 'n/a';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : `${MINUS}∞`;
  const a = Math.abs(x);
  let text: string;
  if (a >= 1000) text = groupThousands(Math.round(a));
  else if (a >= 100) text = String(Math.round(a));
  else if (a >= 10) text = String(Math.round(a * 10) / 10);
  else if (a === 0) return '0';
  else text = String(Number(a.toPrecision(3)));
  // Below 1e-6 JavaScript writes an exponent ("4.95e-13"): written out for a reader instead.
  const e = text.indexOf('e');
  if (e > 0) text = `${text.slice(0, e)} × 10${superscript(text.slice(e + 1))}`;
  return x < 0 && text !== '0' ? `${MINUS}${text}` : text;
}

const SUPERSCRIPT: Record<string, string> = { '-': '⁻', '+': '', '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹' };

function superscript(exponent: string): string {
  return [...exponent].map((c) => SUPERSCRIPT[c] ?? c).join('');
}

function groupThousands(n: number): string {
  const s = String(n);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return out;
}

/**
 * Short tick text: `40k`, `1.5M`. Tick labels share a narrow margin, so they stay within five
 * characters; exact figures are printed with {@link formatNumber}.
 */
export function formatTickNumber(x: number): string {
  const a = Math.abs(x);
  const sign = x < 0 ? MINUS : '';
  const trim = (v: number) => String(Number(v.toFixed(2)));
  if (a >= 1e9) return `${sign}${trim(a / 1e9)}G`;
  if (a >= 1e6) return `${sign}${trim(a / 1e6)}M`;
  if (a >= 1e4) return `${sign}${trim(a / 1e3)}k`;
  if (a >= 1000) return `${sign}${groupThousands(Math.round(a))}`;
  return a === 0 ? '0' : `${sign}${trim(a)}`;
}

/** Ratios (0–1) read better as percentages; everything else keeps its own unit. */
export function displayScale(unit: string): { factor: number; unit: string; axisTitle: string } {
  if (unit === 'ratio') return { factor: 100, unit: '%', axisTitle: 'per cent (%)' };
  return { factor: 1, unit, axisTitle: unit };
}

/** A value with its unit, as summaries, tables, checks and verdicts print it: "40,000 sessions", "97.5 %". */
export function formatQuantity(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return 'n/a';
  const scale = displayScale(unit);
  const text = formatNumber(value * scale.factor);
  return scale.unit ? `${text} ${scale.unit}` : text;
}

/** A share (0.02 → "2 %"). */
export function formatPercent(x: number): string {
  return formatQuantity(x, 'ratio');
}

const DURATION_UNITS = [
  { limit: 2 * 3600, seconds: 3600, unit: 'h' },
  { limit: 120, seconds: 60, unit: 'min' },
  { limit: 0, seconds: 1, unit: 's' },
];

/** A length of simulated time in the unit a reader would use: "90 s", "10 min", "3 h". */
export function formatDuration(seconds: number): string {
  const unit = DURATION_UNITS.find((u) => Math.abs(seconds) >= u.limit) ?? DURATION_UNITS[DURATION_UNITS.length - 1]!;
  return `${formatNumber(seconds / unit.seconds)} ${unit.unit}`;
}

/** The unit {@link formatDuration} and simulated time axes use for a span: h, min or s. */
export function durationUnit(span: number): { seconds: number; unit: string } {
  return DURATION_UNITS.find((u) => span >= u.limit) ?? DURATION_UNITS[DURATION_UNITS.length - 1]!;
}

/** Rounds to 6 significant digits for output (smaller JSON, same bytes on every run). */
export function round6(x: number): number | null {
  if (!Number.isFinite(x)) return null;
  if (x === 0) return 0;
  return Number(x.toPrecision(6));
}
