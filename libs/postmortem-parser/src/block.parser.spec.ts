import { parseBlocks } from './block.parser';

const lines = (...texts: string[]) => texts.map((text, i) => ({ line: i + 1, text }));

describe('parseBlocks (Markdown)', () => {
  it('reads a line that opens and closes backticks as inline code, so the headings after it stay headings', () => {
    const blocks = parseBlocks(lines('```{"level":"fatal","msg":"queue gone"}```', '', '## Follow-ups', '', '- page the storage owner'), 'markdown');
    expect(blocks.map((b) => b.type)).toEqual(['paragraph', 'heading', 'item']);
  });

  it('still reads a fence with an info string up to its closing line', () => {
    const blocks = parseBlocks(lines('```json', '{"a": 1}', '```', '## Next'), 'markdown');
    expect(blocks.map((b) => b.type)).toEqual(['code', 'heading']);
  });
});
