import { findFirstDate, type DateReadingHints, type FoundDate } from './calendar-date.parser';
import type { SourceLine } from './importer.types';

export interface FirstPost {
  /** The lines of the first post's body (title and header line excluded). */
  body: SourceLine[];
  title: SourceLine | null;
  header: SourceLine;
  date: FoundDate;
  postCount: number;
}

const POST_HEADER_WORDS =
  /(?<![\p{L}])(category|categories|kategorie|kategorien|catégorie|catégories|categoría|categorías|categoria|tags?|filed under|posted (?:in|on|by)|veröffentlicht|publié|publicado|chuyên mục|đăng ngày)(?![\p{L}])/iu;

/** A blog post's header line ("Sunday, 23. 01. 2011 – Category: sw, web"): its date, or null. */
export function isPostHeader(text: string, hints: DateReadingHints): FoundDate | null {
  if (text.length > 160 || !POST_HEADER_WORDS.test(text)) return null;
  const date = findFirstDate(text, hints);
  return date && date.date.year !== null ? date : null;
}

/**
 * A page saved from a blog often holds several posts, each opened by a title and a line such as
 * "Sunday, 23. 01. 2011 – Category: sw, web". The incident is the first post; the rest of the
 * page (and any site banner above it) is not part of it. Returns null for a page with no such
 * header.
 */
export function takeFirstPost(lines: readonly SourceLine[], hints: DateReadingHints): FirstPost | null {
  const headers: { index: number; date: FoundDate }[] = [];
  lines.forEach((l, index) => {
    const date = isPostHeader(l.text.trim(), hints);
    if (date) headers.push({ index, date });
  });
  if (headers.length === 0) return null;
  const titleIndexOf = (headerIndex: number): number | null => {
    for (let k = headerIndex - 1; k >= 0 && k >= headerIndex - 3; k--) {
      const t = lines[k].text.trim();
      if (t === '') continue;
      return t.length <= 120 && !/[.;,]$/.test(t) ? k : null;
    }
    return null;
  };
  const first = headers[0];
  const titleIndex = titleIndexOf(first.index);
  let end = lines.length;
  if (headers.length > 1) end = titleIndexOf(headers[1].index) ?? headers[1].index;
  // A site banner above the title and the later posts are simply not read: they end up unused.
  return {
    body: lines.slice(first.index + 1, end),
    title: titleIndex === null ? null : lines[titleIndex],
    header: lines[first.index],
    date: first.date,
    postCount: headers.length,
  };
}
