import { displayScale, formatQuantity, formatTickNumber } from '@hindsight/models';
import { html, type SafeHtml } from './html';
import { valueAxis } from './model-chart-scale';

/**
 * A parameter sweep or boundary search as a `<figure>`: one figure of the model against the
 * swept parameter, each run a point, filled where the run meets the failure criterion and
 * hollow where it does not; then the points in words and the answer's sentence. Like the
 * time-series chart, presentation attributes only (no inline style).
 */
export interface SweepChartPoint {
  /** The parameter's value. */
  x: number;
  /** The figure at that value; null when the run has none (drawn on the axis as a cross). */
  y: number | null;
  /** Whether the run meets the failure criterion; null when it could not be judged. */
  failureMet: boolean | null;
}

export interface SweepChartInput {
  idPrefix: string;
  parameter: string;
  parameterUnit: string;
  figureLabel: string;
  figureUnit: string;
  points: readonly SweepChartPoint[];
  /** The sweep's or boundary's own sentence (from the engine), shown under the chart. */
  text: string;
  /** A value of the figure drawn as a dashed line across the chart, e.g. the value a boundary search on the figure must cross. */
  reference?: { value: number; label: string };
  width?: number;
  height?: number;
}

const FONT_SIZE = 11;
const CHAR_WIDTH = FONT_SIZE * 0.62;
const AXIS = '#374151';
const MET = '#b91c1c';
const NOT_MET = '#047857';

const r1 = (x: number): number => Math.round(x * 10) / 10;

export function renderSweepChart(input: SweepChartInput): SafeHtml {
  const prefix = input.idPrefix.replace(/[^A-Za-z0-9_-]/g, '-');
  const width = input.width ?? 300;
  const height = input.height ?? 200;
  const points = [...input.points].sort((a, b) => a.x - b.x);
  const yScale = displayScale(input.figureUnit);
  const reference = input.reference && Number.isFinite(input.reference.value) ? input.reference : null;
  const yAxis = valueAxis([...points.map((p) => p.y), reference?.value ?? null], 4);
  const xs = points.map((p) => p.x);
  const xMin = Math.min(...xs, Infinity) === Infinity ? 0 : Math.min(...xs);
  const xMax = points.length > 0 ? Math.max(...xs) : 1;
  const xSpan = xMax > xMin ? xMax - xMin : 1;
  const yLabels = yAxis.ticks.map((v) => formatTickNumber(v * yScale.factor));
  const left = Math.ceil(FONT_SIZE + 6 + Math.max(...yLabels.map((l) => l.length)) * CHAR_WIDTH + 6);
  const right = width - 14;
  const top = 10;
  const bottom = height - (FONT_SIZE * 2 + 14);
  const x = (v: number): number => left + ((right - left) * (v - xMin)) / xSpan;
  const y = (v: number): number => bottom - ((bottom - top) * (v - yAxis.min)) / (yAxis.max - yAxis.min);
  const xTicks = [xMin, xMin + xSpan / 2, xMax].filter((v, i, a) => a.indexOf(v) === i);

  const grid = yAxis.ticks.map(
    (v, i) => html`<line x1="${left}" y1="${r1(y(v))}" x2="${right}" y2="${r1(y(v))}" stroke="#e5e7eb" stroke-width="1"/><text x="${left - 5}" y="${r1(y(v) + 3.8)}" text-anchor="end" fill="${AXIS}">${yLabels[i]}</text>`,
  );
  const ticks = xTicks.map(
    (v) => html`<line x1="${r1(x(v))}" y1="${bottom}" x2="${r1(x(v))}" y2="${bottom + 4}" stroke="${AXIS}" stroke-width="1"/><text x="${r1(x(v))}" y="${bottom + 4 + FONT_SIZE}" text-anchor="middle" fill="${AXIS}">${formatTickNumber(v)}</text>`,
  );
  const referenceLine = reference
    ? html`<g class="sweep-reference"><line x1="${left}" y1="${r1(y(reference.value))}" x2="${right}" y2="${r1(y(reference.value))}" stroke="${AXIS}" stroke-width="1" stroke-dasharray="4 3"><title>${reference.label}</title></line></g>`
    : '';
  const path = points
    .filter((p) => p.y !== null)
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${r1(x(p.x))},${r1(y(p.y!))}`)
    .join(' ');
  const marks = points.map((p) => {
    const label = `${input.parameter} = ${formatQuantity(p.x, input.parameterUnit)}: ${formatQuantity(p.y, input.figureUnit)}, failure criterion ${p.failureMet === null ? 'not judged' : p.failureMet ? 'met' : 'not met'}`;
    if (p.y === null) return html`<g class="sweep-point sweep-none"><title>${label}</title><path d="M${r1(x(p.x) - 3)},${r1(bottom - 3)} L${r1(x(p.x) + 3)},${r1(bottom + 3)} M${r1(x(p.x) - 3)},${r1(bottom + 3)} L${r1(x(p.x) + 3)},${r1(bottom - 3)}" stroke="${AXIS}" stroke-width="1.5"/></g>`;
    const met = p.failureMet === true;
    return html`<circle class="sweep-point ${met ? 'sweep-met' : 'sweep-not-met'}" cx="${r1(x(p.x))}" cy="${r1(y(p.y))}" r="4" fill="${met ? MET : '#ffffff'}" stroke="${met ? MET : NOT_MET}" stroke-width="1.8"><title>${label}</title></circle>`;
  });
  const title = `${input.figureLabel} (${yScale.unit || 'no unit'}) against ${input.parameter} (${input.parameterUnit})`;
  const svg = html`<svg xmlns="http://www.w3.org/2000/svg" class="sweep-chart-svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${prefix}-title" aria-describedby="${prefix}-summary" font-size="${FONT_SIZE}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"><title id="${prefix}-title">${title}</title><g class="chart-grid">${grid}</g>${referenceLine}${path ? html`<path d="${path}" fill="none" stroke="${AXIS}" stroke-width="1.2"/>` : ''}<g class="sweep-points">${marks}</g><g class="chart-axes"><line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="${AXIS}" stroke-width="1"/><line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="${AXIS}" stroke-width="1"/>${ticks}<text transform="translate(${FONT_SIZE},${r1((top + bottom) / 2)}) rotate(-90)" text-anchor="middle" fill="${AXIS}">${yScale.axisTitle}</text><text x="${r1((left + right) / 2)}" y="${height - 4}" text-anchor="middle" fill="${AXIS}">${input.parameter} (${input.parameterUnit})</text></g></svg>`;
  const legend = html`<p class="sweep-legend"><span class="sweep-key sweep-met" aria-hidden="true">●</span> failure criterion met · <span class="sweep-key sweep-not-met" aria-hidden="true">○</span> not met${reference ? html` · <span class="sweep-key sweep-reference" aria-hidden="true">- -</span> ${reference.label}` : ''}</p>`;
  const list = html`<ul>${points.map((p) => html`<li>${input.parameter} = ${formatQuantity(p.x, input.parameterUnit)}: ${formatQuantity(p.y, input.figureUnit)}; ${p.failureMet === null ? 'not judged' : p.failureMet ? 'failure criterion met' : 'not met'}</li>`)}</ul>`;
  return html`<figure class="sweep-chart" id="${prefix}">${svg}<figcaption>${legend}<div class="chart-summary" id="${prefix}-summary"><p>${input.text}</p>${list}</div></figcaption></figure>`;
}
