import fs from 'node:fs';
import { parsePostmortem } from '@hindsight/importer';
const dir = '/work/shared/corpus';
const m = JSON.parse(fs.readFileSync(dir + '/manifest.json', 'utf8'));
const want = process.argv[2];
for (const e of m) {
  if (!e.file.includes(want)) continue;
  const text = fs.readFileSync(dir + '/' + e.file, 'utf8').split('\n').filter((l: string, i: number) => !(i < 2 && l.startsWith('<!-- '))).join('\n');
  const r = parsePostmortem(text, { sourceUrl: `https://github.com/${e.source.repo}/blob/${e.source.commit}/${e.source.path}` });
  console.log('TITLE', r.draft.title, '| expected', e.title, '| lang', r.report.language, '| zone', JSON.stringify(r.report.timeZone));
  console.log('KEY', JSON.stringify(r.draft.keyTimes), 'expected', e.startedAt, e.endedAt);
  console.log('SECTIONS', r.report.sections.map((s) => `${s.line}:${s.kind}:${s.heading.slice(0, 30)}`).join(' | '));
  console.log('WARN', r.report.warnings.map((w) => w.code).join(','));
  console.log('--- expected timeline');
  for (const t of e.timeline) console.log('  ', t.at, '|', t.asWritten, '|', t.text.slice(0, 50));
  console.log('--- got timeline');
  for (const t of r.draft.timeline) console.log('  ', t.at, t.precision, '|', t.asWritten, '|', t.text.slice(0, 60));
  console.log('--- expected items');
  for (const t of e.actionItems) console.log('  ', t.status, '|', t.title.slice(0, 50), t.links.join(' '));
  console.log('--- got items');
  for (const t of r.draft.actionables) console.log('  ', t.status, '|', t.title.slice(0, 60), t.references.map((x) => x.url ?? x.ref).join(' '));
  if (process.argv[3]) console.log('UNUSED', r.report.unusedLines);
}
