import { ImportError, parsePostmortem } from './index';

const DOC = '# Title\n\n## Timeline\n\n- 10:00 something broke\n';

function errorOf(fn: () => unknown): ImportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error('expected an ImportError');
}

describe('refusing what is not a postmortem text', () => {
  it.each([
    ['an empty string', ''],
    ['an empty buffer', Buffer.alloc(0)],
    ['only white space', ' \n\t\r\n  \n'],
  ])('refuses %s as EMPTY_DOCUMENT', (_name, input) => {
    const error = errorOf(() => parsePostmortem(input));
    expect(error.code).toBe('EMPTY_DOCUMENT');
    expect(error.message).toMatch(/empty|white space/);
  });

  it('refuses front matter without a body as EMPTY_DOCUMENT', () => {
    expect(errorOf(() => parsePostmortem('---\ntitle: Nothing else\n---\n\n')).code).toBe('EMPTY_DOCUMENT');
  });

  it('refuses bytes with a NUL as BINARY_DATA and says where', () => {
    const error = errorOf(() => parsePostmortem(Buffer.from([0x23, 0x20, 0x41, 0x00, 0x42])));
    expect(error.code).toBe('BINARY_DATA');
    expect(error.message).toContain('NUL byte at offset 3');
  });

  it('refuses invalid UTF-8 as BINARY_DATA', () => {
    const error = errorOf(() => parsePostmortem(Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a])));
    expect(error.code).toBe('BINARY_DATA');
    expect(error.message).toContain('not valid UTF-8');
  });

  it('refuses a string full of control characters as BINARY_DATA', () => {
    expect(errorOf(() => parsePostmortem('\u0001\u0002\u0003 abc \u0004\u0005')).code).toBe('BINARY_DATA');
  });

  it('refuses documents over the size limit as TOO_LARGE, counting UTF-8 bytes', () => {
    // "é" is two bytes: 6 characters, 12 bytes.
    const error = errorOf(() => parsePostmortem('éééééé', { maxBytes: 11 }));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toBe('The document is 12 bytes; the limit is 11 bytes.');
    expect(parsePostmortem('# éééééé', { maxBytes: 14 }).draft.title).toBe('éééééé');
  });

  it('applies a 1 MiB limit by default', () => {
    const big = `# Big\n\n${'x'.repeat(1024 * 1024)}`;
    expect(errorOf(() => parsePostmortem(big)).code).toBe('TOO_LARGE');
  });

  it('refuses a document with no words as NO_STRUCTURE', () => {
    expect(errorOf(() => parsePostmortem('----\n1234 5678\n----\n')).code).toBe('NO_STRUCTURE');
  });

  it('refuses invalid options as INVALID_OPTIONS', () => {
    expect(errorOf(() => parsePostmortem(DOC, { maxBytes: 0 })).code).toBe('INVALID_OPTIONS');
    expect(errorOf(() => parsePostmortem(DOC, { assumeTimeZone: 'Mars/Olympus' })).message).toContain('Mars/Olympus');
    expect(errorOf(() => parsePostmortem(DOC, { defaultYear: 15 })).code).toBe('INVALID_OPTIONS');
  });
});

describe('normalisation and the content hash', () => {
  const hash = (input: string | Buffer) => parsePostmortem(input).report.contentHash;

  it('gives the same hash whatever the line endings, BOM or trailing spaces', () => {
    const lf = hash(DOC);
    expect(lf).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(DOC.replace(/\n/g, '\r\n'))).toBe(lf);
    expect(hash(`\uFEFF${DOC}`)).toBe(lf);
    expect(hash(DOC.replace(/\n/g, '   \n'))).toBe(lf);
    expect(hash(Buffer.from(DOC, 'utf8'))).toBe(lf);
  });

  it('gives the same hash for composed and decomposed accents', () => {
    expect(hash('# Diễn biến\n')).toBe(hash('# Diễn biến\n'.normalize('NFD')));
  });

  it('changes the hash when the content changes', () => {
    expect(hash(DOC.replace('10:00', '10:01'))).not.toBe(hash(DOC));
  });

  it('reads UTF-16 files that start with a byte order mark', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Störung im Kassensystem\n', 'utf16le')]);
    expect(parsePostmortem(utf16).draft.title).toBe('Störung im Kassensystem');
  });

  it('keeps line numbers of CRLF documents equal to the file lines', () => {
    const { report } = parsePostmortem('# T\r\n\r\n<!-- stray -->\r\nText that is long enough to be the summary of this small incident report here.\r\n');
    expect(report.unusedLines).toEqual([{ line: 3, text: '<!-- stray -->' }]);
  });
});
