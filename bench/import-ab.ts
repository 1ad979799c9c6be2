/**
 * Parse time of this importer against another version of it, alternated A B A B in one process
 * so that machine load falls on both alike. The other version is a copy of `libs/postmortem-parser` from
 * another commit, e.g. `git archive main libs/postmortem-parser | tar -x -C <dir>`.
 * Run: node -r ./scripts/register-ts.js bench/import-ab.ts <dir-holding-libs/postmortem-parser> [count]
 * Bounded: four passes over `count` generated documents and `count` seed-source parses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { parsePostmortem } from '@hindsight/postmortem-parser';
import { generatePostmortemDocuments } from '../libs/postmortem-parser/src/testing/generate-documents';

type Parse = typeof parsePostmortem;
const baseDir = process.argv[2];
const count = Number(process.argv[3] ?? 1000);
if (!baseDir) {
  process.stderr.write('usage: node -r ./scripts/register-ts.js bench/import-ab.ts <dir-holding-libs/postmortem-parser> [count]\n');
  process.exit(2);
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const base = (require(path.resolve(baseDir, 'libs/postmortem-parser/src/index.ts')) as { parsePostmortem: Parse }).parsePostmortem;
const docs = generatePostmortemDocuments(count, { seed: 7 }).map((d) => d.text);
const sourcesDir = path.join(projectRoot(), 'libs', 'postmortem-parser', 'test', 'fixtures', 'seed-sources');
const sources = fs.readdirSync(sourcesDir).map((f) => fs.readFileSync(path.join(sourcesDir, f), 'utf8'));
const seeds = Array.from({ length: count }, (_, i) => sources[i % sources.length]!);

function time(parse: Parse, input: readonly string[]): number {
  const start = process.hrtime.bigint();
  for (const d of input) parse(d, { organization: 'Bench Corp' });
  return Number(process.hrtime.bigint() - start) / 1e6 / input.length;
}

// Warm both up once, then A B A B.
time(base, docs.slice(0, 50));
time(parsePostmortem, docs.slice(0, 50));
const rows: string[] = [];
for (const round of [1, 2]) {
  const a = time(base, docs);
  const b = time(parsePostmortem, docs);
  const sa = time(base, seeds);
  const sb = time(parsePostmortem, seeds);
  rows.push(`round ${round}: generated ${a.toFixed(2)} → ${b.toFixed(2)} ms/doc (${(b / a).toFixed(2)}x); seed sources ${sa.toFixed(2)} → ${sb.toFixed(2)} ms/doc (${(sb / sa).toFixed(2)}x)`);
}
console.log(`documents: ${count} generated, ${count} seed-source parses; baseline = ${baseDir}`);
for (const r of rows) console.log(r);
