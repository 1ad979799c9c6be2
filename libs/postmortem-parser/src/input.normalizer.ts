import { createHash } from 'node:crypto';
import { ImportError } from './import.error';

export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface NormalisedInput {
  /** The text the rest of the importer reads: LF line ends, NFC, no trailing spaces. */
  text: string;
  lines: string[];
  byteLength: number;
  contentHash: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// C0 controls other than tab, line feed, vertical tab, form feed and carriage return, plus DEL.
const CONTROL = /[\u0001-\u0008\u000E-\u001F\u007F]/g;

/**
 * Turns the caller's bytes or string into normalised lines, refusing what is not a text document.
 * Normalisation only removes differences an editor or a copy-paste introduces (line endings, BOM,
 * trailing spaces, Unicode composition) so that the content hash is stable across them, and it
 * never changes how many lines there are, so reported line numbers match the file.
 */
export function normaliseInput(document: string | Buffer, maxBytes: number): NormalisedInput {
  const byteLength = typeof document === 'string' ? Buffer.byteLength(document, 'utf8') : document.length;
  if (byteLength > maxBytes) {
    throw new ImportError('TOO_LARGE', `The document is ${byteLength} bytes; the limit is ${maxBytes} bytes.`, { byteLength, maxBytes });
  }
  const decoded = typeof document === 'string' ? checkString(document) : decode(document);
  const controls = decoded.match(CONTROL)?.length ?? 0;
  if (controls > 0 && controls > decoded.length / 100) {
    throw new ImportError('BINARY_DATA', `The document contains ${controls} control characters; it looks like binary data, not text.`, { controls });
  }
  const lines = decoded
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .normalize('NFC')
    .split('\n')
    // trimEnd, not a `\s+$` regex: the regex is quadratic on a line with a long run of spaces.
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const text = lines.join('\n');
  if (text.trim() === '') {
    throw new ImportError('EMPTY_DOCUMENT', byteLength === 0 ? 'The document is empty.' : 'The document contains only white space.');
  }
  const contentHash = createHash('sha256').update(text, 'utf8').digest('hex');
  return { text, lines, byteLength, contentHash };
}

function decode(buffer: Buffer): string {
  if (buffer.length >= 2 && ((buffer[0] === 0xff && buffer[1] === 0xfe) || (buffer[0] === 0xfe && buffer[1] === 0xff))) {
    // A UTF-16 export (Windows editors) is still text; its NUL bytes are part of the encoding.
    const encoding = buffer[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      return checkString(new TextDecoder(encoding, { fatal: true }).decode(buffer));
    } catch (error) {
      if (error instanceof ImportError) throw error;
      throw new ImportError('BINARY_DATA', `The document starts with a ${encoding.toUpperCase()} byte order mark but is not valid ${encoding.toUpperCase()}.`);
    }
  }
  const nul = buffer.indexOf(0);
  if (nul >= 0) {
    throw new ImportError('BINARY_DATA', `The document contains a NUL byte at offset ${nul}; it looks like binary data, not text.`, { offset: nul });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw new ImportError('BINARY_DATA', 'The document is not valid UTF-8; save it as UTF-8 text and try again.');
  }
}

function checkString(text: string): string {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    throw new ImportError('BINARY_DATA', `The document contains a NUL character at position ${nul}; it looks like binary data, not text.`, { offset: nul });
  }
  if (LONE_SURROGATE.test(text)) {
    throw new ImportError('BINARY_DATA', 'The document contains broken UTF-16 (a lone surrogate); it is not valid Unicode text.');
  }
  return text;
}
