/**
 * Language support of the search document: which Postgres text-search configuration stems a
 * source's language, and a bigram form for scripts written without spaces between words.
 */

/**
 * BCP 47 primary language → the Postgres configuration that stems it (those shipped with
 * Postgres 15 and later). Languages without one (Vietnamese, Japanese, Chinese, Korean, …) are
 * indexed under `simple` only, which keeps every word as written (after folding).
 */
const STEMMING_CONFIGS: Record<string, string> = {
  ar: 'arabic', hy: 'armenian', eu: 'basque', ca: 'catalan', da: 'danish', nl: 'dutch', en: 'english',
  fi: 'finnish', fr: 'french', de: 'german', el: 'greek', hi: 'hindi', hu: 'hungarian', id: 'indonesian',
  ga: 'irish', it: 'italian', lt: 'lithuanian', ne: 'nepali', no: 'norwegian', nb: 'norwegian', nn: 'norwegian',
  pt: 'portuguese', ro: 'romanian', ru: 'russian', sr: 'serbian', es: 'spanish', sv: 'swedish', ta: 'tamil',
  tr: 'turkish', yi: 'yiddish',
};

/** Every (primary language, configuration) pair of the table above, for SQL that maps stored tags. */
export const STEMMED_LANGUAGES: readonly { language: string; config: string }[] = Object.entries(STEMMING_CONFIGS).map(([language, config]) => ({ language, config }));

/** The stemming configuration for a language tag, or null when Postgres has none for it. */
export function stemmingConfigFor(languageTag: string): string | null {
  return STEMMING_CONFIGS[languageTag.toLowerCase().split('-')[0]!] ?? null;
}

/** Runs of Han, kana and Hangul: scripts where words are not separated by spaces. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;

/**
 * Rewrites every run of CJK characters as its overlapping character bigrams ("障害対応" →
 * "障害 害対 対応"; a single character stays as it is), so a word of two or more characters
 * is found as the phrase of its bigrams, without a dictionary. The writer and the query apply
 * the same rewrite; on the query side each run becomes a quoted phrase.
 */
export function cjkBigrams(text: string, options: { quote?: boolean } = {}): string {
  return text.replace(CJK_RUN, (run) => {
    const chars = [...run];
    if (chars.length <= 2) return ` ${run} `;
    const grams: string[] = [];
    for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i]! + chars[i + 1]!);
    const joined = grams.join(' ');
    return options.quote ? ` "${joined}" ` : ` ${joined} `;
  });
}

export function hasCjk(text: string): boolean {
  CJK_RUN.lastIndex = 0;
  return CJK_RUN.test(text);
}
