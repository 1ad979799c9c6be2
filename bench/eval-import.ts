/**
 * Scores the importer against a corpus of real postmortems with hand-labelled expectations.
 * Run: npm run eval:import -- <corpus-dir> [--json out.json] [--markdown]
 * The folder holds `manifest.json` (one entry per document: file, source, isPostmortem, language,
 * title, startedAt, endedAt, timeline[{asWritten, at, text}], actionItems[{title, status, links}])
 * and the documents it names. Every document is imported with `parsePostmortem` (no database),
 * with the source URL a user importing it from GitHub would give.
 *
 * Matching, exactly:
 * - Text similarity of an expected text E and an extracted text X: the share of E's first 12
 *   word tokens (Intl.Segmenter words, folded to lower case without accents; for Han, kana and
 *   Hangul every character is a token) that occur among X's first 40 tokens. Markdown link
 *   syntax is removed from both first.
 * - A time is right when the extracted `at`, cut to the minute (`YYYY-MM-DDTHH:MM`, UTC), equals
 *   the expected `at`; for an expected date (`YYYY-MM-DD`) the extracted instant's UTC day must
 *   equal it; an expected null is right when the extracted event has no instant.
 * - Timeline: expected entries are aligned to extracted events in document order (a monotone
 *   alignment, dynamic programming, maximising the summed pair score). A pair may be aligned when
 *   the text similarity is at least 0.5, or at least 0.25 with the time right; its score is the
 *   similarity plus 1 when the time is right. "found" counts aligned expected entries, "times"
 *   those whose time is right. An expected entry that is not aligned counts as wrong.
 * - Action items: the same alignment over titles (extracted title plus description), similarity
 *   at least 0.4. "statuses" counts aligned items whose status equals the expected one; "links"
 *   counts expected URLs present among the aligned item's references (URLs compared without a
 *   trailing slash or `#fragment` after a pull/issue number, case-insensitive host).
 * - Document score: (times + statuses + links right) / (entries + items + links expected).
 * - Title right: the folded token sets of the expected and extracted titles overlap by at least
 *   0.6 of the larger one. Key times: `keyTimes.started` against `startedAt`, `keyTimes.resolved`
 *   against `endedAt`, by the time rule above (a null expectation is right when the field is empty).
 * - Language right: the primary subtag of `report.language` equals the expected one.
 * - Unused: non-blank lines listed in `report.unusedLines` over all non-blank lines; "lost" counts
 *   non-blank lines neither used nor listed, plus lines called used whose words reach no field of
 *   the draft (`silentlyLostLines`: fewer than half of their words of four letters or more, or of
 *   their Han, kana and Hangul characters, appear in it; a front-matter key with no value, such as
 *   `tags:` above a YAML list, is not checked: its items carry the words). Must be 0.
 * - Non-postmortem right: `report.postmortem.isPostmortem` equals the manifest's `isPostmortem`.
 * The two provenance comments the corpus puts at the top of every file (`<!-- source: … -->`,
 * `<!-- format: … -->`) are removed before import: they annotate the corpus, not the document.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parsePostmortem, type ImportResult } from '@hindsight/postmortem-parser';
import { silentlyLostLines } from '../libs/postmortem-parser/src/testing/line-accounting';

interface ExpectedEvent { asWritten: string | null; at: string | null; text: string }
interface ExpectedItem { title: string; status: string; links: string[] }
interface ManifestEntry {
  file: string;
  source?: { repo: string; path: string; commit: string };
  isPostmortem: boolean;
  language: string;
  format?: string;
  title: string;
  startedAt: string | null;
  endedAt: string | null;
  timeline: ExpectedEvent[];
  actionItems: ExpectedItem[];
}

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const stripLinks = (s: string) => s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[\[(?:[^|\]]*\|)?([^\]]*)\]\]/g, '$1');

function tokens(text: string, max: number): string[] {
  const out: string[] = [];
  for (const seg of segmenter.segment(fold(stripLinks(text)))) {
    if (!seg.isWordLike) continue;
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(seg.segment)) out.push(...[...seg.segment]);
    else out.push(seg.segment);
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

function similarity(expected: string, extracted: string): number {
  const e = tokens(expected, 12);
  if (e.length === 0) return 0;
  const x = new Set(tokens(extracted, 40));
  return e.filter((t) => x.has(t)).length / e.length;
}

function timeRight(expected: string | null, at: string | null | undefined): boolean {
  if (expected === null) return !at;
  if (!at) return false;
  if (/^\d{4}-\d{2}-\d{2}$/.test(expected)) return at.slice(0, 10) === expected;
  return at.slice(0, 16) === expected.replace(/Z$/, '');
}

/** Monotone alignment maximising the summed score; returns, per expected index, the extracted index or -1. */
function align(n: number, m: number, score: (i: number, j: number) => number | null): number[] {
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const s = score(i, j);
      best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, s === null ? -1 : s + best[i + 1]![j + 1]!);
    }
  }
  const out = new Array<number>(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const s = score(i, j);
    if (s !== null && best[i]![j] === s + best[i + 1]![j + 1]!) out[i++] = j++;
    else if (best[i]![j] === best[i + 1]![j]) i++;
    else j++;
  }
  return out;
}

const normUrl = (u: string) => {
  try {
    const url = new URL(u.trim());
    let s = `${url.protocol}//${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, '')}${url.search}`;
    if (url.hash && !/\/(?:pull|issues)\/\d+$/.test(url.pathname)) s += url.hash;
    return s;
  } catch {
    return u.trim().replace(/\/+$/, '');
  }
};

interface DocScore {
  file: string;
  isPostmortem: boolean;
  events: { expected: number; extracted: number; found: number; times: number };
  items: { expected: number; extracted: number; found: number; statuses: number; links: number; linksExpected: number };
  title: { expected: string; got: string; right: boolean };
  started: { expected: string | null; got: string | null; right: boolean };
  ended: { expected: string | null; got: string | null; right: boolean };
  language: { expected: string; got: string; right: boolean };
  lines: { nonBlank: number; unused: number; lost: number };
  postmortem: { expected: boolean; got: boolean | null; right: boolean };
  score: number | null;
  error?: string;
}

function titleRight(expected: string, got: string): boolean {
  const a = new Set(tokens(expected, 40));
  const b = new Set(tokens(got, 40));
  if (a.size === 0 || b.size === 0) return false;
  const common = [...a].filter((t) => b.has(t)).length;
  return common / Math.max(a.size, b.size) >= 0.6;
}

function score(entry: ManifestEntry, result: ImportResult, text: string): DocScore {
  const { draft, report } = result;
  const events = draft.timeline;
  const evAlign = align(entry.timeline.length, events.length, (i, j) => {
    const e = entry.timeline[i]!;
    const x = events[j]!;
    const sim = similarity(e.text, `${x.asWritten ?? ''} ${x.text}`);
    const right = timeRight(e.at, x.at);
    if (sim >= 0.5 || (right && sim >= 0.25)) return sim + (right ? 1 : 0);
    return null;
  });
  const times = evAlign.filter((j, i) => j >= 0 && timeRight(entry.timeline[i]!.at, events[j]!.at)).length;

  const items = draft.actionables;
  const itAlign = align(entry.actionItems.length, items.length, (i, j) => {
    const sim = similarity(entry.actionItems[i]!.title, `${items[j]!.title} ${items[j]!.description}`);
    return sim >= 0.4 ? sim : null;
  });
  let statuses = 0;
  let links = 0;
  let linksExpected = 0;
  entry.actionItems.forEach((e, i) => {
    linksExpected += e.links.length;
    const j = itAlign[i]!;
    if (j < 0) return;
    const x = items[j]!;
    if (x.status === e.status) statuses++;
    const got = new Set(x.references.map((r) => r.url).filter((u): u is string => !!u).map(normUrl));
    links += e.links.filter((l) => got.has(normUrl(l))).length;
  });

  const nonBlank = text.split('\n').filter((l) => l.trim() !== '').length;
  const unused = report.unusedLines.length;
  // Neither used nor listed, or called used while its words reached no field of the draft.
  const lost = nonBlank - report.counts.usedLines - unused + (report.decisions ? silentlyLostLines(text, result).length : 0);
  const denominator = entry.timeline.length + entry.actionItems.length + linksExpected;
  const gotPostmortem = (report as { postmortem?: { isPostmortem: boolean } }).postmortem?.isPostmortem ?? null;
  const started = draft.keyTimes.started?.at ?? null;
  const ended = draft.keyTimes.resolved?.at ?? null;
  return {
    file: entry.file,
    isPostmortem: entry.isPostmortem,
    events: { expected: entry.timeline.length, extracted: events.length, found: evAlign.filter((j) => j >= 0).length, times },
    items: { expected: entry.actionItems.length, extracted: items.length, found: itAlign.filter((j) => j >= 0).length, statuses, links, linksExpected },
    title: { expected: entry.title, got: draft.title, right: titleRight(entry.title, draft.title) },
    started: { expected: entry.startedAt, got: started, right: timeRight(entry.startedAt, started) },
    ended: { expected: entry.endedAt, got: ended, right: timeRight(entry.endedAt, ended) },
    language: { expected: entry.language, got: report.language, right: report.language.split('-')[0] === entry.language.split('-')[0] },
    lines: { nonBlank, unused, lost },
    postmortem: { expected: entry.isPostmortem, got: gotPostmortem, right: gotPostmortem === entry.isPostmortem },
    score: denominator === 0 ? null : (times + statuses + links) / denominator,
  };
}

/** The corpus's own provenance comments, not part of the document. */
function stripProvenance(text: string): string {
  const lines = text.split(/\r?\n/);
  let i = 0;
  while (i < lines.length && /^<!-- (?:source|format): .*-->\s*$/.test(lines[i]!)) i++;
  return lines.slice(i).join('\n');
}

const pct = (a: number, b: number) => (b === 0 ? '–' : `${Math.round((100 * a) / b)}%`);

function main() {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) {
    process.stderr.write('usage: npm run eval:import -- <corpus-dir> [--json out.json] [--markdown]\n');
    process.exit(2);
  }
  const jsonAt = args.indexOf('--json');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  const scores: DocScore[] = [];
  let parseMs = 0;
  for (const entry of manifest) {
    const text = stripProvenance(fs.readFileSync(path.join(dir, entry.file), 'utf8'));
    const sourceUrl = entry.source ? `https://github.com/${entry.source.repo}/blob/${entry.source.commit}/${entry.source.path.split('/').map(encodeURIComponent).join('/')}` : null;
    try {
      const start = process.hrtime.bigint();
      const result = parsePostmortem(text, { sourceUrl });
      parseMs += Number(process.hrtime.bigint() - start) / 1e6;
      scores.push(score(entry, result, text));
    } catch (error) {
      const empty = score(entry, { draft: { title: '', timeline: [], actionables: [], keyTimes: {} }, report: { language: '', unusedLines: [], counts: { usedLines: 0 } } } as unknown as ImportResult, text);
      scores.push({ ...empty, error: error instanceof Error ? error.message : String(error) });
    }
  }

  const pm = scores.filter((s) => s.isPostmortem);
  const sum = (f: (s: DocScore) => number, list = pm) => list.reduce((n, s) => n + f(s), 0);
  const t = {
    events: sum((s) => s.events.expected), eventsFound: sum((s) => s.events.found), times: sum((s) => s.events.times),
    items: sum((s) => s.items.expected), itemsFound: sum((s) => s.items.found), statuses: sum((s) => s.items.statuses),
    links: sum((s) => s.items.links), linksExpected: sum((s) => s.items.linksExpected),
    titles: sum((s) => (s.title.right ? 1 : 0)), started: sum((s) => (s.started.right ? 1 : 0)), ended: sum((s) => (s.ended.right ? 1 : 0)),
    languages: sum((s) => (s.language.right ? 1 : 0), scores), unused: sum((s) => s.lines.unused, scores), nonBlank: sum((s) => s.lines.nonBlank, scores),
    lost: sum((s) => s.lines.lost, scores), decoys: scores.filter((s) => !s.isPostmortem).length, decoysRight: sum((s) => (s.postmortem.right && !s.isPostmortem ? 1 : 0), scores),
    postmortemsRight: sum((s) => (s.postmortem.right ? 1 : 0)),
    below60: pm.filter((s) => s.score !== null && s.score < 0.6).length,
  };
  const markdown = args.includes('--markdown');
  const rows = scores.map((s) => [
    path.basename(s.file).replace(/\.\w+$/, ''),
    `${s.events.found}/${s.events.expected} (${s.events.extracted})`,
    `${s.events.times}/${s.events.expected}`,
    `${s.items.found}/${s.items.expected} (${s.items.extracted})`,
    `${s.items.statuses}/${s.items.expected}`,
    `${s.items.links}/${s.items.linksExpected}`,
    // The table goes into docs: it names no words of the documents, only whether the title matched.
    s.title.right ? 'ok' : markdown ? '✗' : `✗ "${s.title.got.slice(0, 40)}"`,
    `${s.started.right ? 'ok' : '✗'} / ${s.ended.right ? 'ok' : '✗'}`,
    s.language.right ? s.language.got : `✗ ${s.language.got}`,
    `${s.lines.unused}/${s.lines.nonBlank}${s.lines.lost ? ` lost ${s.lines.lost}` : ''}`,
    s.postmortem.right ? 'ok' : `✗ ${String(s.postmortem.got)}`,
    s.score === null ? '–' : pct(s.score * 1000, 1000) + (s.error ? ` ERROR ${s.error.slice(0, 40)}` : ''),
  ]);
  const header = ['document', 'events found', 'times right', 'items found', 'statuses', 'links', 'title', 'start / end', 'language', 'unused lines', 'postmortem?', 'score'];
  if (markdown) {
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of rows) process.stdout.write(`| ${r.join(' | ').replace(/\|(?= )/g, '|')} |\n`);
  } else {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
    process.stdout.write(`${line(header)}\n`);
    for (const r of rows) process.stdout.write(`${line(r)}\n`);
  }
  process.stdout.write(
    [
      '',
      `Over ${pm.length} postmortems:`,
      `  timeline times right   ${t.times}/${t.events} (${pct(t.times, t.events)}); entries found ${t.eventsFound}/${t.events}`,
      `  action-item statuses   ${t.statuses}/${t.items} (${pct(t.statuses, t.items)}); items found ${t.itemsFound}/${t.items}`,
      `  action-item links      ${t.links}/${t.linksExpected} (${pct(t.links, t.linksExpected)})`,
      `  all three              ${t.times + t.statuses + t.links}/${t.events + t.items + t.linksExpected} (${pct(t.times + t.statuses + t.links, t.events + t.items + t.linksExpected)}); documents below 60%: ${t.below60}`,
      `  titles ${t.titles}/${pm.length}, started ${t.started}/${pm.length}, ended ${t.ended}/${pm.length}, reported as postmortems ${t.postmortemsRight}/${pm.length}`,
      `Over all ${scores.length} documents: languages ${t.languages}/${scores.length}, unused lines ${t.unused}/${t.nonBlank} (${pct(t.unused, t.nonBlank)}), lost lines ${t.lost}, non-postmortems reported as such ${t.decoysRight}/${t.decoys}`,
      `Parsing took ${parseMs.toFixed(1)} ms for ${scores.length} documents.`,
      '',
    ].join('\n'),
  );
  if (jsonAt >= 0 && args[jsonAt + 1]) fs.writeFileSync(args[jsonAt + 1]!, JSON.stringify({ totals: t, documents: scores }, null, 2));
}

main();
