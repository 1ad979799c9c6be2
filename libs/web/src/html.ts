/**
 * HTML built from templates where every interpolated value is escaped unless it is already
 * `SafeHtml`. Pages assemble markup only through `html`, so forgetting to escape user text is
 * not an easy mistake to make: the unsafe path (`trustedHtml`) has to be asked for by name.
 */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${userText}</p>\`` escapes `userText`; nested `html` results pass through. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Markup from a source that escapes for itself (sanitised Markdown, a plugged-in panel). */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Joins fragments with a separator that is itself escaped. */
export function joinHtml(parts: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  const sep = render(separator);
  return new SafeHtml(parts.map(render).join(sep));
}

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * The URL when it is safe to put in an `href` (http, https, mailto, or a same-site path or
 * fragment), else null. Tracker references and source links come from imported documents, so a
 * `javascript:` or `data:` URL must never reach a link.
 */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  const trimmed = url.trim();
  if (trimmed.startsWith('#') || (trimmed.startsWith('/') && !trimmed.startsWith('//'))) return trimmed;
  try {
    return SAFE_SCHEMES.has(new URL(trimmed).protocol) ? trimmed : null;
  } catch {
    return null;
  }
}
