import type { ImportResult } from './importer.types';

const pct = (n: number) => `${Math.round(n * 100)}%`;

/**
 * A dry run as a person reads it: what the draft would contain, what was recognised and with
 * what confidence, the warnings, and every line that went nowhere.
 */
export function formatImportReport(result: ImportResult, options: { source?: string; maxUnusedLines?: number } = {}): string {
  const { draft, report } = result;
  const out: string[] = [];
  const maxUnused = options.maxUnusedLines ?? Number.POSITIVE_INFINITY;
  if (options.source) out.push(`== ${options.source}`);
  out.push(`title:        ${draft.title}`);
  out.push(`slug:         ${draft.slug}`);
  out.push(`organization: ${draft.organization || '(unknown)'}`);
  out.push(`postmortem:   ${report.postmortem.isPostmortem ? 'yes' : 'NO'} (${pct(report.postmortem.confidence)}: ${report.postmortem.evidence.join('; ')})`);
  out.push(`format:       ${report.format}${report.formatDetected ? ' (detected)' : ''}; language ${report.language}`);
  out.push(`content hash: sha256:${report.contentHash}`);
  out.push(`time zone:    ${report.timeZone.zone ?? 'none stated'} (${report.timeZone.source})`);
  out.push(
    `extracted:    ${report.counts.timeline} timeline events, ${report.counts.causalFactors} causal factors, ${report.counts.actionables} action items; ` +
      `${report.counts.usedLines} of ${report.counts.lines} lines used`,
  );
  out.push('', 'sections:');
  if (report.sections.length === 0) out.push('  (none recognised)');
  for (const s of report.sections) {
    out.push(`  line ${String(s.line).padStart(4)}  ${s.kind.padEnd(11)} ${pct(s.confidence).padStart(4)}  ${s.heading}${s.inheritedFrom ? `  (${s.inheritance === 'continues' ? 'continues' : 'inside'} "${s.inheritedFrom}")` : ''}`);
  }
  if (draft.timeline.length > 0) {
    out.push('', 'timeline:');
    for (const e of draft.timeline) {
      out.push(`  ${(e.at ?? '-').padEnd(20)} ${e.precision.padEnd(11)} ${e.kind.padEnd(11)} ${e.asWritten ? `[${e.asWritten}] ` : ''}${e.text.slice(0, 80)}`);
    }
  }
  if (draft.actionables.length > 0) {
    out.push('', 'action items:');
    for (const a of draft.actionables) {
      const refs = a.references.map((r) => r.ref).join(', ');
      out.push(`  ${a.status.padEnd(11)} ${a.title.slice(0, 70)}${a.owner ? ` (owner: ${a.owner})` : ''}${refs ? ` [${refs}]` : ''}`);
    }
  }
  if (draft.patterns.length > 0) {
    out.push('', `patterns:     ${draft.patterns.join(', ')}${report.suggestedPatterns.length > 0 ? ' (suggested ones need a reviewer)' : ''}`);
  }
  const doubtful = report.decisions.filter((d) => d.confidence < 0.7);
  if (doubtful.length > 0) {
    // All decisions are in the JSON report; the ones worth a second look are listed here.
    out.push('', `decisions to check (${doubtful.length} of ${report.decisions.length} below 70%):`);
    for (const d of doubtful) out.push(`  ${d.line ? `line ${String(d.line).padStart(4)}` : '         '}  ${pct(d.confidence).padStart(4)}  ${d.field} = ${d.value ?? '(empty)'}: ${d.basis}`);
  }
  if (report.warnings.length > 0) {
    out.push('', 'warnings:');
    for (const w of report.warnings) out.push(`  ${w.code}${w.line ? ` (line ${w.line})` : ''}: ${w.message}`);
  }
  if (report.unusedLines.length > 0) {
    out.push('', `unused lines (${report.unusedLines.length}):`);
    for (const l of report.unusedLines.slice(0, maxUnused)) out.push(`  ${String(l.line).padStart(4)}: ${l.text}`);
    if (report.unusedLines.length > maxUnused) out.push(`  … ${report.unusedLines.length - maxUnused} more`);
  }
  return `${out.join('\n')}\n`;
}
