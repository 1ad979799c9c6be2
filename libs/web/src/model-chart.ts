import { html, joinHtml, type SafeHtml } from './html';
import { displayScale, formatDuration, formatQuantity, formatTickNumber } from '@hindsight/models';
import { downsample, segments, timeAxis, valueAxis, type TimeAxis, type ValueAxis } from './model-chart-scale';

/**
 * Inputs are this file's own small shapes, structurally the same as the model engine's output
 * (a probe's series, a scenario's events), so the pages can pass stored runs straight in while
 * this lib stays free of the engine.
 */
export interface ChartEvent {
  key: string;
  /** Simulated seconds since t = 0. */
  at: number;
  kind: string;
  label: string;
}

export interface ChartLine {
  /** Stable key (a scenario key): classes and data attributes use it. */
  key: string;
  /** What the legend and the summary call it (a scenario title). */
  label: string;
  /** Seconds of each value; shared by every series of a run. */
  time: readonly number[];
  /** One per time; null is a gap in the line, never a zero. */
  values: ReadonlyArray<number | null>;
  /** The run's triggers and interventions, marked on the time axis. */
  events?: readonly ChartEvent[];
  /**
   * A band around the line (a seed ensemble's 10th to 90th percentile per point), drawn as a
   * shaded area behind it and described in the summary; `runs` is the ensemble's size.
   */
  band?: { low: ReadonlyArray<number | null>; high: ReadonlyArray<number | null>; runs: number };
  /** Said in the legend and the summary instead of figures, e.g. "run failed: …" when there is no line. */
  note?: string;
}

export interface ModelChartInput {
  /** Prefix of every id in the chart, unique within the page. */
  idPrefix: string;
  /** What is measured, e.g. "Concurrent sessions". */
  title: string;
  /** Unit of the values; `ratio` is shown as a percentage. */
  unit: string;
  lines: readonly ChartLine[];
  /** Simulated seconds the runs cover. */
  horizon: number;
  /** Wall-clock instant of t = 0, when the model has one: the time axis then reads as UTC clock time. */
  timeOrigin?: string | null;
  /**
   * Drawing size in SVG units (300 × 210 by default). It scales to its box, so this sets the text
   * size relative to the box: 11-unit text in 300 units stays above 10 px in a phone's aside.
   */
  width?: number;
  height?: number;
}

/**
 * One style per line, telling lines apart by dash pattern as well as colour so a chart printed
 * in grey or seen without colour vision still reads. The first (the run as it happened) is solid
 * and heaviest. Every colour has at least 4.5:1 contrast on white.
 */
export const LINE_STYLES: ReadonlyArray<{ stroke: string; width: number; dash: string | null }> = [
  { stroke: '#111827', width: 2.6, dash: null },
  { stroke: '#1d4ed8', width: 2, dash: '7 3' },
  { stroke: '#b45309', width: 2, dash: '2 3' },
  { stroke: '#047857', width: 2, dash: '10 3 2 3' },
  { stroke: '#7e22ce', width: 2, dash: '4 4' },
  { stroke: '#be123c', width: 2, dash: '12 3 3 3 3 3' },
  { stroke: '#0e7490', width: 2, dash: '1 2' },
  { stroke: '#4d7c0f', width: 2, dash: '6 2 1 2' },
];

export function lineStyle(index: number): { stroke: string; width: number; dash: string | null } {
  return LINE_STYLES[index % LINE_STYLES.length]!;
}

/** Text metrics in SVG units; generous for system fonts so estimated widths never undershoot. */
const FONT_SIZE = 11;
const CHAR_WIDTH = FONT_SIZE * 0.62;
const BADGE_RADIUS = 7;
const AXIS_COLOUR = '#374151';
const GRID_COLOUR = '#e5e7eb';
const MARKER_COLOUR = '#4b5563';

const r1 = (n: number) => (Math.round(n * 10) / 10).toString();

/** Ids and class names built from keys keep to letters, digits, `-` and `_`. */
function idSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** A short stroke in a line's style, for legends outside the drawing. */
export function lineSample(index: number): SafeHtml {
  const s = lineStyle(index);
  return html`<svg class="line-sample" width="36" height="12" viewBox="0 0 36 12" aria-hidden="true" focusable="false"><path d="M1,6 L35,6" fill="none" stroke="${s.stroke}" stroke-width="${s.width}"${s.dash ? html` stroke-dasharray="${s.dash}"` : ''}/></svg>`;
}

/** An event marker: one per distinct event across the chart's lines, numbered in time order. */
export interface ChartMarker {
  number: number;
  key: string;
  at: number;
  kind: string;
  label: string;
  /** Labels of the lines whose runs have this event; all of them when it is shared. */
  lines: string[];
}

/** Events of every line, one marker per distinct (key, time), numbered in time order. */
export function chartMarkers(lines: readonly ChartLine[]): ChartMarker[] {
  const byId = new Map<string, Omit<ChartMarker, 'number'>>();
  for (const line of lines) {
    for (const e of line.events ?? []) {
      if (!Number.isFinite(e.at)) continue;
      const id = `${e.key}@${e.at}`;
      const found = byId.get(id);
      if (found) {
        if (!found.lines.includes(line.label)) found.lines.push(line.label);
      } else {
        byId.set(id, { key: e.key, at: e.at, kind: e.kind, label: e.label, lines: [line.label] });
      }
    }
  }
  return [...byId.values()].sort((a, b) => a.at - b.at || a.key.localeCompare(b.key)).map((m, i) => ({ ...m, number: i + 1 }));
}

interface Frame {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
  x(t: number): number;
  y(v: number): number;
}

/**
 * The time axis with as many ticks as fit: labels are estimated at their widest and never closer
 * than their own width plus a gap, so they cannot overlap however narrow the chart is drawn.
 */
function fittedTimeAxis(horizon: number, timeOrigin: string | null | undefined, plotWidth: number): TimeAxis {
  for (let maxTicks = 5; maxTicks > 1; maxTicks--) {
    const axis = timeAxis(horizon, timeOrigin, maxTicks);
    const widest = Math.max(...axis.ticks.map((t) => t.label.length)) * CHAR_WIDTH;
    const spacing = axis.ticks.length > 1 ? (plotWidth * (axis.ticks[1]!.at - axis.ticks[0]!.at)) / (horizon || 1) : Infinity;
    if (spacing >= widest + 8) return axis;
  }
  return timeAxis(horizon, timeOrigin, 1);
}

function frameFor(width: number, height: number, yAxis: ValueAxis, factor: number, hasMarkers: boolean, horizon: number, rightMargin = 18): Frame & { yLabels: string[] } {
  const yLabels = yAxis.ticks.map((v) => formatTickNumber(v * factor));
  const labelWidth = Math.max(...yLabels.map((l) => l.length)) * CHAR_WIDTH;
  // Rotated axis title, tick labels, a gap: all the left margin needs.
  const left = Math.ceil(FONT_SIZE + 6 + labelWidth + 6);
  const top = hasMarkers ? BADGE_RADIUS * 2 + 2 + 6 : 10;
  const bottom = height - (FONT_SIZE * 2 + 14);
  const right = width - rightMargin;
  const span = horizon > 0 ? horizon : 1;
  return {
    left,
    right,
    top,
    bottom,
    width: right - left,
    height: bottom - top,
    x: (t) => left + ((right - left) * Math.min(Math.max(t, 0), span)) / span,
    y: (v) => bottom - ((bottom - top) * (v - yAxis.min)) / (yAxis.max - yAxis.min),
    yLabels,
  };
}

function linePaths(line: ChartLine, index: number, frame: Frame): SafeHtml {
  const style = lineStyle(index);
  const maxPoints = 2 * Math.max(2, Math.floor(frame.width / 3));
  const parts = segments(line.time, line.values).map((segment) => downsample(segment, maxPoints));
  const path = parts
    .filter((p) => p.length > 1)
    .map((p) => p.map((pt, i) => `${i === 0 ? 'M' : 'L'}${r1(frame.x(pt.t))},${r1(frame.y(pt.v))}`).join(' '))
    .join(' ');
  // A lone value between gaps has no line to draw; a dot keeps it visible.
  const dots = parts.filter((p) => p.length === 1).map((p) => html`<circle class="chart-point" cx="${r1(frame.x(p[0]!.t))}" cy="${r1(frame.y(p[0]!.v))}" r="${r1(style.width + 0.8)}" fill="${style.stroke}"/>`);
  const dash = style.dash ? html` stroke-dasharray="${style.dash}"` : '';
  return html`<g class="chart-line line-${index}" data-line="${line.key}"><title>${line.label}</title>${path ? html`<path d="${path}" fill="none" stroke="${style.stroke}" stroke-width="${style.width}" stroke-linejoin="round" stroke-linecap="round"${dash}/>` : ''}${dots}</g>`;
}

/**
 * The band as closed areas (one per stretch where both edges are defined): along the high edge,
 * back along the low one. Drawn in the line's colour, mostly transparent.
 */
function bandPath(line: ChartLine, index: number, frame: Frame): SafeHtml | '' {
  const band = line.band;
  if (!band) return '';
  const style = lineStyle(index);
  const stretches: Array<Array<{ t: number; lo: number; hi: number }>> = [];
  let current: Array<{ t: number; lo: number; hi: number }> = [];
  for (let i = 0; i < line.time.length; i++) {
    const lo = band.low[i];
    const hi = band.high[i];
    if (lo === null || lo === undefined || hi === null || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) {
      if (current.length > 0) stretches.push(current);
      current = [];
      continue;
    }
    current.push({ t: line.time[i]!, lo, hi });
  }
  if (current.length > 0) stretches.push(current);
  const d = stretches
    .filter((s) => s.length > 1)
    .map((s) => {
      const top = s.map((p, i) => `${i === 0 ? 'M' : 'L'}${r1(frame.x(p.t))},${r1(frame.y(p.hi))}`).join(' ');
      const back = [...s].reverse().map((p) => `L${r1(frame.x(p.t))},${r1(frame.y(p.lo))}`).join(' ');
      return `${top} ${back} Z`;
    })
    .join(' ');
  if (!d) return '';
  return html`<path class="chart-band" data-line="${line.key}" d="${d}" fill="${style.stroke}" fill-opacity="0.15" stroke="none"><title>${line.label}: 10th to 90th percentile of ${String(band.runs)} runs</title></path>`;
}

/** Neighbouring markers share one badge ("3–5"), so a burst of events does not pile up badges. */
interface MarkerGroup {
  markers: ChartMarker[];
  /** Where the badge is centred, and its width. */
  x: number;
  width: number;
  label: string;
}

function badgeFor(markers: readonly ChartMarker[]): { label: string; width: number } {
  const first = markers[0]!.number;
  const last = markers[markers.length - 1]!.number;
  const label = first === last ? String(first) : `${first}–${last}`;
  return { label, width: Math.max(BADGE_RADIUS * 2, label.length * 6.2 + 8) };
}

/** Markers in time order, grouped while the next badge would touch the previous one. */
export function groupMarkers(markers: readonly ChartMarker[], x: (t: number) => number, chartWidth: number): MarkerGroup[] {
  const groups: MarkerGroup[] = [];
  for (const marker of markers) {
    const at = x(marker.at);
    const last = groups[groups.length - 1];
    if (last && at - x(last.markers[0]!.at) < last.width / 2 + BADGE_RADIUS + 3) {
      last.markers.push(marker);
      Object.assign(last, badgeFor(last.markers));
      continue;
    }
    groups.push({ markers: [marker], x: at, ...badgeFor([marker]) });
  }
  // A badge stays inside the drawing, however close its event is to either end.
  for (const g of groups) g.x = Math.min(Math.max(x(g.markers[0]!.at), g.width / 2 + 1), chartWidth - g.width / 2 - 1);
  return groups;
}

/** One badge above the plot per group, and a dashed line down to the time axis per event. */
function markerGroupView(group: MarkerGroup, frame: Frame, axis: TimeAxis): SafeHtml {
  const cy = BADGE_RADIUS + 2;
  const first = group.markers[0]!;
  const lines = group.markers.map((m) => {
    const x = r1(frame.x(m.at));
    return html`<line x1="${x}" y1="${r1(cy + BADGE_RADIUS)}" x2="${x}" y2="${r1(frame.bottom)}" stroke="${MARKER_COLOUR}" stroke-width="1.2" stroke-dasharray="3 3"/>`;
  });
  const title = group.markers.map((m) => `${m.number}. ${axis.describe(m.at)}: ${m.label}`).join('\n');
  return html`<g class="chart-event event-kind-${idSafe(first.kind)}" data-event="${group.markers.map((m) => m.key).join(' ')}"><title>${title}</title>${lines}<rect x="${r1(group.x - group.width / 2)}" y="${r1(cy - BADGE_RADIUS)}" width="${r1(group.width)}" height="${BADGE_RADIUS * 2}" rx="${BADGE_RADIUS}" fill="#ffffff" stroke="${MARKER_COLOUR}" stroke-width="1.2"/><text class="event-number" x="${r1(group.x)}" y="${r1(cy + 3.5)}" text-anchor="middle" font-size="10" font-weight="700" fill="#111827">${group.label}</text></g>`;
}

/** Which runs have an event, named by the shorter of the two lists. */
function eventScope(marker: ChartMarker, allLabels: readonly string[]): SafeHtml | '' {
  if (marker.lines.length >= allLabels.length) return '';
  const without = allLabels.filter((l) => !marker.lines.includes(l));
  return marker.lines.length <= without.length
    ? html` <span class="event-scope">(only in ${joinHtml(marker.lines, '; ')})</span>`
    : html` <span class="event-scope">(not in ${joinHtml(without, '; ')})</span>`;
}

interface LineFacts {
  line: ChartLine;
  max: { t: number; v: number } | null;
  min: { t: number; v: number } | null;
  last: { t: number; v: number } | null;
}

function factsOf(line: ChartLine): LineFacts {
  let max: LineFacts['max'] = null;
  let min: LineFacts['min'] = null;
  let last: LineFacts['last'] = null;
  for (const segment of segments(line.time, line.values)) {
    for (const p of segment) {
      if (!max || p.v > max.v) max = p;
      if (!min || p.v < min.v) min = p;
      last = p;
    }
  }
  return { line, max, min, last };
}

/** One sentence per line: where it peaks and when, its lowest point, where it ends. */
function lineSentence(f: LineFacts, unit: string, axis: TimeAxis): string {
  if (f.line.note && !f.max) return `${f.line.label}: ${f.line.note}.`;
  if (!f.max || !f.min || !f.last) return `${f.line.label}: no values.`;
  const q = (v: number) => formatQuantity(v, unit);
  if (q(f.max.v) === q(f.min.v)) return `${f.line.label}: stays at ${q(f.max.v)} throughout.`;
  const band = bandAt(f.line, f.max.t);
  const spread = band ? ` Over ${band.runs} runs, 80 % lie between ${q(band.low)} and ${q(band.high)} at that time.` : '';
  return `${f.line.label}: peaks at ${q(f.max.v)} at ${axis.describe(f.max.t)}; lowest ${q(f.min.v)} at ${axis.describe(f.min.t)}; ends at ${q(f.last.v)}.${spread}`;
}

/** The band's edges at time `t`, when the line has a band defined there. */
function bandAt(line: ChartLine, t: number): { low: number; high: number; runs: number } | null {
  if (!line.band) return null;
  const i = line.time.indexOf(t);
  const low = line.band.low[i];
  const high = line.band.high[i];
  return i >= 0 && low !== null && low !== undefined && high !== null && high !== undefined ? { low, high, runs: line.band.runs } : null;
}

/** For each line, the index of an earlier line with exactly the same values (drawn on top of it), if any. */
function sameAsEarlier(lines: readonly ChartLine[]): Array<number | undefined> {
  const equal = (a: ChartLine, b: ChartLine) =>
    a.values.length > 0 && a.values.length === b.values.length && a.time.every((t, i) => t === b.time[i]) && a.values.every((v, i) => v === b.values[i]);
  return lines.map((line, i) => {
    for (let j = 0; j < i; j++) if (equal(line, lines[j]!)) return j;
    return undefined;
  });
}

/**
 * A line chart of one measure across scenario runs, as a `<figure>`: the SVG (axes with units,
 * a gridline per value tick, the events as numbered dashed markers, one line per run), then a
 * legend, the events in words, and a text summary with each line's peak for readers who cannot
 * see the drawing. Presentation attributes only, no `style=""`: it renders under a CSP without
 * `'unsafe-inline'`.
 */
export function renderModelChart(input: ModelChartInput): SafeHtml {
  const prefix = idSafe(input.idPrefix);
  const width = input.width ?? 300;
  const height = input.height ?? 210;
  const scale = displayScale(input.unit);
  const markers = chartMarkers(input.lines);
  const yAxis = valueAxis(input.lines.flatMap((l) => [...l.values, ...(l.band?.low ?? []), ...(l.band?.high ?? [])]), 4, { fit: true });
  let frame = frameFor(width, height, yAxis, scale.factor, markers.length > 0, input.horizon);
  let tAxis = fittedTimeAxis(input.horizon, input.timeOrigin, frame.width);
  // A long clock label on the last tick may need more room on the right than the default margin.
  const lastTick = tAxis.ticks[tAxis.ticks.length - 1];
  const overflow = lastTick ? frame.x(lastTick.at) + (lastTick.label.length * CHAR_WIDTH) / 2 - (width - 2) : 0;
  if (overflow > 0) {
    frame = frameFor(width, height, yAxis, scale.factor, markers.length > 0, input.horizon, width - frame.right + Math.ceil(overflow));
    tAxis = fittedTimeAxis(input.horizon, input.timeOrigin, frame.width);
  }
  const facts = input.lines.map(factsOf);
  const drawn = facts.filter((f) => f.max !== null);

  const grid = yAxis.ticks.map((v, i) => {
    const y = r1(frame.y(v));
    return html`<line x1="${frame.left}" y1="${y}" x2="${frame.right}" y2="${y}" stroke="${GRID_COLOUR}" stroke-width="1"/><text x="${frame.left - 5}" y="${r1(frame.y(v) + 3.8)}" text-anchor="end" fill="${AXIS_COLOUR}">${frame.yLabels[i]}</text>`;
  });
  const xTicks = tAxis.ticks.map((tick) => {
    const x = r1(frame.x(tick.at));
    return html`<line x1="${x}" y1="${frame.bottom}" x2="${x}" y2="${frame.bottom + 4}" stroke="${AXIS_COLOUR}" stroke-width="1"/><text class="x-tick" x="${x}" y="${frame.bottom + 4 + FONT_SIZE}" text-anchor="middle" fill="${AXIS_COLOUR}">${tick.label}</text>`;
  });
  const markerViews = groupMarkers(markers, frame.x, width).map((g) => markerGroupView(g, frame, tAxis));
  // The run as it happened (the first, solid line) is drawn first, underneath: a fix whose line
  // lies on it still shows its dashes.
  const lines = input.lines.map((l, i) => linePaths(l, i, frame));
  const bands = input.lines.map((l, i) => bandPath(l, i, frame));
  const empty = drawn.length === 0 ? html`<text x="${r1(frame.left + frame.width / 2)}" y="${r1(frame.top + frame.height / 2)}" text-anchor="middle" fill="${AXIS_COLOUR}">No values to draw</text>` : '';

  const titleText = `${input.title} (${scale.unit || 'no unit'}), by scenario`;
  const descText = `Line chart over ${formatDuration(input.horizon)} of simulated time: ${input.lines.length === 1 ? 'one run' : `${input.lines.length} runs`}${markers.length > 0 ? `, ${markers.length === 1 ? 'one event' : `${markers.length} events`} marked` : ''}.${yAxis.fitted ? ` The value axis starts at ${formatQuantity(yAxis.min, input.unit)}, not at zero, to show the change.` : ''} The text after the chart gives each run's peak.`;

  const svg = html`<svg xmlns="http://www.w3.org/2000/svg" class="model-chart-svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${prefix}-title ${prefix}-desc" aria-describedby="${prefix}-summary" font-size="${FONT_SIZE}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"><title id="${prefix}-title">${titleText}</title><desc id="${prefix}-desc">${descText}</desc><rect x="${frame.left}" y="${frame.top}" width="${frame.width}" height="${frame.height}" fill="#ffffff"/><g class="chart-grid">${grid}</g><g class="chart-events">${markerViews}</g><g class="chart-bands">${bands}</g><g class="chart-lines">${lines}</g>${empty}<g class="chart-axes"><line x1="${frame.left}" y1="${frame.top}" x2="${frame.left}" y2="${frame.bottom}" stroke="${AXIS_COLOUR}" stroke-width="1"/><line x1="${frame.left}" y1="${frame.bottom}" x2="${frame.right}" y2="${frame.bottom}" stroke="${AXIS_COLOUR}" stroke-width="1"/>${xTicks}<text class="axis-title y-title" transform="translate(${FONT_SIZE},${r1((frame.top + frame.bottom) / 2)}) rotate(-90)" text-anchor="middle" fill="${AXIS_COLOUR}">${scale.axisTitle}</text><text class="axis-title x-title" x="${r1(frame.left + frame.width / 2)}" y="${height - 4}" text-anchor="middle" fill="${AXIS_COLOUR}">${tAxis.title}</text></g></svg>`;

  const same = sameAsEarlier(input.lines);
  const legend = html`<ul class="chart-legend" aria-label="Legend">${input.lines.map((l, i) => {
    const twin = same[i];
    const note = l.note ?? (twin !== undefined ? `same values as ${input.lines[twin]!.label}` : undefined);
    return html`<li class="line-${i}" data-line="${l.key}">${lineSample(i)} <span>${l.label}${note ? html` <span class="legend-note">(${note})</span>` : ''}</span></li>`;
  })}</ul>`;
  // Runs without data have no events either; naming them as "not having" an event would mislead.
  const allLabels = drawn.map((f) => f.line.label);
  const events =
    markers.length === 0
      ? ''
      : html`<ol class="chart-event-list" aria-label="Events marked on the time axis">${markers.map(
          (m) =>
            html`<li data-event="${m.key}"><span class="event-badge" aria-hidden="true">${m.number}</span> <span class="visually-hidden">Marker ${m.number}: </span>${tAxis.describe(m.at)}: ${m.label}${eventScope(m, allLabels)}</li>`,
        )}</ol>`;
  const summary = html`<div class="chart-summary" id="${prefix}-summary"><p>${input.title}, in ${scale.unit || 'no unit'}:</p><ul>${facts.map((f) => html`<li>${lineSentence(f, input.unit, tAxis)}</li>`)}</ul></div>`;

  const words = markers.length > 0 ? 'Events and every run in words' : 'Every run in words';
  return html`<figure class="model-chart" id="${prefix}">${svg}<figcaption>${legend}<details class="chart-words"><summary>${words}</summary>${events}${summary}</details></figcaption></figure>`;
}
