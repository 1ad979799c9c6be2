import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type { ImportWarning, SourceLine } from './importer.types';

/** What a document may say about itself, in YAML front matter or a leading HTML comment. */
export interface DocumentMetadata {
  title?: string;
  date?: string;
  organization?: string;
  slug?: string;
  tags: string[];
  patterns: string[];
  source?: string;
  sourceTitle?: string;
  language?: string;
  timeZone?: string;
  components: string[];
}

export interface FrontMatterResult {
  metadata: DocumentMetadata;
  /** Index (0-based) of the first body line. */
  bodyStart: number;
  used: number[];
  /**
   * Lines of a `tags` key. Tags reach the draft only as patterns, so these are neither used nor
   * unused here: the parser counts a line used when a tag it names became one of the draft's
   * patterns (the key line itself when one of its items did), and lists the others unused.
   */
  tagLines: SourceLine[];
  warnings: ImportWarning[];
}

const MAX_FRONT_MATTER = 16 * 1024;

const KEY_ALIASES: Record<string, keyof DocumentMetadata> = {
  title: 'title',
  date: 'date',
  incident_date: 'date',
  organization: 'organization',
  organisation: 'organization',
  org: 'organization',
  company: 'organization',
  slug: 'slug',
  tags: 'tags',
  patterns: 'patterns',
  source: 'source',
  source_url: 'source',
  url: 'source',
  source_title: 'sourceTitle',
  language: 'language',
  lang: 'language',
  timezone: 'timeZone',
  time_zone: 'timeZone',
  tz: 'timeZone',
  components: 'components',
};

function asStrings(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').map((v) => String(v).trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  return [];
}

const isTagsKey = (key: string) => KEY_ALIASES[key.toLowerCase().replace(/[\s-]/g, '_')] === 'tags';

function apply(metadata: DocumentMetadata, key: string, value: unknown): boolean {
  const field = KEY_ALIASES[key.toLowerCase().replace(/[\s-]/g, '_')];
  if (!field) return false;
  if (field === 'tags' || field === 'patterns' || field === 'components') {
    metadata[field] = [...metadata[field], ...asStrings(value)];
    return true;
  }
  if (field === 'source' && value && typeof value === 'object' && !Array.isArray(value)) {
    const source = value as Record<string, unknown>;
    if (typeof source.url === 'string') metadata.source = source.url;
    if (typeof source.title === 'string') metadata.sourceTitle = source.title;
    if (typeof source.language === 'string') metadata.language = source.language;
    return true;
  }
  if (value instanceof Date) value = value.toISOString().slice(0, 10);
  if (typeof value === 'string' || typeof value === 'number') {
    metadata[field] = String(value).trim();
    return true;
  }
  return false;
}

/**
 * Reads YAML front matter and HTML comments at the top of a document, in either order. Comment
 * lines of the form `key: value` with a known key count as metadata (exports from wikis and
 * Confluence often leave the source URL there); anything else in them is reported unused.
 */
export function readFrontMatter(lines: readonly SourceLine[]): FrontMatterResult {
  const metadata: DocumentMetadata = { tags: [], patterns: [], components: [] };
  const used: number[] = [];
  const tagLines: SourceLine[] = [];
  const warnings: ImportWarning[] = [];
  let i = 0;
  let sawYaml = false;
  for (;;) {
    while (i < lines.length && lines[i].text.trim() === '') i++;
    if (i >= lines.length) break;
    const text = lines[i].text.trim();
    if (text.startsWith('<!--')) {
      let j = i;
      const inner: SourceLine[] = [];
      for (; j < lines.length; j++) {
        let body = lines[j].text;
        if (j === i) body = body.replace(/^\s*<!--/, '');
        const closes = body.includes('-->');
        body = body.replace(/-->.*$/, '');
        inner.push({ line: lines[j].line, text: body.trim() });
        if (closes) break;
      }
      const markupOnly = (l: SourceLine) => l.text === '';
      for (const l of inner) {
        // "exported from the wiki; source: https://…": any `key: value` part with a known key.
        const known = l.text
          .split(/[;|]\s+/)
          .map((part) => /^([A-Za-z][\w -]{0,30}?)\s*[:=]\s*(.+)$/.exec(part.trim()))
          .filter((kv): kv is RegExpExecArray => kv !== null && apply(metadata, kv[1], kv[2].trim()));
        if (known.length > 0 && known.every((kv) => isTagsKey(kv[1]))) tagLines.push(l);
        else if (markupOnly(l) || known.length > 0) used.push(l.line);
      }
      i = j + 1;
      continue;
    }
    if (!sawYaml && text === '---') {
      const close = lines.findIndex((l, k) => k > i && /^(---|\.\.\.)\s*$/.test(l.text));
      const yamlLines = close < 0 ? [] : lines.slice(i + 1, close);
      // Empty front matter ("---" twice, as static-site generators write it) holds nothing, but it is front matter.
      if (close > i && yamlLines.every((l) => l.text.trim() === '')) {
        sawYaml = true;
        used.push(lines[i].line, lines[close].line, ...yamlLines.map((l) => l.line));
        i = close + 1;
        continue;
      }
      // A rule followed by prose is not front matter; only `key: value` content is.
      const firstYaml = yamlLines.find((l) => l.text.trim() !== '' && !l.text.trim().startsWith('#'));
      if (close < 0 || !firstYaml || !/^[\w-]+\s*:/.test(firstYaml.text)) break;
      sawYaml = true;
      const yamlText = yamlLines.map((l) => l.text).join('\n');
      if (yamlText.length > MAX_FRONT_MATTER) {
        // The YAML parser slows down sharply on large malformed input; real front matter is small.
        warnings.push({ code: 'FRONT_MATTER_INVALID', message: `The front matter is ${yamlText.length} characters long (the limit is ${MAX_FRONT_MATTER}); it was ignored.`, line: lines[i].line });
        i = close + 1;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = parseYaml(yamlText);
      } catch (error) {
        warnings.push({
          code: 'FRONT_MATTER_INVALID',
          message: `The front matter is not valid YAML (${(error as Error).message.split('\n')[0]}); it was ignored.`,
          line: lines[i].line,
        });
        i = close + 1;
        continue;
      }
      used.push(lines[i].line, lines[close].line);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        // Attribute every YAML line to the top-level key it belongs to, so unknown keys are reported.
        let current: string | null = null;
        const known = new Set<string>();
        for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) if (apply(metadata, key, value)) known.add(key);
        for (const l of yamlLines) {
          const top = /^([^\s#][^:]*):/.exec(l.text);
          if (top) current = top[1].trim();
          if (l.text.trim() === '' || l.text.trim().startsWith('#')) used.push(l.line);
          else if (current !== null && known.has(current) && isTagsKey(current)) tagLines.push(l);
          else if (current !== null && known.has(current)) used.push(l.line);
        }
      } else {
        warnings.push({ code: 'FRONT_MATTER_INVALID', message: 'The front matter is not a set of `key: value` pairs; it was ignored.', line: lines[i].line });
        used.splice(used.length - 2, 2);
      }
      i = close + 1;
      continue;
    }
    if (!sawYaml && text === '+++') {
      // TOML front matter (Hugo, Zola): `key = "value"` between `+++` lines.
      const close = lines.findIndex((l, k) => k > i && /^\+\+\+\s*$/.test(l.text));
      if (close < 0) break;
      sawYaml = true;
      const tomlLines = lines.slice(i + 1, close);
      let parsed: Record<string, unknown>;
      try {
        parsed = parseToml(tomlLines.map((l) => l.text).join('\n'));
      } catch (error) {
        warnings.push({ code: 'FRONT_MATTER_INVALID', message: `The front matter is not valid TOML (${(error as Error).message.split('\n')[0]}); it was ignored.`, line: lines[i].line });
        i = close + 1;
        continue;
      }
      used.push(lines[i].line, lines[close].line);
      const known = new Set(Object.entries(parsed).filter(([key, value]) => apply(metadata, key, value)).map(([key]) => key));
      let table = false;
      for (const l of tomlLines) {
        if (/^\s*\[/.test(l.text)) table = true;
        const key = /^\s*([\w-]+)\s*=/.exec(l.text)?.[1];
        if (!table && key && known.has(key) && isTagsKey(key)) tagLines.push(l);
        else if (l.text.trim() === '' || l.text.trim().startsWith('#') || (!table && key && known.has(key))) used.push(l.line);
      }
      i = close + 1;
      continue;
    }
    break;
  }
  return { metadata, bodyStart: i, used, tagLines, warnings };
}
