/**
 * How many real postmortems get a usable suggested model, with no hand edits.
 * Run: npm run eval:models -- <corpus-dir> [--json out.json]
 * For every document the manifest marks as a postmortem: import it with `parsePostmortem` (no
 * database), take the best-ranked suggestion, and run its as-happened scenario. A document counts
 * when (1) the run finishes and meets the model's failure criterion, (2) at least one parameter was
 * read from the document (a figure in its text, or a duration from its timeline), and (3) at least
 * one actionable was matched to a fix scenario. Also printed: how many parameters came from text
 * figures alone, which remedy kinds were matched, and the checks generated from the document's own
 * course (impact start, outage, recovery) with their kind and whether they pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parsePostmortem } from '@hindsight/postmortem-parser';
import { suggestModels } from '@hindsight/model-templates';
import { runModel } from '@hindsight/models';

interface Row { file: string; template: string; runnable: boolean; failureMet: boolean; fromText: number; fromTimeline: number; matched: number; actionables: number; ok: boolean; remedies: string[]; documentChecks: { name: string; kind: string; pass: boolean }[]; error?: string }

function stripProvenance(text: string): string {
  return text.replace(/^(?:\s*<!--[\s\S]*?-->\s*\n){1,2}/, '');
}

function main(argv: string[]): number {
  const dir = argv.find((a) => !a.startsWith('--'));
  if (!dir) {
    process.stderr.write('usage: npm run eval:models -- <corpus-dir> [--json out.json]\n');
    return 2;
  }
  const jsonAt = argv.indexOf('--json');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { file: string; isPostmortem: boolean }[];
  const rows: Row[] = [];
  for (const entry of manifest.filter((e) => e.isPostmortem)) {
    const text = stripProvenance(fs.readFileSync(path.join(dir, entry.file), 'utf8'));
    const row: Row = { file: entry.file, template: '-', runnable: false, failureMet: false, fromText: 0, fromTimeline: 0, matched: 0, actionables: 0, ok: false, remedies: [], documentChecks: [] };
    try {
      const { draft } = parsePostmortem(text);
      const [best] = suggestModels(draft, { limit: 1 });
      row.template = best!.template.key;
      row.fromText = best!.parameters.filter((p) => p.from === 'text').length;
      row.fromTimeline = best!.parameters.filter((p) => p.from === 'timeline').length;
      row.matched = best!.matches.length;
      row.remedies = [...new Set(best!.matches.map((m) => m.remedy))];
      row.actionables = draft.actionables.length;
      const run = runModel({ spec: best!.spec, scenarioKey: 'as-happened', budget: { maxEvents: 50_000_000, maxWallMs: 60_000 } });
      row.runnable = true;
      row.failureMet = run.failure?.met === true;
      const fromDocument = new Set(['failure-starts-when-reported', 'failing-during-reported-outage', 'healthy-after-reported-recovery']);
      row.documentChecks = run.checks.filter((c) => fromDocument.has(c.name)).map((c) => ({ name: c.name, kind: c.kind ?? 'unlabelled', pass: c.pass }));
    } catch (e) {
      row.error = (e as Error).message.slice(0, 200);
    }
    row.ok = row.runnable && row.failureMet && row.fromText + row.fromTimeline >= 1 && row.matched >= 1;
    rows.push(row);
    process.stdout.write(`${row.ok ? 'ok  ' : 'miss'} ${path.basename(row.file).padEnd(52)} ${row.template.padEnd(20)} failure ${row.failureMet ? 'met' : 'not met'}, ${row.fromText} from text + ${row.fromTimeline} from timeline, ${row.matched}/${row.actionables} actionables matched${row.remedies.length ? ` (${row.remedies.join(', ')})` : ''}${row.documentChecks.length ? `; against the document: ${row.documentChecks.map((c) => `${c.name} ${c.pass ? 'passes' : 'fails'} (${c.kind})`).join(', ')}` : ''}${row.error ? `, error: ${row.error}` : ''}\n`);
  }
  const ok = rows.filter((r) => r.ok).length;
  const textOnly = rows.filter((r) => r.runnable && r.failureMet && r.fromText >= 1 && r.matched >= 1).length;
  process.stdout.write(`\n${ok} of ${rows.length} postmortems (${((100 * ok) / rows.length).toFixed(0)} %) get a runnable suggested model that meets its failure criterion, with a parameter from the document and an actionable matched to a fix.\n`);
  process.stdout.write(`${textOnly} of ${rows.length} (${((100 * textOnly) / rows.length).toFixed(0)} %) when only figures in the text count (durations from the timeline left out).\n`);
  const checks = rows.flatMap((r) => r.documentChecks);
  const evidence = checks.filter((c) => c.kind === 'reproduces');
  process.stdout.write(`Checks against the document's own course: ${checks.length} on ${rows.filter((r) => r.documentChecks.length > 0).length} documents; ${evidence.filter((c) => c.pass).length} of ${evidence.length} labelled reproduces pass, ${checks.filter((c) => c.kind === 'fitted' && c.pass).length} of ${checks.filter((c) => c.kind === 'fitted').length} labelled fitted pass.\n`);
  if (jsonAt >= 0 && argv[jsonAt + 1]) fs.writeFileSync(argv[jsonAt + 1]!, JSON.stringify(rows, null, 2));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
