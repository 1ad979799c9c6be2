import { formatInstant, PRECISION_LABELS } from './time-format';

describe('formatInstant', () => {
  const at = new Date('2016-05-05T02:34:16Z');
  it.each([
    ['second', '2016-05-05 02:34:16 UTC'],
    ['minute', '2016-05-05 02:34 UTC'],
    ['ten_minutes', '2016-05-05 02:30–02:39 UTC'],
    ['hour', '2016-05-05 02:00–02:59 UTC'],
    ['day', '2016-05-05'],
    ['approximate', 'about 2016-05-05 02:34 UTC'],
  ] as const)('shows a %s-precision time no more precisely than known', (precision, expected) => {
    expect(formatInstant(at, precision)).toBe(expected);
    expect(PRECISION_LABELS[precision]).toBeTruthy();
  });
});
