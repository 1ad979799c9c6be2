import type { CausalFactorDocument, FactorRole } from '@hindsight/domain';
import type { DocumentFormat } from './importer.types';
import { markdownToPlain, toMarkdownInline } from './inline.converter';
import type { DocumentSection } from './section.builder';
import { slugify, KeyAllocator } from './slug.util';

export interface CausalFactorEnvironment {
  format: DocumentFormat;
  used: Set<number>;
  /** Component for factors that name none. */
  /** Null: a factor whose text names no component keeps it empty (and the report says so). */
  fallbackComponent: string | null;
}

function words(list: string[]): RegExp {
  return new RegExp(`(?<![\\p{L}])(?:${list.join('|')})(?![\\p{L}])`, 'iu');
}

// Checked in order: a factor that "amplified" a "trigger" is an amplifier.
const ROLES: [FactorRole, RegExp][] = [
  ['amplifier', words(['amplif\\w*', 'retr(?:y|ies|ied)', 'feedback', 'loop', 'exponential\\w*', 'cascad\\w*', 'thundering herd', 'herd', 'magnif\\w*', 'made (?:it|things) worse', 'worsen\\w*', 'multipl\\w*', 'verstärk\\w*', 'wiederhol\\w*', 'amplifi\\w*', 'bucle', 'vòng lặp', 'khuếch đại', 'retry']) ],
  ['trigger', words(['trigger\\w*', 'kicked off', 'started when', 'deploy\\w*', 'rolled out', 'rollout', 'was edited', 'edited', 'auslös\\w*', 'déclench\\w*', 'desencaden\\w*', 'kích hoạt'])],
  ['latent', words(['latent', 'bug', 'long-standing', 'pre-existing', 'unnoticed', 'not detected', 'undetected', 'hidden', 'had been', 'missing', 'no (?:limit|timeout|guard)', 'without (?:a )?(?:limit|timeout)', 'fehler', 'versteckt', 'caché', 'oculto', 'ẩn', 'che giấu'])],
  ['mitigating', words(['limited the impact', 'helped', 'prevented (?:a )?worse', 'fortunately', 'mitigat\\w*'])],
];

const COMMON_ACRONYMS = new Set(['HTTP', 'HTTPS', 'TCP', 'UDP', 'API', 'CPU', 'URL', 'UTC', 'AJAX', 'JSON', 'HTML', 'DNS', 'SQL', 'IO', 'OK', 'GMT', 'PR', 'ID', 'TTL', 'AM', 'PM', 'SWE', 'GDM', 'DM', 'N']);

function roleOf(text: string): FactorRole {
  for (const [role, pattern] of ROLES) if (pattern.test(text)) return role;
  return 'condition';
}

/** The first product-like name in a factor: CamelCase, an acronym, or a file such as `parsoid.js`. */
function componentOf(text: string): string | null {
  const withoutUrls = text.replace(/https?:\/\/\S+/g, ' ');
  for (const m of withoutUrls.matchAll(/(?<![\p{L}\d/._-])([A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][A-Z]+[a-z][A-Za-z]*|[A-Z]{2,}[0-9]*|[a-z][\w-]*\.(?:js|ts|py|go|rb|java|php|pp|conf|yaml))(?![\p{L}\d])/gu)) {
    if (!COMMON_ACRONYMS.has(m[1])) return m[1];
  }
  return null;
}

/**
 * One causal factor per item of a causes section: each bullet or numbered item, with bullets
 * that follow a numbered item (or start "Note:") folded into it; paragraphs only when the section
 * has no list. Roles are guessed from words; links between factors are left for an editor.
 */
export function extractCausalFactors(sections: readonly DocumentSection[], env: CausalFactorEnvironment): CausalFactorDocument[] {
  const pending: { text: string[]; lines: number[] }[] = [];
  for (const section of sections) {
    const hasItems = section.blocks.some((b) => b.type === 'item');
    let current: { text: string[]; lines: number[]; indent: number; ordered: boolean } | null = null;
    for (const block of section.blocks) {
      if (block.type === 'item') {
        const text = toMarkdownInline([block.text, ...block.continuation.map((l) => l.text)].join(' '), env.format);
        const lines = [block.line, ...block.continuation.map((l) => l.line)];
        const note = /^(?:note|nb|n\.b\.|e\.g\.|i\.e\.|reason\b[^:]*):/i.test(markdownToPlain(text));
        // A bullet under a numbered item explains it, even when the export lost the indentation.
        if (current && (block.indent > current.indent || note || (current.ordered && !block.ordered && block.indent === current.indent))) {
          current.text.push(text);
          current.lines.push(...lines);
          continue;
        }
        current = { text: [text], lines, indent: block.indent, ordered: block.ordered };
        pending.push(current);
      } else if (block.type === 'paragraph') {
        current = null;
        if (hasItems) continue;
        if (env.format === 'text') {
          for (const l of block.lines) if (l.text.split(/\s+/).length >= 5) pending.push({ text: [toMarkdownInline(l.text, env.format)], lines: [l.line] });
        } else {
          pending.push({ text: [toMarkdownInline(block.lines.map((l) => l.text.trim()).join(' '), env.format)], lines: block.lines.map((l) => l.line) });
        }
      } else {
        current = null;
      }
    }
  }
  const keys = new KeyAllocator();
  return pending.map(({ text, lines }) => {
    lines.forEach((l) => env.used.add(l));
    const full = text.join('\n');
    const plain = markdownToPlain(full);
    return {
      key: keys.allocate(slugify(plain, { maxWords: 6, maxLength: 48 }), 'factor'),
      role: roleOf(plain),
      component: componentOf(plain) ?? env.fallbackComponent,
      text: full,
    };
  });
}
