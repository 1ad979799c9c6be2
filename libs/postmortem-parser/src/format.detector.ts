import type { DocumentFormat } from './importer.types';

const MD_HEADING = /^\s{0,3}#{1,6}\s+\S/;
const MD_TABLE_RULE = /^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+(?:\|\s*)?$/;
// Character classes exclude their own opening bracket so a line full of "[" stays linear.
const MD_LINK = /\[[^\][\n]+\]\([^()\s]+\)/;
const MD_FENCE = /^\s{0,3}(```|~~~)/;
const MD_CHECKBOX = /^\s*[-*+]\s+\[[ xX]\]\s/;
const WIKI_HEADING = /^(={1,6})[^=].*[^=]\1\s*$/;
const WIKI_TABLE = /^\{\|/;

/**
 * Scores the signals each syntax leaves and picks the stronger. Plain text is the fallback: a
 * document with neither `#` headings nor `== x ==` headings is read line by line.
 */
export function detectFormat(lines: readonly string[]): DocumentFormat {
  let markdown = 0;
  let wikitext = 0;
  const firstContent = lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('<!--'));
  if (firstContent >= 0 && lines[firstContent].trim() === '---' && lines.slice(firstContent + 1, firstContent + 60).some((l) => /^(---|\.\.\.)\s*$/.test(l))) {
    markdown += 6;
  }
  lines.forEach((line, i) => {
    if (MD_HEADING.test(line)) markdown += 3;
    if (MD_TABLE_RULE.test(line)) markdown += 3;
    if (MD_FENCE.test(line)) markdown += 2;
    if (MD_CHECKBOX.test(line)) markdown += 2;
    if (MD_LINK.test(line)) markdown += 1;
    if (/\*\*[^*\n]+\*\*/.test(line)) markdown += 1;
    if (i > 0 && /^\s{0,3}(=+|-+)\s*$/.test(line) && /\p{L}/u.test(lines[i - 1]) && !WIKI_HEADING.test(lines[i - 1]) && !/^\s*([-*+]|\d+[.)])\s/.test(lines[i - 1])) {
      markdown += 2;
    }
    if (WIKI_HEADING.test(line)) wikitext += 4;
    if (WIKI_TABLE.test(line)) wikitext += 3;
    if (line.includes("'''")) wikitext += 2;
    if (/\[\[[^\][\n]+\]\]/.test(line)) wikitext += 2;
    if (/\{\{[^{}\n]+\}\}/.test(line)) wikitext += 2;
    if (/(^|\s)\[https?:\/\/[^\s\][]+ [^\][]+\]/.test(line)) wikitext += 1;
  });
  if (markdown >= 3 && markdown >= wikitext) return 'markdown';
  if (wikitext >= 3) return 'wikitext';
  return 'text';
}
