import type { DocumentFormat } from './importer.types';

const ENTITIES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', ndash: '–', mdash: '—', hellip: '…', rarr: '→' };

function templateToMarkdown(body: string): string {
  const [rawName, ...args] = body.split('|').map((s) => s.trim());
  const name = rawName.toLowerCase();
  if (/^(phab|phabricator|task|phabt)$/.test(name) && args[0]) return /^T\d+$/i.test(args[0]) ? args[0].toUpperCase() : `T${args[0]}`;
  if (name === 'gerrit' && args[0]) return `Gerrit change ${args[0]}`;
  if (/^(done|tick|yes|check|✓)$/.test(name)) return '[done]';
  if (/^(not ?done|cross|no|wontfix|won't fix)$/.test(name)) return "[won't do]";
  if (/^(in ?progress|doing|wip)$/.test(name)) return '[in progress]';
  if (/^(todo|to ?do|open)$/.test(name)) return '[todo]';
  if (name === 'status' && args[0]) return `[${args[0]}]`;
  if (/^(code|tt|kbd|mono)$/.test(name) && args[0]) return `\`${args[0]}\``;
  if (/^(u|user|ping)$/.test(name) && args[0]) return `@${args[0]}`;
  // Other templates render site-specific boxes the importer cannot reproduce.
  return '';
}

/** Wikitext inline markup rewritten as Markdown: bold, links, templates, `<code>`, entities. */
export function wikitextInlineToMarkdown(text: string): string {
  return text
    .replace(/<ref[^>]*\/>|<ref[^>]*>[\s\S]{0,2000}?<\/ref>/gi, '')
    .replace(/<nowiki>([\s\S]{0,2000}?)<\/nowiki>/gi, '$1')
    .replace(/\{\{([^{}]*)\}\}/g, (_, body: string) => templateToMarkdown(body))
    .replace(/\[\[(?:File|Image|Datei|Fichier|Archivo|Category|Kategorie):[^\][]*\]\]/gi, '')
    .replace(/\[\[(?:[^|\][]*\|)?([^\][]*)\]\]/g, (_, label: string) => label.replace(/^phab:/i, ''))
    .replace(/\[(https?:\/\/[^\s\][]+) ([^\][]+)\]/g, '[$2]($1)')
    .replace(/\[(https?:\/\/[^\s\]]+)\]/g, '<$1>')
    .replace(/'''''(.+?)'''''/g, '***$1***')
    .replace(/'''(.+?)'''/g, '**$1**')
    .replace(/''(.+?)''/g, '*$1*')
    .replace(/<(code|tt|kbd)>([^<]*)<\/\1>/gi, '`$2`')
    .replace(/<(s|del|strike)>([^<]*)<\/\1>/gi, '~~$2~~')
    .replace(/<(b|strong)>([^<]*)<\/\1>/gi, '**$2**')
    .replace(/<(i|em)>([^<]*)<\/\1>/gi, '*$2*')
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/&(nbsp|amp|lt|gt|quot|ndash|mdash|hellip|rarr);/g, (_, name: string) => ENTITIES[name] ?? '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** A line's inline text in Markdown, whatever the source format. */
export function toMarkdownInline(text: string, format: DocumentFormat): string {
  return format === 'wikitext' ? wikitextInlineToMarkdown(text) : text.trim();
}

/** Markdown inline text reduced to words, for titles and keys. */
export function markdownToPlain(text: string): string {
  return text
    .replace(/!\[[^\][]*\]\([^()]*\)/g, '')
    .replace(/\[([^\][]*)\]\([^()]*\)/g, '$1')
    .replace(/<(https?:\/\/[^<>]+)>/g, '$1')
    .replace(/\*\*|__|~~|`/g, '')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/\s{2,}/g, ' ')
    .trim();
}
