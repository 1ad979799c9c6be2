const STOP_WORDS: Record<string, string[]> = {
  en: ['the', 'and', 'of', 'to', 'was', 'is', 'in', 'that', 'for', 'with', 'it', 'on', 'we', 'this', 'were', 'be', 'as', 'by', 'not', 'our', 'which', 'from'],
  de: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'mit', 'wurde', 'auf', 'für', 'den', 'ein', 'eine', 'wir', 'zu', 'von', 'im', 'sich', 'dem', 'des', 'auch', 'werden', 'wurden', 'nach'],
  fr: ['le', 'la', 'les', 'des', 'est', 'et', 'une', 'pour', 'dans', 'que', 'pas', 'été', 'du', 'au', 'sur', 'nous', 'qui', 'ce', 'par', 'avec', 'sont', 'un'],
  es: ['el', 'los', 'las', 'del', 'que', 'y', 'una', 'por', 'para', 'con', 'fue', 'se', 'es', 'en', 'al', 'lo', 'como', 'más', 'pero', 'sus', 'fueron', 'un'],
};
const SETS = Object.fromEntries(Object.entries(STOP_WORDS).map(([lang, words]) => [lang, new Set(words)]));
// Letters with the tone marks and hooks only Vietnamese uses among Latin-script languages.
const VIETNAMESE = /[ăđơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]/giu;

/**
 * A cheap guess at the document's language (BCP 47): Vietnamese by its diacritics, otherwise the
 * language whose common short words are most frequent; English when nothing stands out.
 */
export function detectLanguage(text: string): string {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return 'en';
  const vietnamese = text.match(VIETNAMESE)?.length ?? 0;
  if (vietnamese / letters > 0.015) return 'vi';
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const counts = Object.entries(SETS).map(([lang, set]) => ({ lang, count: words.reduce((n, w) => n + (set.has(w) ? 1 : 0), 0) }));
  const english = counts.find((c) => c.lang === 'en')?.count ?? 0;
  // Another language must clearly beat English: short words such as "in" or "die" are shared.
  const best = counts.filter((c) => c.lang !== 'en').sort((a, b) => b.count - a.count)[0];
  return best && best.count > english * 1.2 && best.count >= 3 ? best.lang : 'en';
}
