import { blockLines, type DocumentBlock, type ParagraphBlock, type TableBlock } from './document-block.types';
import type { DocumentFormat, SourceLine } from './importer.types';
import { toMarkdownInline } from './inline.converter';
import type { DocumentSection } from './section.builder';

export interface NarrativePart {
  section: DocumentSection;
  blocks: readonly DocumentBlock[];
  /** Show the heading even without blocks (it gives the sections below it a parent). */
  keepEmptyHeading: boolean;
}

/**
 * Plain-text exports put one paragraph per line, while hand-wrapped text continues a sentence
 * on the next line. A line that ends a sentence (or is short) closes its paragraph, and so does
 * each entry of a list introduced by a line ending in ":".
 */
export function splitTextParagraphs(lines: readonly SourceLine[]): SourceLine[][] {
  const groups: SourceLine[][] = [];
  let current: SourceLine[] = [];
  // After a line ending in ":", each line is an entry of the list it introduces (a web page saved
  // as text loses its bullets), until an entry ends a sentence.
  let listing = false;
  for (const l of lines) {
    current.push(l);
    const t = l.text.trim();
    if (listing || /[.!?:…"”)]$/.test(t) || t.length < 50) {
      groups.push(current);
      current = [];
      listing = /:$/.test(t) || (listing && !/[.!?…]$/.test(t));
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function renderParagraph(block: ParagraphBlock, format: DocumentFormat): string {
  if (format === 'text') {
    return splitTextParagraphs(block.lines)
      .map((group) => group.map((l) => l.text.trim()).join('\n'))
      .join('\n\n');
  }
  return block.lines.map((l) => toMarkdownInline(l.text, format)).join('\n');
}

function renderTable(block: TableBlock, format: DocumentFormat): string {
  const width = Math.max(block.header?.cells.length ?? 0, ...block.rows.map((r) => r.cells.length), 1);
  const row = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => toMarkdownInline(cells[i] ?? '', format).replace(/\|/g, '\\|')).join(' | ')} |`;
  return [row(block.header?.cells ?? []), `|${' --- |'.repeat(width)}`, ...block.rows.map((r) => row(r.cells))].join('\n');
}

/** One block as Markdown; null for blocks that are not prose (comments). */
export function renderBlock(block: DocumentBlock, format: DocumentFormat): string | null {
  switch (block.type) {
    case 'paragraph':
      return renderParagraph(block, format);
    case 'item': {
      const text = toMarkdownInline([block.text, ...block.continuation.map((l) => l.text)].join(' '), format);
      const box = block.checked === null ? '' : block.checked ? '[x] ' : '[ ] ';
      return `${' '.repeat(block.indent)}${block.ordered ? `${block.number ?? 1}.` : '-'} ${box}${text}`;
    }
    case 'table':
      return renderTable(block, format);
    case 'code':
      return ['```text', ...block.lines.map((l) => l.text), '```'].join('\n');
    case 'rule':
      return '---';
    case 'heading':
      return `## ${toMarkdownInline(block.text, format)}`;
    case 'comment':
      return null;
  }
}

/** Blocks as Markdown, list items kept together, everything else separated by a blank line. */
export function renderBlocks(blocks: readonly DocumentBlock[], format: DocumentFormat, used?: Set<number>): string {
  let out = '';
  let previous: DocumentBlock | null = null;
  for (const block of blocks) {
    const text = renderBlock(block, format);
    if (text === null) continue;
    blockLines(block).forEach((l) => used?.add(l));
    const sep = out === '' ? '' : previous?.type === 'item' && block.type === 'item' ? '\n' : '\n\n';
    out += sep + text;
    previous = block;
  }
  return out;
}

/**
 * The document's prose as Markdown: every section's heading and text, except what became
 * structured data (timeline events, action items), which the application shows from the data.
 */
export function buildNarrative(parts: readonly NarrativePart[], format: DocumentFormat, used: Set<number>): string {
  const levels = parts.filter((p) => p.section.heading).map((p) => p.section.level);
  const top = levels.length > 0 ? Math.min(...levels) : 2;
  const chunks: string[] = [];
  for (const part of parts) {
    const body = renderBlocks(part.blocks, format, used);
    const { heading } = part.section;
    if (heading && (body || part.keepEmptyHeading)) {
      const level = Math.min(6, 2 + Math.max(0, part.section.level - top));
      chunks.push(`${'#'.repeat(level)} ${toMarkdownInline(heading.text, format).replace(/[:：]$/, '')}`);
    }
    if (body) chunks.push(body);
  }
  return chunks.join('\n\n');
}
