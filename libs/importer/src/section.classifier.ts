import { foldText } from '@hindsight/domain';
import type { SectionKind } from './importer.types';
import { findZoneInText } from './time-zone.resolver';

export interface SectionClassification {
  kind: SectionKind;
  confidence: number;
}

interface Vocabulary {
  kind: SectionKind;
  phrases: string[];
  /** Single words that hint at the kind inside a longer heading ("Three main factors ..."). */
  hints?: string[];
  /** Scales every match: "Lessons" is only a weak sign of action items. */
  weight?: number;
}

// Headings vary by team and language; these lists say what each kind of section is called in
// English, German, French, Spanish and Vietnamese postmortems. Matching is accent-insensitive.
const VOCABULARIES: Vocabulary[] = [
  {
    kind: 'timeline',
    phrases: [
      'timeline', 'time line', 'timeline of events', 'incident timeline', 'detailed timeline', 'chronology',
      'sequence of events', 'what happened', 'events timeline',
      'zeitleiste', 'zeitlicher ablauf', 'ablauf', 'chronologie', 'zeitverlauf', 'verlauf', 'ereignisverlauf',
      'déroulement', 'déroulé', 'déroulé des événements', 'chronologie des événements', 'frise chronologique',
      'cronología', 'línea de tiempo', 'linea temporal', 'secuencia de eventos', 'lo que pasó', 'qué pasó', 'desarrollo de los hechos',
      'dòng thời gian', 'diễn biến', 'trình tự sự kiện', 'mốc thời gian', 'diễn biến sự cố',
    ],
  },
  {
    kind: 'actionables',
    phrases: [
      'action items', 'action item', 'actionables', 'actions', 'follow-ups', 'follow ups', 'followups', 'follow-up',
      'remediation', 'remediations', 'remediation items', 'next steps', 'corrective actions', 'preventive actions',
      'preventative actions', 'action plan', 'todo', 'to do', 'to-dos', "what we're doing about it", 'what we are doing about it',
      'maßnahmen', 'folgemaßnahmen', 'nächste schritte', 'aufgaben', 'verbesserungen',
      'actions correctives', "plan d'action", 'prochaines étapes', 'suivi', 'remédiation',
      'acciones', 'acciones correctivas', 'próximos pasos', 'seguimiento', 'remediación', 'tareas',
      'khắc phục', 'hành động', 'việc cần làm', 'biện pháp', 'biện pháp khắc phục', 'cải thiện',
    ],
  },
  {
    kind: 'actionables',
    weight: 0.4,
    phrases: [
      'lessons', 'lessons learned', 'lessons learnt', 'learnings', 'takeaways', 'key takeaways',
      'lehren', 'erkenntnisse', 'gelernte lektionen', 'leçons', 'leçons apprises', 'enseignements',
      'lecciones', 'lecciones aprendidas', 'aprendizajes', 'bài học', 'bài học rút ra',
    ],
  },
  {
    kind: 'causes',
    phrases: [
      'root cause', 'root causes', 'root cause analysis', 'analysis', 'contributing factors', 'why', 'causes', 'cause',
      'what went wrong', 'five whys', '5 whys', 'technical analysis', 'causal analysis', 'trigger and root cause',
      'ursache', 'ursachen', 'grundursache', 'ursachenanalyse', 'analyse', 'warum', 'beitragende faktoren',
      'cause racine', 'causes racines', 'pourquoi', 'facteurs contributifs',
      'causa', 'causas', 'causa raíz', 'análisis', 'por qué', 'factores contribuyentes',
      'nguyên nhân', 'nguyên nhân gốc', 'nguyên nhân gốc rễ', 'vì sao', 'tại sao', 'phân tích',
    ],
    hints: ['factors', 'faktoren', 'facteurs', 'factores', 'yếu tố'],
  },
  {
    kind: 'impact',
    phrases: [
      'impact', 'user impact', 'customer impact', 'business impact', 'blast radius', 'impact assessment',
      'auswirkungen', 'auswirkung', 'impacto', 'ảnh hưởng', 'tác động', 'mức độ ảnh hưởng',
    ],
  },
  {
    kind: 'summary',
    phrases: [
      'summary', 'overview', 'tl;dr', 'tldr', 'executive summary', 'abstract', 'incident summary', 'synopsis', 'description',
      'zusammenfassung', 'überblick', 'übersicht', 'kurzfassung',
      'résumé', 'synthèse', 'aperçu', "vue d'ensemble",
      'resumen', 'visión general', 'sinopsis',
      'tóm tắt', 'tổng quan', 'tóm lược',
    ],
  },
  {
    kind: 'resolution',
    phrases: [
      'resolution', 'mitigation', 'recovery', 'how we fixed it', 'fix', 'the fix', 'response',
      'lösung', 'behebung', 'wiederherstellung', 'résolution', 'atténuation', 'resolución', 'mitigación', 'giải quyết', 'xử lý',
    ],
  },
  {
    kind: 'background',
    phrases: ['background', 'context', 'hintergrund', 'kontext', 'contexte', 'contexto', 'antecedentes', 'bối cảnh'],
  },
  {
    kind: 'related',
    phrases: ['related', 'see also', 'references', 'links', 'siehe auch', 'voir aussi', 'véase también', 'liên quan', 'tham khảo'],
  },
];

function fold(text: string): string {
  return foldText(text).replace(/[^a-z0-9]+/g, ' ').trim();
}

const FOLDED = VOCABULARIES.map((v) => ({
  ...v,
  phrases: [...new Set(v.phrases.map(fold))],
  hints: (v.hints ?? []).map(fold),
}));

/** Heading text without markup, numbering, a zone in parentheses or trailing punctuation. */
export function cleanHeading(text: string): string {
  return text
    .replace(/\[\[(?:[^|\][]*\|)?([^\][]*)\]\]/g, '$1')
    .replace(/\[([^\][]*)\]\([^()]*\)/g, '$1')
    .replace(/'''|''|\*\*|__|`|~~/g, '')
    .replace(/^\s*(?:\d{1,2}|[IVX]{1,4}|[A-Z])[.)]\s+/, '')
    .replace(/[\p{Extended_Pictographic}\uFE0F]/gu, '')
    .trim()
    .replace(/[:：.]+$/, '')
    .trim();
}

/** What a heading's section is about, by meaning: "Chronology", "Diễn biến" and "Timeline (UTC)" are all timelines. */
export function classifyHeading(heading: string): SectionClassification {
  let text = cleanHeading(heading);
  // "(UTC)" says how to read the times, not what the section is.
  text = text.replace(/\(([^()]*)\)/g, (whole, inner: string) => (findZoneInText(`(${inner.trim()})`) ? ' ' : ` ${inner} `));
  const folded = fold(text);
  if (!folded) return { kind: 'other', confidence: 0 };
  const padded = ` ${folded} `;
  const words = folded.split(' ').length;
  let best: SectionClassification = { kind: 'other', confidence: 0 };
  for (const vocabulary of FOLDED) {
    const weight = vocabulary.weight ?? 1;
    let score = 0;
    for (const phrase of vocabulary.phrases) {
      if (folded === phrase) score = Math.max(score, 1);
      else if (padded.startsWith(` ${phrase} `)) score = Math.max(score, words <= 6 ? 0.9 : 0.7);
      else if (padded.includes(` ${phrase} `)) score = Math.max(score, words <= 6 ? 0.75 : 0.55);
    }
    for (const hint of vocabulary.hints) if (padded.includes(` ${hint} `)) score = Math.max(score, 0.5);
    const confidence = Math.round(score * weight * 100) / 100;
    if (confidence > best.confidence) best = { kind: vocabulary.kind, confidence };
  }
  return best;
}

/** Section kinds whose content the importer turns into structured data. */
export const STRUCTURED_KINDS: ReadonlySet<SectionKind> = new Set(['timeline', 'actionables', 'causes']);
