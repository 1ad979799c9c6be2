/** Compact, locale-independent number text for summaries and chart labels. */
export function formatNumber(x: number | null): string {
  if (x === null || Number.isNaN(x)) return 'n/a';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const a = Math.abs(x);
  if (a >= 1000) return groupThousands(Math.round(x));
  if (a >= 100) return String(Math.round(x));
  if (a >= 10) return String(Math.round(x * 10) / 10);
  if (a === 0) return '0';
  return String(Number(x.toPrecision(3)));
}

function groupThousands(n: number): string {
  const s = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return n < 0 ? `-${out}` : out;
}

/** Rounds to 6 significant digits for output (smaller JSON, same bytes on every run). */
export function round6(x: number): number | null {
  if (!Number.isFinite(x)) return null;
  if (x === 0) return 0;
  return Number(x.toPrecision(6));
}

export function formatPercent(x: number): string {
  return `${formatNumber(x * 100)} %`;
}
