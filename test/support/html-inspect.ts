/**
 * Just enough HTML reading for page tests: every start tag with its attributes, decoded. Pages
 * always quote attributes with double quotes, but the reader accepts any quoting so that an
 * injected, unquoted attribute would still be seen.
 */
export interface Element {
  tag: string;
  attrs: Record<string, string>;
  /** Offset of the start tag in the document. */
  at: number;
}

const TAG = /<([a-zA-Z][a-zA-Z0-9:-]*)((?:\s+[^\s=>/"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*\/?>/g;
const ATTR = /([^\s=>/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

export function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export function elements(html: string): Element[] {
  const found: Element[] = [];
  for (const m of html.matchAll(TAG)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[2] ?? '').matchAll(ATTR)) attrs[a[1]!.toLowerCase()] = decodeEntities(a[2] ?? a[3] ?? a[4] ?? '');
    found.push({ tag: m[1]!.toLowerCase(), attrs, at: m.index ?? 0 });
  }
  return found;
}

/** Visible text, roughly: tags removed, entities decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return decodeEntities(html.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** The markup of the element with this id, up to its matching close tag (same tag name, nesting counted). */
export function sectionById(html: string, id: string): string {
  const start = html.search(new RegExp(`<([a-z0-9]+)[^>]*\\sid="${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
  if (start < 0) throw new Error(`no element with id "${id}"`);
  const tag = /^<([a-z0-9]+)/.exec(html.slice(start))![1]!;
  const re = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g');
  re.lastIndex = start;
  let depth = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return html.slice(start, m.index + m[0].length);
  }
  throw new Error(`element "${id}" is not closed`);
}
