import { foldText } from '@hindsight/domain';

/**
 * Lower-case ASCII words joined by dashes. Accents are folded (Vietnamese and German headings
 * give readable slugs) and apostrophes dropped, so "Don't" gives "dont" rather than "don-t".
 */
export function slugify(text: string, options: { maxWords?: number; maxLength?: number } = {}): string {
  const { maxWords = Number.POSITIVE_INFINITY, maxLength = 60 } = options;
  const words = foldText(text.replace(/['’‘`]/g, ''))
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, maxWords);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > maxLength) break;
    slug = next;
  }
  if (!slug && words.length > 0) slug = words[0].slice(0, maxLength);
  return slug;
}

/**
 * Hands out keys unique within one list. The base comes from content, so re-importing an edited
 * document keeps the keys of untouched entries; only true duplicates get a numeric suffix.
 */
export class KeyAllocator {
  private readonly used = new Set<string>();

  allocate(base: string, fallback: string): string {
    const root = base || fallback;
    let key = root;
    for (let n = 2; this.used.has(key); n++) key = `${root}-${n}`;
    this.used.add(key);
    return key;
  }
}
