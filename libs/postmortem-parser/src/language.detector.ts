import { detect } from 'tinyld';

// Letters with the tone marks and hooks only Vietnamese uses among Latin-script languages.
const VIETNAMESE = /[ăđơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]/giu;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const HAN = /\p{Script=Han}/gu;
const HANGUL = /\p{Script=Hangul}/gu;
const CYRILLIC = /\p{Script=Cyrillic}/gu;
/** Latin-script languages the n-gram model may answer; others are too easily confused on short texts. */
const LATIN_LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl'];
/** Enough text for a sure answer; reading more only costs time. */
const SAMPLE_CHARS = 3000;

// Short words frequent in English and rare elsewhere, and their counterparts in the other
// Latin-script languages; only used to skip the model when a text is plainly English.
const ENGLISH_WORDS = new Set(['the', 'and', 'of', 'to', 'was', 'is', 'that', 'for', 'with', 'it', 'on', 'we', 'this', 'were', 'be', 'by', 'not', 'our', 'which', 'from']);
const OTHER_WORDS = new Set([
  'der', 'die', 'das', 'und', 'ist', 'nicht', 'mit', 'wurde', 'auf', 'für', 'wir', 'le', 'la', 'les', 'des', 'est', 'et', 'une', 'pour', 'dans',
  'que', 'el', 'los', 'las', 'del', 'y', 'una', 'por', 'para', 'con', 'fue', 'não', 'uma', 'foi', 'em', 'het', 'een', 'niet', 'il', 'di', 'che', 'non',
]);

const share = (text: string, pattern: RegExp, letters: number) => (text.match(pattern)?.length ?? 0) / letters;

/**
 * The document's language (BCP 47). The script decides first, since it is certain: kana means
 * Japanese, Han without kana Chinese, Hangul Korean, Cyrillic Russian, Vietnamese's tone marks
 * Vietnamese (each when it makes up a fair share of the letters, so a quoted name does not
 * count). Among Latin-script languages tinyld's n-gram model chooses; English when it cannot.
 */
export function detectLanguage(text: string): string {
  const sample = text.slice(0, SAMPLE_CHARS);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0) return 'en';
  const kana = share(sample, KANA, letters);
  const han = share(sample, HAN, letters);
  if (kana > 0.05) return 'ja';
  if (han > 0.1) return 'zh';
  if (share(sample, HANGUL, letters) > 0.1) return 'ko';
  if (share(sample, CYRILLIC, letters) > 0.3) return 'ru';
  if (share(sample, VIETNAMESE, letters) > 0.015) return 'vi';
  // Clearly English text (its common short words dominate) needs no model: the n-gram model
  // costs about a millisecond, and most postmortems are English.
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  const english = words.reduce((n, w) => n + (ENGLISH_WORDS.has(w) ? 1 : 0), 0);
  const elsewhere = words.reduce((n, w) => n + (OTHER_WORDS.has(w) ? 1 : 0), 0);
  if (english >= 8 && english >= 4 * elsewhere) return 'en';
  // Markup, URLs and code say nothing about the language.
  const prose = sample.replace(/https?:\/\/\S+|`[^`]*`|<[^>]+>|[#*_|=[\]{}()]/g, ' ');
  return detect(prose, { only: LATIN_LANGUAGES }) || 'en';
}
