import { foldText } from '@hindsight/domain';
import { isPostHeader } from '../blog-post.splitter';
import { findDates, MONTH_ALTERNATION, WEEKDAY_ALTERNATION } from '../calendar-date.parser';
import type { ImportResult, SourceLine } from '../importer.types';
import { findZoneInText, parseZoneNote } from '../time-zone.resolver';
import { normaliseInput } from '../input.normalizer';
import { readFrontMatter } from '../front-matter.parser';

const CALENDAR_WORDS = new RegExp(`(?<![\\p{L}])(?:${WEEKDAY_ALTERNATION}|${MONTH_ALTERNATION})(?![\\p{L}])`, 'giu');
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const wordsOf = (text: string) => [...new Set(foldText(text).match(/\p{L}[\p{L}\p{N}]{3,}/gu) ?? [])];
const unspacedOf = (text: string) => [...new Set(text.match(UNSPACED) ?? [])];

/**
 * Lines the importer claims to have used but whose words are nowhere in the draft: silent loss.
 * A line counts as carried when at least half of its words of four letters or more (or of its
 * Han, kana and Hangul characters) appear in the draft or among the recognised section headings.
 * Lines listed as unused, lines without such words (rules, dates, table markup), table
 * header rows and front-matter keys that only introduce a list are not checked. Shared by the fixture property test and `eval:import`.
 */
export function silentlyLostLines(document: string | Buffer, result: ImportResult): SourceLine[] {
  const lines = normaliseInput(document, Number.MAX_SAFE_INTEGER).lines;
  const unused = new Set(result.report.unusedLines.map((l) => l.line));
  const haystack = foldText([JSON.stringify(result.draft), ...result.report.sections.map((s) => s.heading)].join('\n'));
  const chars = new Set(haystack.match(UNSPACED) ?? []);
  const lost: SourceLine[] = [];
  const frontMatterEnd = readFrontMatter(lines.map((text, i) => ({ line: i + 1, text }))).bodyStart;
  lines.forEach((text, i) => {
    const line = i + 1;
    if (text.trim() === '' || unused.has(line)) return;
    // A front-matter key with no value (`tags:`) only introduces the list below it; its items carry the words.
    if (i < frontMatterEnd && /^[\w-]+\s*:\s*$/.test(text)) return;
    // A table's header row names its columns; the cells below carry the content.
    if (/^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '') || /^\s*!/.test(text)) return;
    // Markup (a code fence with its language, a wikitext table's attributes), a blog post's header
    // and a note naming the zone are read for structure, not carried as words.
    if (/^\s*(?:```|~~~|\{\|)/.test(text) || isPostHeader(text, {}) || parseZoneNote(text) || findZoneInText(text.replace(/[*_]/g, ''))?.label.match(/[+\-−]\d/)) return;
    let rest = text;
    for (const d of findDates(text).reverse()) rest = rest.slice(0, d.index) + ' ' + rest.slice(d.index + d.text.length);
    rest = rest.replace(CALENDAR_WORDS, ' ');
    const words = wordsOf(rest);
    const han = unspacedOf(rest);
    const present = words.filter((w) => haystack.includes(w)).length + han.filter((c) => chars.has(c)).length;
    const total = words.length + han.length;
    if (total > 0 && present * 2 < total) lost.push({ line, text });
  });
  return lost;
}
