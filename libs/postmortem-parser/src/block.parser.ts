import { findTimeInHeading } from './time-expression.parser';
import type { CodeBlock, CommentBlock, DocumentBlock, HeadingBlock, ListItemBlock, ParagraphBlock, TableBlock, TableRow } from './document-block.types';
import type { DocumentFormat, SourceLine } from './importer.types';
import { classifyHeading } from './section.classifier';
import { parseZoneNote } from './time-zone.resolver';

/** Reads a document's body into blocks; the dialect only changes how lines are recognised. */
export function parseBlocks(lines: readonly SourceLine[], format: DocumentFormat): DocumentBlock[] {
  switch (format) {
    case 'markdown':
      return promoteLabelLines(parseMarkdown(lines));
    case 'wikitext':
      return promoteLabelLines(parseWikitext(lines));
    case 'text':
      return parseText(lines);
  }
}

const LABEL_LINE = /^\s*(\*\*|__|''')([^*_']{1,80}?)\s*:?\s*\1\s*:?\s*$/;

/**
 * A paragraph that is one bold line works as a heading when it names a section
 * ("**Action Items**:" before a table) or carries a date and a time ("**2024-03-12 10:27 Update 2**",
 * one entry of a status notice). It becomes a heading one level below any other, so it nests
 * in the section it is written in.
 */
function promoteLabelLines(blocks: DocumentBlock[]): DocumentBlock[] {
  return blocks.map((block) => {
    if (block.type !== 'paragraph' || block.lines.length !== 1) return block;
    const m = LABEL_LINE.exec(block.lines[0].text);
    if (!m) return block;
    const text = m[2].trim();
    if (classifyHeading(text).confidence < 0.7 && !findTimeInHeading(text)?.clock) return block;
    return { type: 'heading', line: block.lines[0].line, markupLines: [], level: 7, text, weak: true };
  });
}

const indentOf = (text: string) => {
  const lead = /^[ \t]*/.exec(text)?.[0] ?? '';
  return lead.replace(/\t/g, '    ').length;
};
const isBlank = (text: string) => text.trim() === '';
/** A line that completes a sentence; the next line then starts something new. */
const endsSentence = (text: string) => /[.!?:;…)\]"”*]$/.test(text.trim());
const CHECKBOX = /^\[( |x|X)\]\s+/;
const numberOf = (marker: string) => (/^\(?\d+/.test(marker) ? Number(/\d+/.exec(marker)?.[0]) : null);

function splitCheckbox(text: string): { text: string; checked: boolean | null } {
  const m = CHECKBOX.exec(text);
  if (!m) return { text, checked: null };
  return { text: text.slice(m[0].length), checked: m[1] !== ' ' };
}

function collectComment(lines: readonly SourceLine[], i: number): { block: CommentBlock; next: number } {
  const taken: SourceLine[] = [];
  let j = i;
  for (; j < lines.length; j++) {
    taken.push(lines[j]);
    if (lines[j].text.includes('-->')) break;
  }
  return { block: { type: 'comment', lines: taken }, next: j + 1 };
}

function splitTableRow(text: string): string[] {
  let body = text.trim();
  if (body.startsWith('|')) body = body.slice(1);
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1);
  return body.split(/(?<!\\)\|/).map((cell) => cell.replace(/\\\|/g, '|').trim());
}

const MD_LIST_ITEM = /^(\s*)([-*+•·]|\d{1,3}[.)])\s+(.*)$/;
// Every optional part starts with a character of its own, so a line of spaces cannot make the
// engine try every split of them.
const MD_TABLE_RULE = /^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*(?:\|\s*)?$/;

function parseMarkdown(lines: readonly SourceLine[]): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let paragraph: ParagraphBlock | null = null;
  let item: ListItemBlock | null = null;
  let blankSinceItem = false;

  for (let i = 0; i < lines.length; i++) {
    const { line, text } = lines[i];
    if (isBlank(text)) {
      paragraph = null;
      blankSinceItem = true;
      continue;
    }
    // CommonMark: the info string after a backtick fence holds no backtick, so "```{…}```" on one
    // line is inline code in a paragraph, not a fence that would swallow the rest of the document.
    const fence = /^\s{0,3}(?:(`{3,})[^`]*|(~{3,}).*)$/.exec(text);
    if (fence) {
      const code: CodeBlock = { type: 'code', lines: [], markupLines: [line] };
      let j = i + 1;
      const marker = fence[1] ?? fence[2];
      for (; j < lines.length && !lines[j].text.trim().startsWith(marker); j++) code.lines.push(lines[j]);
      if (j < lines.length) code.markupLines.push(lines[j].line);
      blocks.push(code);
      i = j;
      paragraph = null;
      item = null;
      continue;
    }
    if (/^\s*<!--/.test(text)) {
      const { block, next } = collectComment(lines, i);
      blocks.push(block);
      i = next - 1;
      paragraph = null;
      continue;
    }
    const atx = /^\s{0,3}(#{1,6})\s+(.*)$/.exec(text);
    if (atx) {
      // Closing hashes ("## Title ##") are markup; removed without a `\s+#+$` regex, which is
      // quadratic on long runs of spaces.
      const body = /\s#+$/.test(atx[2]) ? atx[2].replace(/#+$/, '').trimEnd() : atx[2].trim();
      blocks.push({ type: 'heading', line, markupLines: [], level: atx[1].length, text: body, weak: false });
      paragraph = null;
      item = null;
      continue;
    }
    if (paragraph && paragraph.lines.length === 1 && /^\s{0,3}(=+|-+)\s*$/.test(text)) {
      blocks.pop();
      const level = text.trim().startsWith('=') ? 1 : 2;
      blocks.push({ type: 'heading', line: paragraph.lines[0].line, markupLines: [line], level, text: paragraph.lines[0].text.trim(), weak: false });
      paragraph = null;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(text)) {
      blocks.push({ type: 'rule', line });
      paragraph = null;
      item = null;
      continue;
    }
    if (text.includes('|') && i + 1 < lines.length && MD_TABLE_RULE.test(lines[i + 1].text) && lines[i + 1].text.includes('-')) {
      const table: TableBlock = { type: 'table', header: { line, cells: splitTableRow(text) }, rows: [], markupLines: [lines[i + 1].line] };
      let j = i + 2;
      for (; j < lines.length && lines[j].text.includes('|') && !isBlank(lines[j].text); j++) {
        table.rows.push({ line: lines[j].line, cells: splitTableRow(lines[j].text) });
      }
      blocks.push(table);
      i = j - 1;
      paragraph = null;
      item = null;
      continue;
    }
    const listItem = MD_LIST_ITEM.exec(text);
    if (listItem) {
      const { text: body, checked } = splitCheckbox(listItem[3]);
      item = { type: 'item', line, indent: indentOf(listItem[1]), ordered: /\d/.test(listItem[2]), number: numberOf(listItem[2]), text: body, checked, continuation: [] };
      blocks.push(item);
      paragraph = null;
      blankSinceItem = false;
      continue;
    }
    const stripped = text.replace(/^\s{0,3}>\s?/, '');
    if (item && !paragraph) {
      const indented = indentOf(text) > item.indent;
      const previous = item.continuation.at(-1)?.text ?? item.text;
      // A lazy continuation only when the item's last line stops mid-sentence: exported pages
      // often put a new paragraph right under a list without a blank line.
      if ((indented && (blankSinceItem ? indentOf(text) >= item.indent + 2 : true)) || (!blankSinceItem && !endsSentence(previous))) {
        item.continuation.push({ line, text: text.trim() });
        continue;
      }
      item = null;
    }
    if (paragraph) {
      paragraph.lines.push({ line, text: stripped });
    } else {
      paragraph = { type: 'paragraph', lines: [{ line, text: stripped }] };
      blocks.push(paragraph);
    }
  }
  return blocks;
}

function parseWikitext(lines: readonly SourceLine[]): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let paragraph: ParagraphBlock | null = null;
  let item: ListItemBlock | null = null;

  for (let i = 0; i < lines.length; i++) {
    const { line, text } = lines[i];
    if (isBlank(text)) {
      paragraph = null;
      item = null;
      continue;
    }
    if (/^\s*<!--/.test(text)) {
      const { block, next } = collectComment(lines, i);
      blocks.push(block);
      i = next - 1;
      continue;
    }
    const pre = /^\s*<(pre|syntaxhighlight|source)\b[^>]*>/i.exec(text);
    if (pre) {
      const code: CodeBlock = { type: 'code', lines: [], markupLines: [] };
      const close = new RegExp(`</${pre[1]}>`, 'i');
      let j = i;
      for (; j < lines.length; j++) {
        const inner = lines[j].text.replace(pre[0], '').replace(close, '');
        if (inner.trim() === '' && (j === i || close.test(lines[j].text))) code.markupLines.push(lines[j].line);
        else code.lines.push({ line: lines[j].line, text: inner });
        if (close.test(lines[j].text)) break;
      }
      blocks.push(code);
      i = j;
      paragraph = null;
      item = null;
      continue;
    }
    const heading = /^(={1,6})\s*(.+?)\s*\1\s*$/.exec(text);
    if (heading) {
      blocks.push({ type: 'heading', line, markupLines: [], level: heading[1].length, text: heading[2], weak: false });
      paragraph = null;
      item = null;
      continue;
    }
    if (/^\{\|/.test(text)) {
      const { block, next } = parseWikiTable(lines, i);
      blocks.push(block);
      i = next - 1;
      paragraph = null;
      item = null;
      continue;
    }
    if (/^-{4,}\s*$/.test(text)) {
      blocks.push({ type: 'rule', line });
      paragraph = null;
      item = null;
      continue;
    }
    // "*:" continues the bullet above it.
    const continued = /^[*#]+:+\s*(.*)$/.exec(text);
    if (continued && item) {
      item.continuation.push({ line, text: continued[1] });
      continue;
    }
    const listItem = /^([*#]+)\s*(.*)$/.exec(text);
    if (listItem && !/^#(REDIRECT|WEITERLEITUNG)/i.test(text)) {
      const { text: body, checked } = splitCheckbox(listItem[2]);
      item = { type: 'item', line, indent: (listItem[1].length - 1) * 2, ordered: listItem[1].endsWith('#'), number: null, text: body, checked, continuation: [] };
      blocks.push(item);
      paragraph = null;
      continue;
    }
    const indentedLine = /^[:;]+\s*(.*)$/.exec(text);
    if (indentedLine && item) {
      item.continuation.push({ line, text: indentedLine[1] });
      continue;
    }
    if (/^ \S/.test(text)) {
      const code: CodeBlock = { type: 'code', lines: [], markupLines: [] };
      let j = i;
      for (; j < lines.length && /^ /.test(lines[j].text); j++) code.lines.push({ line: lines[j].line, text: lines[j].text.slice(1) });
      blocks.push(code);
      i = j - 1;
      paragraph = null;
      item = null;
      continue;
    }
    item = null;
    const body = indentedLine ? indentedLine[1] : text;
    if (paragraph) paragraph.lines.push({ line, text: body });
    else {
      paragraph = { type: 'paragraph', lines: [{ line, text: body }] };
      blocks.push(paragraph);
    }
  }
  return blocks;
}

function parseWikiTable(lines: readonly SourceLine[], start: number): { block: TableBlock; next: number } {
  const block: TableBlock = { type: 'table', header: null, rows: [], markupLines: [lines[start].line] };
  let current: TableRow | null = null;
  const cellText = (cell: string) => {
    // "style="..." | content": the content follows the last single pipe.
    const parts = cell.split(/(?<!\|)\|(?!\|)/);
    return (parts.length > 1 && /=/.test(parts[0]) ? parts.slice(1).join('|') : cell).trim();
  };
  let j = start + 1;
  for (; j < lines.length; j++) {
    const { line, text } = lines[j];
    const t = text.trim();
    if (t.startsWith('|}')) {
      block.markupLines.push(line);
      j++;
      break;
    }
    if (t.startsWith('|-') || t.startsWith('|+')) {
      block.markupLines.push(line);
      current = null;
      continue;
    }
    if (t.startsWith('!') || t.startsWith('|')) {
      const isHeader = t.startsWith('!');
      const cells = t.slice(1).split(isHeader ? /!!|\|\|/ : /\|\|/).map(cellText);
      if (!current) {
        current = { line, cells: [] };
        if (isHeader && !block.header && block.rows.length === 0) block.header = current;
        else block.rows.push(current);
      } else {
        block.markupLines.push(line);
      }
      current.cells.push(...cells);
      continue;
    }
    // A cell's text wrapped onto the next line.
    if (current && current.cells.length > 0) current.cells[current.cells.length - 1] += ` ${t}`;
    block.markupLines.push(line);
  }
  return { block, next: j };
}

const TEXT_LIST_ITEM = /^(\s*)([-*•·◦▪‣–+]|\d{1,3}[.)]|\(\d{1,3}\))\s+(.*)$/;
const UNDERLINE = /^\s*([=\-~*_#])\1{2,}\s*$/;

/** Terminal output, stack traces and tables of numbers: kept verbatim, never read as prose. */
export function looksLikeCode(text: string): boolean {
  const t = text.trim();
  if (/^(\$ |# |#\d+\s+0x|\(gdb\)|>>> |[\w.-]+@[\w.-]+:|at [\w.$]+\(|Traceback )/.test(t)) return true;
  if (/(?<!-)-{3,}\w+-{3,}/.test(t)) return true;
  const tokens = t.split(/\s+/);
  // A column header such as vmstat's "r b swpd free buff cache si so ...".
  if (tokens.length >= 10 && t.length / tokens.length <= 3.5 && /^[a-z0-9 ]+$/.test(t)) return true;
  const letters = (t.match(/\p{L}/gu) ?? []).length;
  const digits = (t.match(/\d/g) ?? []).length;
  return t.length >= 12 && digits > letters && /\s\d+\s+\d+\s/.test(t);
}

function parseText(lines: readonly SourceLine[]): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let paragraph: ParagraphBlock | null = null;
  let item: ListItemBlock | null = null;
  let code: CodeBlock | null = null;

  for (let i = 0; i < lines.length; i++) {
    const { line, text } = lines[i];
    if (isBlank(text)) {
      paragraph = null;
      item = null;
      code = null;
      continue;
    }
    if (/^\s*<!--/.test(text)) {
      const { block, next } = collectComment(lines, i);
      blocks.push(block);
      i = next - 1;
      continue;
    }
    const previousBlank = i === 0 || isBlank(lines[i - 1].text);
    const nextText = i + 1 < lines.length ? lines[i + 1].text : '';
    const trimmed = text.trim();
    const heading = textHeading(trimmed, previousBlank, nextText);
    if (heading && !TEXT_LIST_ITEM.test(text)) {
      const underline = UNDERLINE.test(nextText) && !isBlank(nextText);
      const block: HeadingBlock = {
        type: 'heading',
        line,
        markupLines: underline ? [lines[i + 1].line] : [],
        level: heading,
        text: trimmed,
        weak: true,
      };
      blocks.push(block);
      if (underline) i++;
      paragraph = null;
      item = null;
      code = null;
      continue;
    }
    if (looksLikeCode(text)) {
      if (!code) {
        code = { type: 'code', lines: [], markupLines: [] };
        blocks.push(code);
      }
      code.lines.push({ line, text });
      paragraph = null;
      item = null;
      continue;
    }
    code = null;
    const listItem = TEXT_LIST_ITEM.exec(text);
    if (listItem) {
      const { text: body, checked } = splitCheckbox(listItem[3]);
      item = { type: 'item', line, indent: indentOf(listItem[1]), ordered: /\d/.test(listItem[2]), number: numberOf(listItem[2]), text: body, checked, continuation: [] };
      blocks.push(item);
      paragraph = null;
      continue;
    }
    if (item && indentOf(text) > item.indent) {
      item.continuation.push({ line, text: trimmed });
      continue;
    }
    item = null;
    if (paragraph) paragraph.lines.push({ line, text: trimmed });
    else {
      paragraph = { type: 'paragraph', lines: [{ line, text: trimmed }] };
      blocks.push(paragraph);
    }
  }
  return blocks;
}

/**
 * Plain text has no heading markup, so a heading is inferred: an underlined line; a short line
 * standing alone between blank lines; a short line that names a known section ("Timeline of
 * events (UTC)"); or a line ending with ':' that names a known section ("Timeline for March 31st:")
 * or is a bare label of a few words ("RESTBase:"). Returns the level, or 0 for "not a heading".
 */
function textHeading(text: string, previousBlank: boolean, nextText: string): number {
  // RD and AsciiDoc mark headings with leading "=" signs: "= Title", "== Timeline".
  const marked = /^(={1,5})\s+\S/.exec(text);
  if (marked && text.length <= 120) return marked[1].length;
  if (text.length > 80 || !/\p{L}/u.test(text) || looksLikeCode(text)) return 0;
  // A sentence in Japanese or Chinese ends with 。, and a note naming the zone is not a heading either.
  if (/[。．！？]$/.test(text) || (parseZoneNote(text) && classifyHeading(text).confidence < 0.5)) return 0;
  if (UNDERLINE.test(nextText) && text.length <= 80) return /^\s*=/.test(nextText) ? 1 : 2;
  const colon = /[:：]$/.test(text);
  const sentenceEnd = /[.,;!?…]$/.test(text);
  const classification = text.length <= 70 ? classifyHeading(text) : { kind: 'other', confidence: 0 };
  if (colon) {
    // "Quiet, far too quiet. Attach gdb and the cause shows up:" is a sentence, not a heading.
    if (/[.!?]\s/.test(text)) return 0;
    if (classification.confidence >= 0.5) return 3;
    const words = text.split(/\s+/).length;
    return words <= 3 ? 3 : 0;
  }
  if (sentenceEnd || text.length > 60) return 0;
  if (previousBlank && isBlank(nextText)) return 2;
  if (classification.confidence >= 0.75) return 2;
  return 0;
}
