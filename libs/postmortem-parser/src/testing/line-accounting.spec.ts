import { parsePostmortem } from '../index';
import { silentlyLostLines } from './line-accounting';

const doc = ['# Disk full on the build cache', '', '## Timeline', '', '- 2024-06-21:', '  builders stopped writing artefacts', '  cache volume resized by hand', ''].join('\n');

describe('silentlyLostLines', () => {
  it('finds nothing when every used line reaches the draft', () => {
    expect(silentlyLostLines(doc, parsePostmortem(doc))).toEqual([]);
  });

  it('names the lines whose words the draft lost although the report called them used', () => {
    const result = parsePostmortem(doc);
    const emptied = { ...result, draft: { ...result.draft, timeline: [], narrative: '', summary: '' } };
    expect(silentlyLostLines(doc, emptied).map((l) => l.line)).toEqual([6, 7]);
  });
});
