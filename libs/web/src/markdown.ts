import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { SafeHtml } from './html';

export interface MarkdownOptions {
  /**
   * Levels to push headings down, so a narrative's `##` sits under the page's own section
   * heading instead of competing with it (1: `#` → h2, `##` → h3). Clamped at h6.
   */
  headingOffset?: number;
}

// One parser for the process: GFM tables and strikethrough, no raw-HTML passthrough worth
// trusting (whatever HTML marked lets through is sanitised below).
const parser = new Marked({ gfm: true, breaks: false, async: false });

const BASE_TAGS = ['p', 'br', 'hr', 'blockquote', 'ul', 'ol', 'li', 'strong', 'em', 'del', 's', 'code', 'pre', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sup', 'sub', 'kbd', 'abbr'];

function headingMap(offset: number): Record<string, string> {
  const map: Record<string, string> = {};
  for (let level = 1; level <= 6; level++) map[`h${level}`] = `h${Math.min(6, level + offset)}`;
  return map;
}

/**
 * Narrative Markdown → HTML that cannot run script: the output keeps text structure, links with
 * http(s)/mailto targets and tables; it drops script, style, iframes, SVG, images, forms, every
 * attribute not listed (so no event handlers and no inline style) and any other URL scheme.
 * Images are dropped rather than proxied: pages forbid third-party loads.
 */
export function renderMarkdown(markdown: string, options: MarkdownOptions = {}): SafeHtml {
  const offset = Math.max(0, Math.min(5, options.headingOffset ?? 0));
  const headings = headingMap(offset);
  const rendered = parser.parse(markdown) as string;
  const clean = sanitizeHtml(rendered, {
    allowedTags: [...BASE_TAGS, ...new Set(Object.values(headings))],
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      abbr: ['title'],
      ol: ['start'],
      th: ['align'],
      td: ['align'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    transformTags: {
      ...headings,
      // Links in a postmortem point at third-party sites: no referrer, no opener, no SEO credit.
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
    },
  });
  return new SafeHtml(clean);
}
