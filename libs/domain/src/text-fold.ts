/**
 * Folds text for case- and accent-insensitive search: NFKD, drop combining marks, lower-case.
 * Letters that do not decompose (đ, ø, ł, ß, æ, œ, ı) are mapped by hand, so "Đà Nẵng",
 * "da nang" and "DA NANG" all meet.
 */
const EXTRA: Record<string, string> = {
  đ: 'd',
  ð: 'd',
  ø: 'o',
  ł: 'l',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ı: 'i',
  þ: 'th',
};

export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[đðøłßæœıþ]/g, (c) => EXTRA[c] ?? c)
    .replace(/\s+/g, ' ')
    .trim();
}
