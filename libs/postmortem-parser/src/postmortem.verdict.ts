import type { PostmortemVerdict, RecognisedSection } from './importer.types';

// Words that name an incident or what goes wrong in one, in the importer's languages. A release
// note, a changelog or a plan rarely uses them; a postmortem cannot avoid them.
const INCIDENT_TERMS =
  /(?<![\p{L}])(?:incidents?|outages?|post-?mortems?|post mortem|downtime|root cause|disruptions?|degraded|degradation|unavailab\p{L}*|compromised?|breach\p{L}*|attacks?|failures?|crash\p{L}*|halt\p{L}*|went down|broken|restored|mitigat\p{L}*|ausfall|ausfälle|störung\p{L}*|probleme|panne|interruption|caída|interrupción|incidente|sự cố|gián đoạn|авари\p{L}*|сбо\p{L}*|инцидент\p{L}*)(?![\p{L}])|障害|停止|侵害|故障|中断|宕机|事故|失误|下线|장애/giu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Sections only an incident report has; a summary or "related" section says nothing. */
const INCIDENT_KINDS = new Set(['timeline', 'causes', 'impact', 'resolution', 'actionables']);

/**
 * Whether the document is a postmortem at all: it is when it uses the words of an incident often
 * enough (at least 2 of them, and 1.5 per thousand words), or when it has two sections only an
 * incident report has (timeline, causes, impact, resolution, action items, each recognised with
 * confidence 0.7 or more) and names an incident at least once.
 */
export function judgePostmortem(text: string, sections: readonly RecognisedSection[]): PostmortemVerdict {
  const hits = text.match(INCIDENT_TERMS) ?? [];
  // Japanese and Chinese have no spaces: two characters count as about one word.
  const words = (text.match(/\p{L}+/gu)?.length ?? 0) + (text.match(UNSPACED)?.length ?? 0) / 2;
  const perThousand = words === 0 ? 0 : (1000 * hits.length) / words;
  const kinds = [...new Set(sections.filter((s) => s.confidence >= 0.7 && INCIDENT_KINDS.has(s.kind)).map((s) => s.kind))];
  const byWords = hits.length >= 2 && perThousand >= 1.5;
  const bySections = kinds.length >= 2 && hits.length >= 1;
  const evidence = [
    `${hits.length} incident word(s) (${perThousand.toFixed(1)} per 1,000 words)${hits.length > 0 ? `: ${[...new Set(hits.map((h) => h.toLowerCase()))].slice(0, 5).join(', ')}` : ''}`,
    kinds.length > 0 ? `incident sections: ${kinds.join(', ')}` : 'no timeline, causes, impact, resolution or action-item heading',
  ];
  const isPostmortem = byWords || bySections;
  // How far the document is from the line, as a rough 0.5–1.
  const margin = Math.max(Math.min(perThousand / 1.5, 3) / 3, kinds.length / 4);
  const confidence = Math.round((isPostmortem ? 0.5 + 0.5 * Math.min(1, margin) : 0.5 + 0.5 * (1 - Math.min(1, margin))) * 100) / 100;
  return { isPostmortem, confidence, evidence };
}
