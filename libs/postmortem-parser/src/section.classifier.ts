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
// English, German, French, Spanish, Portuguese, Russian, Vietnamese, Japanese, Chinese and Korean
// postmortems. Matching is accent-insensitive; phrases in scripts written without spaces match
// inside a heading wherever they occur.
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
      'linha do tempo', 'cronologia', 'sequência de eventos', 'хронология', 'ход событий', 'таймлайн', 'хронология событий', '時間経過', '時系列', '経緯', 'タイムライン', '経過', '时间线', '时间轴', '時間線', '经过', '經過', '过程', '過程', '타임라인', '경과', '시간순', '사건 경과'
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
      'itens de ação', 'próximos passos', 'ações', 'ações corretivas', 'меры', 'дальнейшие шаги', 'план действий', 'задачи', '対策', '再発防止策', '今後の対応', '今後の対策', 'アクションアイテム', '改进措施', '后续措施', '后续工作', '行动项', '改進措施', '조치 사항', '후속 조치', '재발 방지', '개선 사항'
    ],
  },
  {
    kind: 'actionables',
    weight: 0.4,
    phrases: [
      'lessons', 'lessons learned', 'lessons learnt', 'learnings', 'takeaways', 'key takeaways',
      'lehren', 'erkenntnisse', 'gelernte lektionen', 'leçons', 'leçons apprises', 'enseignements',
      'lecciones', 'lecciones aprendidas', 'aprendizajes', 'bài học', 'bài học rút ra',
      'lições aprendidas', 'уроки', 'выводы', '教訓', '反省', '教训', '经验教训', '교훈'
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
      'causa raiz', 'causas', 'причина', 'причины', 'первопричина', '原因', '根本原因', '根因', '원인', '근본 원인'
    ],
    hints: ['factors', 'faktoren', 'facteurs', 'factores', 'yếu tố'],
  },
  {
    kind: 'impact',
    phrases: [
      'impact', 'user impact', 'customer impact', 'business impact', 'blast radius', 'impact assessment',
      'auswirkungen', 'auswirkung', 'impacto', 'ảnh hưởng', 'tác động', 'mức độ ảnh hưởng',
      'impacto', 'влияние', 'последствия', '影響', '影响', '영향'
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
      'resumo', 'visão geral', 'резюме', 'обзор', 'краткое описание', '概要', '要約', '概述', '摘要', '요약', '개요'
    ],
  },
  {
    kind: 'resolution',
    phrases: [
      'resolution', 'mitigation', 'recovery', 'how we fixed it', 'fix', 'the fix', 'response',
      'lösung', 'behebung', 'wiederherstellung', 'résolution', 'atténuation', 'resolución', 'mitigación', 'giải quyết', 'xử lý',
      'resolução', 'mitigação', 'решение', 'устранение', 'восстановление', '復旧', '解決', '处理', '解决', '恢复', '복구', '해결'
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
  return foldText(text).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

// Sections that look back at the incident: never action items or causes, whatever encloses them.
VOCABULARIES.push({
  kind: 'other',
  phrases: [
    'what went well', 'what went right', 'what went poorly', 'went well', 'where we got lucky', 'what we got lucky with', 'things that went well',
    'was gut lief', 'ce qui a bien fonctionné', 'lo que salió bien', 'o que correu bem', 'điều làm tốt',
  ],
});

const FOLDED = VOCABULARIES.map((v) => {
  const phrases = [...new Set(v.phrases.map(fold))];
  return { ...v, phrases: phrases.filter((p) => !UNSPACED.test(p)), unspaced: phrases.filter((p) => UNSPACED.test(p)), hints: (v.hints ?? []).map(fold) };
});

/** Heading text without markup, numbering, a zone in parentheses or trailing punctuation. */
export function cleanHeading(text: string): string {
  return text
    .replace(/\[\[(?:[^|\][]*\|)?([^\][]*)\]\]/g, '$1')
    .replace(/\[\^?\d{1,3}\]\([^()]*\)/g, '')
    .replace(/\[([^\][]*)\]\([^()]*\)/g, '$1')
    // A footnote mark is not part of the name: "Action Items[^1]", "Timeline [2]", "Impact<sup>3</sup>".
    .replace(/\[\^[^\]]*\]|<sup>[\s\S]*?<\/sup>|<ref[^>]*\/>|<ref[^>]*>[\s\S]*?<\/ref>|\s\[\d{1,3}\]$|(?<=\p{L})[¹²³⁴⁵⁶⁷⁸⁹⁰]+/gu, '')
    .replace(/'''|''|\*\*|__|`|~~/g, '')
    .replace(/^\s*(?:\d{1,2}|[IVX]{1,4}|[A-Z])[.)]\s+/, '')
    .replace(/^\s*={1,5}\s+|\s+={1,5}\s*$/g, '')
    .replace(/[\p{Extended_Pictographic}\uFE0F]/gu, '')
    .trim()
    .replace(/[:：.]+$/, '')
    .trim();
}

// Teams reuse their headings from one postmortem to the next, so an import of many documents
// classifies the same few hundred headings again and again; bounded so it cannot grow without end.
const classified = new Map<string, SectionClassification>();
const CLASSIFIED_MAX = 4096;

/** What a heading's section is about, by meaning: "Chronology", "Diễn biến" and "Timeline (UTC)" are all timelines. */
export function classifyHeading(heading: string): SectionClassification {
  const known = classified.get(heading);
  if (known) return { ...known };
  const result = classifyHeadingText(heading);
  if (classified.size >= CLASSIFIED_MAX) classified.clear();
  classified.set(heading, result);
  return { ...result };
}

function classifyHeadingText(heading: string): SectionClassification {
  let text = cleanHeading(heading);
  // "(UTC)" says how to read the times, not what the section is.
  text = text.replace(/\(([^()]*)\)/g, (whole, inner: string) => (findZoneInText(`(${inner.trim()})`) ? ' ' : ` ${inner} `));
  const folded = fold(text);
  if (!folded) return { kind: 'other', confidence: 0 };
  const padded = ` ${folded} `;
  const words = folded.split(' ').length;
  const unspacedHeading = UNSPACED.test(folded);
  let best: SectionClassification = { kind: 'other', confidence: 0 };
  for (const vocabulary of FOLDED) {
    const weight = vocabulary.weight ?? 1;
    let score = 0;
    for (const phrase of vocabulary.phrases) {
      if (folded === phrase) score = Math.max(score, 1);
      else if (padded.startsWith(` ${phrase} `)) score = Math.max(score, words <= 6 ? 0.9 : 0.7);
      else if (padded.includes(` ${phrase} `)) score = Math.max(score, words <= 6 ? 0.75 : 0.55);

    }
    if (unspacedHeading) {
      for (const phrase of vocabulary.unspaced) {
        // Japanese and Chinese headings have no spaces: a phrase inside one counts, less in a long heading.
        if (folded === phrase) score = Math.max(score, 1);
        else if (folded.includes(phrase)) score = Math.max(score, folded.startsWith(phrase) ? 0.9 : folded.length <= phrase.length + 8 ? 0.75 : 0.55);
      }
    }
    for (const hint of vocabulary.hints) if (padded.includes(` ${hint} `)) score = Math.max(score, 0.5);
    const confidence = Math.round(score * weight * 100) / 100;
    if (confidence > best.confidence) best = { kind: vocabulary.kind, confidence };
  }
  return best;
}

/** Section kinds whose content the importer turns into structured data. */
export const STRUCTURED_KINDS: ReadonlySet<SectionKind> = new Set(['timeline', 'actionables', 'causes']);
