/**
 * Compares the block structure the importer's own lexer finds with what maintained parsers find,
 * per document of a corpus laid out like the one `eval:import` reads.
 * Run: npm run compare:parsers -- <corpus-dir>
 * (SHOW_DIFF=1 also lists, on stderr, the lines where the two disagree.)
 * Markdown documents go through mdast-util-from-markdown with the GFM extension (tables, task
 * lists), wikitext documents through wikiparser-node. Both read only the body after the front
 * matter, as the importer does. Per document it prints, for headings, list items and tables, the
 * count each side finds and how many agree: a heading agrees when both put one of the same level
 * on the same line, a list item when both start one on the same line, a table when both start one
 * on the same line (with the row count of each). Plain-text documents are skipped: neither
 * parser reads them. Weak headings (the importer's guesses from a short line or a `Label:` line)
 * are counted apart, since no grammar has them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import Parser from 'wikiparser-node';
import { parseBlocks } from '../libs/postmortem-parser/src/block.parser';
import { detectFormat } from '../libs/postmortem-parser/src/format.detector';
import { readFrontMatter } from '../libs/postmortem-parser/src/front-matter.parser';
import { normaliseInput } from '../libs/postmortem-parser/src/input.normalizer';

interface Structure { headings: string[]; weakHeadings: number; items: number[]; tables: Map<number, number> }

function ours(lines: { line: number; text: string }[], format: 'markdown' | 'wikitext' | 'text'): Structure {
  const blocks = parseBlocks(lines, format);
  const s: Structure = { headings: [], weakHeadings: 0, items: [], tables: new Map() };
  for (const b of blocks) {
    if (b.type === 'heading') (b.weak ? s.weakHeadings++ : s.headings.push(`${b.line}:${b.level}`));
    else if (b.type === 'item') s.items.push(b.line);
    else if (b.type === 'table') s.tables.set(Math.min(...(b.header ? [b.header.line] : []), ...b.rows.map((r) => r.line), ...b.markupLines), b.rows.length + (b.header ? 1 : 0));
  }
  return s;
}

type MdNode = { type: string; depth?: number; position?: { start: { line: number } }; children?: MdNode[] };

function viaMdast(body: string, offset: number): Structure {
  const tree = fromMarkdown(body, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode;
  const s: Structure = { headings: [], weakHeadings: 0, items: [], tables: new Map() };
  const walk = (n: MdNode) => {
    const line = (n.position?.start.line ?? 0) + offset;
    if (n.type === 'heading') s.headings.push(`${line}:${n.depth}`);
    if (n.type === 'listItem') s.items.push(line);
    if (n.type === 'table') s.tables.set(line, n.children?.length ?? 0);
    n.children?.forEach(walk);
  };
  walk(tree);
  return s;
}

function viaWikiparser(body: string, offset: number): Structure {
  const root = Parser.parse(body);
  const s: Structure = { headings: [], weakHeadings: 0, items: [], tables: new Map() };
  const lineOf = (t: { getAbsoluteIndex(): number }) => root.posFromIndex(t.getAbsoluteIndex())!.top + 1 + offset;
  for (const h of root.querySelectorAll('heading')) s.headings.push(`${lineOf(h)}:${(h as unknown as { level: number }).level}`);
  // A run of list markers (`*`, `#`, `:` after `;`) starts an item; several on one line are one item.
  for (const l of root.querySelectorAll('list')) if (!s.items.includes(lineOf(l))) s.items.push(lineOf(l));
  for (const t of root.querySelectorAll('table')) {
    const rows = t.querySelectorAll('tr').length;
    const implicitFirst = t.querySelectorAll('td').some((c) => !c.closest('tr'));
    s.tables.set(lineOf(t), rows + (implicitFirst ? 1 : 0));
  }
  return s;
}

const agree = <T>(a: T[], b: T[]) => a.filter((x) => b.includes(x)).length;

function main() {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npm run compare:parsers -- <corpus-dir>\n');
    process.exit(2);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { file: string }[];
  const rows: string[][] = [];
  const total = { oursH: 0, altH: 0, h: 0, weak: 0, oursI: 0, altI: 0, i: 0, oursT: 0, altT: 0, t: 0, rowsSame: 0 };
  for (const { file } of manifest) {
    const raw = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
    let k = 0;
    while (k < raw.length && /^<!-- (?:source|format): .*-->\s*$/.test(raw[k]!)) k++;
    const lines = normaliseInput(raw.slice(k).join('\n'), Number.MAX_SAFE_INTEGER).lines.map((text, i) => ({ line: i + 1, text }));
    const format = detectFormat(lines.map((l) => l.text));
    if (format === 'text') continue;
    const bodyStart = readFrontMatter(lines).bodyStart;
    const bodyLines = lines.slice(bodyStart);
    const body = bodyLines.map((l) => l.text).join('\n');
    const a = ours(bodyLines, format);
    const b = format === 'markdown' ? viaMdast(body, bodyStart) : viaWikiparser(body, bodyStart);
    const sameTables = [...a.tables.keys()].filter((line) => b.tables.has(line));
    const sameRows = sameTables.filter((line) => a.tables.get(line) === b.tables.get(line)).length;
    const h = agree(a.headings, b.headings), i = agree(a.items, b.items);
    Object.assign(total, {
      oursH: total.oursH + a.headings.length, altH: total.altH + b.headings.length, h: total.h + h, weak: total.weak + a.weakHeadings,
      oursI: total.oursI + a.items.length, altI: total.altI + b.items.length, i: total.i + i,
      oursT: total.oursT + a.tables.size, altT: total.altT + b.tables.size, t: total.t + sameTables.length, rowsSame: total.rowsSame + sameRows,
    });
    if (process.env.SHOW_DIFF) {
      const only = <T>(x: T[], y: T[]) => x.filter((v) => !y.includes(v));
      const show = (ids: (string | number)[]) => ids.map((id) => `${id} ${lines[Number(String(id).split(':')[0]) - 1]?.text.slice(0, 70)}`);
      for (const [label, d] of [['headings only parser', only(b.headings, a.headings)], ['headings only ours', only(a.headings, b.headings)], ['items only parser', only(b.items, a.items)], ['items only ours', only(a.items, b.items)]] as const)
        if (d.length) process.stderr.write(`${file} ${label}:\n  ${show(d as (string | number)[]).join('\n  ')}\n`);
    }
    rows.push([path.basename(file).replace(/\.\w+$/, ''), format, `${a.headings.length} / ${b.headings.length} / ${h}`, String(a.weakHeadings), `${a.items.length} / ${b.items.length} / ${i}`, `${a.tables.size} / ${b.tables.size} / ${sameTables.length} (${sameRows} same rows)`]);
  }
  const header = ['document', 'format', 'headings ours / parser / agree', 'weak headings (ours only)', 'list items ours / parser / agree', 'tables ours / parser / agree'];
  process.stdout.write([header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n') + '\n\n');
  process.stdout.write(`Total: headings ${total.oursH} / ${total.altH} / ${total.h} agree (plus ${total.weak} weak headings only ours finds); list items ${total.oursI} / ${total.altI} / ${total.i}; tables ${total.oursT} / ${total.altT} / ${total.t} (${total.rowsSame} with the same row count)\n`);
}

main();
