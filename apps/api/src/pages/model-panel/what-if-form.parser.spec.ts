import { figureTargetExample, parseWhatIfForm, type WhatIfParameter } from './what-if-form.parser';

const PARAMETERS: WhatIfParameter[] = [
  { name: 'keepAliveSeconds', unit: 's', default: 15, min: 0, max: 120, description: 'HTTP keep-alive.' },
  { name: 'sessionCap', unit: 'sessions', default: 40000, min: 1, max: 1000000, description: 'Session limit.', integer: true },
];
const SCENARIOS = ['lower-keep-alive', 'raise-session-limit'];

describe('parseWhatIfForm', () => {
  it('keeps the defaults when the query names no parameter', () => {
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, null)).toEqual({
      values: { keepAliveSeconds: '15', sessionCap: '40000' },
      overrides: {},
      scenario: 'all',
      errors: [],
      seeds: null,
      sweep: null,
      sweep2: null,
      boundary: null,
      texts: {},
    });
  });

  it('reads an ensemble and a sweep within the page bounds, and refuses others next to their field', () => {
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, { seeds: '10', sweep: 'keepAliveSeconds:5:15:3' })).toMatchObject({ seeds: 10, sweep: { parameter: 'keepAliveSeconds', from: 5, to: 15, count: 3 }, errors: [] });
    const bad = parseWhatIfForm(PARAMETERS, SCENARIOS, { seeds: '1', sweep: 'keepAliveSeconds:5:500:3' });
    expect(bad.errors).toEqual([
      { field: 'seeds', message: 'Enter a whole number of runs from 2 to 20.' },
      { field: 'sweep', message: 'Sweep keepAliveSeconds within a number from 0 to 120 s, from a lower to a higher value.' },
    ]);
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, { sweep: 'nothing:1:2:3' }).errors[0]!.message).toBe('Write parameter:from:to:count, e.g. keepAliveSeconds:1:10:5; the parameters are keepAliveSeconds, sessionCap.');
  });

  it('reads a boundary search on a figure crossing a value, and refuses one it cannot read next to the field', () => {
    const figures = [
      { name: 'peak-sessions', unit: 'sessions' },
      { name: 'stackegg-demand', unit: 'sessions' },
    ];
    const parse = (form: Record<string, string>) => parseWhatIfForm(PARAMETERS, SCENARIOS, form, ['sessions-pinned-at-cap'], figures);
    expect(parse({ boundary: 'keepAliveSeconds:5:15', 'boundary-figure': ' stackegg-demand:below:40000 ' })).toMatchObject({
      boundary: { parameter: 'keepAliveSeconds', from: 5, to: 15, check: null, figure: { name: 'stackegg-demand', op: 'below', value: 40000 } },
      errors: [],
    });
    // Numbers in the one grammar of the page's other fields: a leading + is a number there too.
    expect(parse({ boundary: 'keepAliveSeconds:5:15', 'boundary-figure': 'stackegg-demand:above:+4e4' }).boundary).toMatchObject({ figure: { value: 40000 } });
    expect(parse({ boundary: 'keepAliveSeconds:5:15' }).boundary).toMatchObject({ check: null, figure: null });
    // Whether the model has the figure, and whether a check is chosen too, is the engine's check (the panel asks it).
    expect(parse({ boundary: 'keepAliveSeconds:5:15', 'boundary-figure': 'nope:above:1', 'boundary-check': 'sessions-pinned-at-cap' })).toMatchObject({
      boundary: { check: 'sessions-pinned-at-cap', figure: { name: 'nope', op: 'above', value: 1 } },
      errors: [],
    });
    const refused = (form: Record<string, string>) => parse(form).errors;
    expect(refused({ boundary: 'keepAliveSeconds:5:15', 'boundary-figure': 'stackegg-demand>1' })).toEqual([
      { field: 'boundary-figure', message: 'Write figure:above:value or figure:below:value, e.g. peak-sessions:above:100; the figures are peak-sessions, stackegg-demand.' },
    ]);
    expect(refused({ boundary: 'keepAliveSeconds:5:15', 'boundary-figure': 'stackegg-demand:above:1e400' })).toEqual([
      {
        field: 'boundary-figure',
        message: 'The value in “stackegg-demand:above:1e400” is not a finite number. Write figure:above:value or figure:below:value, e.g. peak-sessions:above:100; the figures are peak-sessions, stackegg-demand.',
      },
    ]);
    expect(refused({ 'boundary-figure': 'stackegg-demand:above:1' })).toEqual([
      { field: 'boundary-figure', message: 'Give the parameter to search too: the figure says what the search above bisects on.' },
    ]);
  });

  it('gives an example figure target that fits the first figure’s unit', () => {
    expect(figureTargetExample([{ name: 'worst-page-success', unit: 'ratio' }, { name: 'peak-sessions', unit: 'sessions' }])).toBe('worst-page-success:above:0.5');
    expect(figureTargetExample([{ name: 'peak-sessions', unit: 'sessions' }])).toBe('peak-sessions:above:100');
    expect(figureTargetExample([])).toBe('name:above:100');
  });

  it('takes changed values as overrides and ignores values equal to the default', () => {
    const form = parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.keepAliveSeconds': ' 7.5 ', 'p.sessionCap': '40000', scenario: 'lower-keep-alive', other: 'x' });
    expect(form.overrides).toEqual({ keepAliveSeconds: 7.5 });
    expect(form.values).toEqual({ keepAliveSeconds: '7.5', sessionCap: '40000' });
    expect(form.scenario).toBe('lower-keep-alive');
    expect(form.errors).toEqual([]);
  });

  it('refuses non-numbers, out-of-range and fractional counts, naming the allowed range', () => {
    const form = parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.keepAliveSeconds': '0x10', 'p.sessionCap': '2.5' });
    expect(form.errors).toEqual([
      { field: 'p.keepAliveSeconds', message: '“0x10” is not a number. Enter a number from 0 to 120 s.' },
      { field: 'p.sessionCap', message: '2.5 is not a whole number. Enter a whole number from 1 to 1,000,000 sessions.' },
    ]);
    // The reader's own text is shown again, to be corrected.
    expect(form.values.keepAliveSeconds).toBe('0x10');
    expect(form.overrides).toEqual({});
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.keepAliveSeconds': '500' }).errors).toEqual([
      { field: 'p.keepAliveSeconds', message: '500 is out of range. Enter a number from 0 to 120 s.' },
    ]);
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.keepAliveSeconds': '' }).errors[0]!.message).toBe('Enter a number from 0 to 120 s; the default is 15.');
    expect(parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.keepAliveSeconds': 'Infinity' }).errors).toHaveLength(1);
  });

  it('refuses unknown parameters and scenarios', () => {
    const form = parseWhatIfForm(PARAMETERS, SCENARIOS, { 'p.nope': '1', scenario: 'as-it-never-was' });
    expect(form.errors.map((e) => e.field)).toEqual(['form', 'scenario']);
    expect(form.errors[0]!.message).toContain('no parameter named nope');
    expect(form.scenario).toBe('all');
  });
});
