import { anchorId, runbookMarkdownLink, truncateWords } from './anchors';

describe('anchors and runbook links', () => {
  it('builds fragment ids from stable keys', () => {
    expect(anchorId('factor', 'changeprop-retries-on-500')).toBe('factor-changeprop-retries-on-500');
    expect(anchorId('timeline', 'first-retry-count-exceeded')).toBe('timeline-first-retry-count-exceeded');
  });

  it('writes a Markdown link that survives brackets in the label and parentheses in the URL', () => {
    expect(runbookMarkdownLink('ChangeProp [test] loop — retries\\amplified', 'http://h/incidents/x#factor-y')).toBe(
      '[ChangeProp \\[test\\] loop — retries\\\\amplified](http://h/incidents/x#factor-y)',
    );
    expect(runbookMarkdownLink('a\n  b', 'http://h/a (b)')).toBe('[a b](http://h/a%20%28b%29)');
  });

  it('shortens on a word boundary and marks the cut', () => {
    expect(truncateWords('short', 10)).toBe('short');
    expect(truncateWords('The loop had been repeating one request at a time', 24)).toBe('The loop had been…');
  });
});
