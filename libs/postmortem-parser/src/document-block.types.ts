import type { SourceLine } from './importer.types';

/**
 * The importer's format-neutral view of a document: Markdown, wikitext and plain text are each
 * read into these blocks, every block keeping its source line numbers so that the report can
 * say which lines were used.
 */
export interface HeadingBlock {
  type: 'heading';
  line: number;
  /** Lines consumed by the heading's markup (a setext underline). */
  markupLines: number[];
  level: number;
  /** Heading text, still in the source's inline syntax. */
  text: string;
  /** Plain-text guess (a short line, a line ending with ':') rather than explicit markup. */
  weak: boolean;
}

export interface ParagraphBlock {
  type: 'paragraph';
  lines: SourceLine[];
}

export interface ListItemBlock {
  type: 'item';
  line: number;
  indent: number;
  ordered: boolean;
  /** The number an ordered item was written with ("3)" → 3), so the narrative keeps it. */
  number: number | null;
  /** Item text without its marker or checkbox. */
  text: string;
  /** `[x]` → true, `[ ]` → false, no checkbox → null. */
  checked: boolean | null;
  /** Wrapped or indented lines that continue the item. */
  continuation: SourceLine[];
}

export interface TableRow {
  line: number;
  cells: string[];
}

export interface TableBlock {
  type: 'table';
  header: TableRow | null;
  rows: TableRow[];
  markupLines: number[];
}

export interface CodeBlock {
  type: 'code';
  lines: SourceLine[];
  markupLines: number[];
}

export interface CommentBlock {
  type: 'comment';
  lines: SourceLine[];
}

export interface RuleBlock {
  type: 'rule';
  line: number;
}

export type DocumentBlock = HeadingBlock | ParagraphBlock | ListItemBlock | TableBlock | CodeBlock | CommentBlock | RuleBlock;

/** Every source line a block covers, markup included. */
export function blockLines(block: DocumentBlock): number[] {
  switch (block.type) {
    case 'heading':
      return [block.line, ...block.markupLines];
    case 'paragraph':
    case 'comment':
      return block.lines.map((l) => l.line);
    case 'item':
      return [block.line, ...block.continuation.map((l) => l.line)];
    case 'table':
      return [...(block.header ? [block.header.line] : []), ...block.rows.map((r) => r.line), ...block.markupLines];
    case 'code':
      return [...block.lines.map((l) => l.line), ...block.markupLines];
    case 'rule':
      return [block.line];
  }
}
