import { renderMarkdown } from './markdown';

describe('renderMarkdown', () => {
  it('keeps the structure a narrative needs and pushes headings under the page heading', () => {
    const out = renderMarkdown(
      ['## What happened', '', 'Some **bold**, `code` and a [source](https://example.org/a?b=1).', '', '1. one', '2. two', '', '| a | b |', '|---|---|', '| 1 | 2 |'].join('\n'),
      { headingOffset: 1 },
    ).value;
    expect(out).toContain('<h3>What happened</h3>');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<code>code</code>');
    expect(out).toContain('<a href="https://example.org/a?b=1" rel="nofollow noopener noreferrer">source</a>');
    expect(out).toMatch(/<ol>\s*<li>one<\/li>/);
    expect(out).toContain('<td>2</td>');
  });

  it('never lets h1 through and clamps at h6', () => {
    expect(renderMarkdown('# top\n\n###### deep', { headingOffset: 1 }).value).toMatch(/<h2>top<\/h2>\s*<h6>deep<\/h6>/);
    expect(renderMarkdown('# top').value).toContain('<h1>top</h1>');
  });

  it.each([
    ['a script element', '<script>alert(1)</script>after', /<script|alert/],
    ['an image with onerror', '<img src="x" onerror="alert(1)">', /<img|onerror/],
    ['a Markdown javascript: link', '[x](javascript:alert(1))', /href/],
    ['an HTML javascript: link', '<a href="javascript:alert(1)">x</a>', /href/],
    ['a javascript: link hidden by case and entities', '<a href="JaVa&#x53;cript:alert(1)">x</a>', /href/],
    ['a data: link', '[x](data:text/html;base64,PHNjcmlwdD4=)', /href/],
    ['an SVG with onload', '<svg onload="alert(1)"><circle r="1"/></svg>', /<svg|onload|<circle/],
    ['an iframe', '<iframe src="https://evil.example"></iframe>', /<iframe/],
    ['inline style and handlers on allowed tags', '<p style="color:red" onclick="alert(1)">x</p>', /style|onclick/],
    ['a form', '<form action="https://evil.example"><input name="a"></form>', /<form|<input/],
    ['a protocol-relative link', '[x](//evil.example/a)', /href/],
  ])('drops %s', (_name, markdown, forbidden) => {
    expect(renderMarkdown(markdown).value).not.toMatch(forbidden);
  });

  it('keeps the text around what it drops', () => {
    expect(renderMarkdown('before <script>alert(1)</script> after').value).toContain('after');
    expect(renderMarkdown('Use <kbd>Ctrl</kbd> and ~~old~~ text').value).toBe('<p>Use <kbd>Ctrl</kbd> and <del>old</del> text</p>\n');
  });
});
