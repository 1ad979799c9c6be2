import { escapeHtml, html, joinHtml, safeUrl, trustedHtml } from './html';

describe('html templates', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `"><script>alert('x')</script>&`;
    expect(html`<a title="${name}">${name}</a>`.value).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</a>',
    );
  });

  it('passes nested templates through once, and renders lists and blanks', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
    expect(joinHtml(['<x>', html`<b>y</b>`], ' & ').value).toBe('&lt;x&gt; &amp; <b>y</b>');
    expect(html`${trustedHtml('<em>ok</em>')}`.value).toBe('<em>ok</em>');
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });

  it.each([
    ['https://phabricator.wikimedia.org/T134456', 'https://phabricator.wikimedia.org/T134456'],
    ['http://example.org', 'http://example.org'],
    ['mailto:ops@example.org', 'mailto:ops@example.org'],
    ['/incidents/x#factor-y', '/incidents/x#factor-y'],
    ['#timeline-a', '#timeline-a'],
    ['javascript:alert(1)', null],
    [' JavaScript:alert(1)', null],
    ['data:text/html,<script>', null],
    ['//evil.example/x', null],
    ['not a url', null],
    [null, null],
  ])('safeUrl(%j) is %j', (url, expected) => {
    expect(safeUrl(url)).toBe(expected);
  });
});
