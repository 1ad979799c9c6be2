import type { ModelRunResult, ModelSeries } from '../output/model-run.types';
import { formatNumber } from '../output/number.format';

export interface RenderChartsOptions {
  /** Other runs of the same model (other scenarios) drawn as dashed lines on the same axes. */
  compareWith?: ModelRunResult[];
  /** Width in pixels; readable from 360 upwards. Default 720. */
  width?: number;
  /** Series keys to draw, in this order. Default: every series of the main run. */
  probes?: string[];
}

const PALETTE = ['#1f5fa8', '#c0392b', '#2e8b57', '#7d3c98', '#b9770e', '#117a8b'];
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** Short axis label: 300k rather than 300,000, so tick labels fit a narrow margin. */
function formatTick(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${formatNumber(v / 1e6)}M`;
  if (a >= 1e4) return `${formatNumber(v / 1e3)}k`;
  return formatNumber(v);
}

function niceStep(range: number, ticks: number): number {
  if (!(range > 0)) return 1;
  const raw = range / ticks;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

function timeStep(horizon: number, maxTicks: number): number {
  return TIME_STEPS.find((s) => horizon / s <= maxTicks) ?? 86400;
}

/** Axis label for a simulated time: wall-clock HH:MM when the model has an origin, else elapsed time. */
export function formatTime(t: number, horizon: number, origin: string | null): string {
  if (origin) {
    const base = Date.parse(origin);
    if (!Number.isNaN(base)) {
      const d = new Date(base + t * 1000);
      const hh = String(d.getUTCHours()).padStart(2, '0');
      const mm = String(d.getUTCMinutes()).padStart(2, '0');
      return horizon < 300 ? `${hh}:${mm}:${String(d.getUTCSeconds()).padStart(2, '0')}` : `${hh}:${mm}`;
    }
  }
  if (horizon <= 180) return `${formatNumber(t)} s`;
  if (horizon <= 3 * 3600) return `${formatNumber(t / 60)} min`;
  return `${formatNumber(t / 3600)} h`;
}

/** Greedy word wrap by an estimated glyph width (no font metrics in a pure function). */
function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function seriesOf(run: ModelRunResult, key: string): ModelSeries | undefined {
  return run.series.find((s) => s.key === key);
}

function unitText(unit: string): string {
  return unit === 'ratio' ? 'share' : unit;
}

interface Panel {
  key: string;
  label: string;
  unit: string;
}

/**
 * Charts of a run as one self-contained SVG string: one panel per probe with labelled axes
 * and units, a legend when runs are compared, the scenario's triggers and interventions
 * marked on the time axis and listed below, and a text summary in <desc> for screen
 * readers. All text is escaped; the markup carries no script and no external reference.
 */
export function renderRunChartsSvg(result: ModelRunResult, options: RenderChartsOptions = {}): string {
  const runs = [result, ...(options.compareWith ?? [])];
  const width = Math.max(320, Math.round(options.width ?? 720));
  const narrow = width < 520;
  const fontSize = narrow ? 11 : 12;
  const left = narrow ? 44 : 56;
  const right = 12;
  const plotW = width - left - right;
  const panelH = Math.round(Math.min(170, Math.max(120, width * 0.28)));
  const keys = options.probes ?? result.series.map((s) => s.key);
  const panels: Panel[] = keys
    .map((k) => seriesOf(result, k))
    .filter((s): s is ModelSeries => s !== undefined)
    .map((s) => ({ key: s.key, label: s.label, unit: s.unit }));
  const horizon = Math.max(...runs.map((r) => r.horizon));
  const origin = result.timeOrigin;
  const idBase = `hs-${result.inputHash.slice(0, 10)}`;
  const out: string[] = [];
  let y = 8;

  // Legend: one entry per run, wrapped to the width.
  const legend: string[] = [];
  if (runs.length > 1) {
    let x = left;
    runs.forEach((r, i) => {
      const text = r.scenario.title;
      const w = 26 + text.length * fontSize * 0.56;
      if (x + w > width - right && x > left) {
        x = left;
        y += fontSize + 8;
      }
      const color = PALETTE[i % PALETTE.length];
      legend.push(
        `<line x1="${x}" y1="${y + fontSize / 2}" x2="${x + 18}" y2="${y + fontSize / 2}" stroke="${color}" stroke-width="2.5"${i > 0 ? ' stroke-dasharray="6 3"' : ''}/>`,
        `<text x="${x + 22}" y="${y + fontSize - 1}" font-size="${fontSize}" fill="#222">${escapeXml(text)}</text>`,
      );
      x += w + 12;
    });
    y += fontSize + 12;
  }
  out.push(...legend);

  const events = result.events;
  const tStep = timeStep(horizon, narrow ? 4 : 7);
  const xOf = (t: number): number => left + (Math.max(0, Math.min(horizon, t)) / horizon) * plotW;

  const maxChars = Math.max(20, Math.floor((width - left - right) / ((fontSize + 1) * 0.58)));
  panels.forEach((panel, index) => {
    // The title wraps at narrow widths; the unit stays with the last line.
    const titleLines = wrap(`${panel.label} (${unitText(panel.unit)})`, maxChars);
    titleLines.forEach((line, i) => {
      out.push(`<text x="${left}" y="${y + fontSize + i * (fontSize + 4)}" font-size="${fontSize + 1}" font-weight="600" fill="#111">${escapeXml(line)}</text>`);
    });
    const top = y + fontSize + 8 + (titleLines.length - 1) * (fontSize + 4);
    const bottom = top + panelH;
    let lo = 0;
    let hi = 0;
    for (const r of runs) {
      const s = seriesOf(r, panel.key);
      if (!s) continue;
      for (const v of s.values) {
        if (v === null) continue;
        if (v > hi) hi = v;
        if (v < lo) lo = v;
      }
    }
    // Rounding noise around zero must not open a negative axis.
    if (lo < 0 && -lo <= 1e-6 * Math.max(1, Math.abs(hi))) lo = 0;
    // A share stays on a 0–1 axis unless it really leaves it (rounding can nudge it past 1).
    if (panel.unit === 'ratio' && hi <= 1.1 && lo >= 0) hi = 1;
    if (hi === lo) hi = lo + 1;
    const step = niceStep(hi - lo, narrow ? 3 : 4);
    const yMin = Math.floor(lo / step) * step;
    const yMax = Math.ceil(hi / step) * step;
    const yOf = (v: number): number => bottom - ((v - yMin) / (yMax - yMin)) * panelH;
    const clip = `${idBase}-c${index}`;
    out.push(`<clipPath id="${clip}"><rect x="${left}" y="${top}" width="${plotW}" height="${panelH}"/></clipPath>`);
    out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${panelH}" fill="#fafafa" stroke="#ccc"/>`);
    for (let v = yMin; v <= yMax + step / 2; v += step) {
      const yy = yOf(v).toFixed(1);
      out.push(`<line x1="${left}" y1="${yy}" x2="${left + plotW}" y2="${yy}" stroke="#e4e4e4"/>`);
      out.push(`<text x="${left - 5}" y="${(yOf(v) + fontSize * 0.35).toFixed(1)}" font-size="${fontSize - 1}" fill="#444" text-anchor="end">${escapeXml(formatTick(v))}</text>`);
    }
    for (let t = 0; t <= horizon + 1e-9; t += tStep) {
      const x = xOf(t);
      const xx = x.toFixed(1);
      // Labels at the plot's edges are anchored inwards so they are not cut off.
      const anchor = x - left < 20 ? 'start' : left + plotW - x < 20 ? 'end' : 'middle';
      out.push(`<line x1="${xx}" y1="${bottom}" x2="${xx}" y2="${bottom + 4}" stroke="#888"/>`);
      out.push(`<text x="${xx}" y="${bottom + fontSize + 4}" font-size="${fontSize - 1}" fill="#444" text-anchor="${anchor}">${escapeXml(formatTime(t, horizon, origin))}</text>`);
    }
    events.forEach((e, i) => {
      const xx = xOf(e.at).toFixed(1);
      out.push(`<line x1="${xx}" y1="${top}" x2="${xx}" y2="${bottom}" stroke="#777" stroke-dasharray="3 3"/>`);
      out.push(`<circle cx="${xx}" cy="${top + 8}" r="7" fill="#fff" stroke="#777"/>`);
      out.push(`<text x="${xx}" y="${top + 8 + fontSize * 0.33}" font-size="${fontSize - 2}" fill="#333" text-anchor="middle">${i + 1}</text>`);
    });
    runs.forEach((r, i) => {
      const s = seriesOf(r, panel.key);
      if (!s) return;
      const color = PALETTE[i % PALETTE.length];
      let d = '';
      let pen = false;
      s.values.forEach((v, j) => {
        if (v === null) {
          pen = false;
          return;
        }
        d += `${pen ? 'L' : 'M'}${xOf(r.time[j]).toFixed(1)} ${yOf(v).toFixed(1)}`;
        pen = true;
      });
      if (d) out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.8" clip-path="url(#${clip})"${i > 0 ? ' stroke-dasharray="6 3"' : ''}/>`);
    });
    y = bottom + fontSize + 18;
  });

  if (events.length > 0) {
    out.push(`<text x="${left}" y="${y + fontSize}" font-size="${fontSize}" font-weight="600" fill="#111">Events</text>`);
    y += fontSize + 6;
    events.forEach((e, i) => {
      y += fontSize + 5;
      out.push(`<text x="${left}" y="${y}" font-size="${fontSize}" fill="#333">${i + 1}. ${escapeXml(formatTime(e.at, horizon, origin))} — ${escapeXml(e.label)}</text>`);
    });
    y += 8;
  }
  const height = Math.ceil(y + 8);
  const title = `${result.model.title} — ${result.scenario.title}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${idBase}-t ${idBase}-d" font-family="${FONT}">`,
    `<title id="${idBase}-t">${escapeXml(title)}</title>`,
    `<desc id="${idBase}-d">${escapeXml(describeRunText(result, options.compareWith ?? []))}</desc>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    ...out,
    '</svg>',
  ].join('\n');
}

function summarise(s: ModelSeries): { min: number; max: number; last: number } | null {
  const vals = s.values.filter((v): v is number => v !== null);
  if (vals.length === 0) return null;
  return { min: Math.min(...vals), max: Math.max(...vals), last: vals[vals.length - 1] };
}

function withUnit(x: number, unit: string): string {
  return unit === 'ratio' ? `${formatNumber(x * 100)} %` : `${formatNumber(x)} ${unit}`;
}

/** Plain-text account of what the charts show, for screen readers and text-only clients. */
export function describeRunText(result: ModelRunResult, compareWith: ModelRunResult[] = []): string {
  const horizon = result.horizon;
  const origin = result.timeOrigin;
  const parts: string[] = [
    `${result.model.title}: scenario "${result.scenario.title}", ${result.mode === 'fluid' ? 'fluid' : 'discrete-event'} model over ${formatTime(horizon, horizon, null)}.`,
  ];
  if (result.events.length > 0) {
    parts.push(`Events: ${result.events.map((e) => `${formatTime(e.at, horizon, origin)} ${e.label}`).join('; ')}.`);
  }
  for (const s of result.series) {
    const m = summarise(s);
    if (!m) continue;
    let line = `${s.label}: between ${withUnit(m.min, s.unit)} and ${withUnit(m.max, s.unit)}, ending at ${withUnit(m.last, s.unit)}.`;
    for (const other of compareWith) {
      const o = other.series.find((x) => x.key === s.key);
      const om = o ? summarise(o) : null;
      if (om) line += ` With "${other.scenario.title}": peak ${withUnit(om.max, s.unit)}, ending at ${withUnit(om.last, s.unit)}.`;
    }
    parts.push(line);
  }
  if (result.checks.length > 0) {
    const passed = result.checks.filter((c) => c.pass).length;
    parts.push(`Checks: ${passed} of ${result.checks.length} pass.`);
  }
  return parts.join(' ');
}
