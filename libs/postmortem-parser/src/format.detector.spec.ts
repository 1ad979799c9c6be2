import { detectFormat } from './format.detector';

const lines = (text: string) => text.split('\n');

describe('detectFormat', () => {
  it('reads # headings and front matter as Markdown', () => {
    expect(detectFormat(lines('## Summary\nText\n## Timeline\n- 10:00 x'))).toBe('markdown');
    expect(detectFormat(lines('---\ntitle: x\n---\nJust text.'))).toBe('markdown');
    expect(detectFormat(lines('Title\n=====\n\nSome text\n\nTimeline\n--------\n\n- 10:00 x'))).toBe('markdown');
  });

  it('reads == headings ==, bold quotes, links and templates as wikitext', () => {
    expect(detectFormat(lines('== Summary ==\nText\n== Timeline ==\n* 10:00 x'))).toBe('wikitext');
    expect(detectFormat(lines("'''Bold''' text with [[a link]] and {{phab|T1}}"))).toBe('wikitext');
  });

  it('falls back to plain text', () => {
    expect(detectFormat(lines('Timeline:\n10:00 something\n#0 0x00002 in poll ()'))).toBe('text');
  });
});
