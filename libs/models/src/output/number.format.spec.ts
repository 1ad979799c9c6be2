import { displayScale, formatDuration, formatNumber, formatPercent, formatQuantity, formatTickNumber } from './number.format';

describe('the one number formatter', () => {
  it('groups thousands, keeps small values short and writes a typographic minus', () => {
    expect(formatNumber(51660)).toBe('51,660');
    expect(formatNumber(-1234567)).toBe('−1,234,567');
    expect(formatNumber(-0.5)).toBe('−0.5');
    expect(formatNumber(-0.0001)).toBe('−0.0001');
    expect(formatNumber(123.4)).toBe('123');
    expect(formatNumber(19.66)).toBe('19.7');
    expect(formatNumber(0.01234)).toBe('0.0123');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(null)).toBe('n/a');
    expect(formatNumber(-Infinity)).toBe('−∞');
    // No exponent notation: a residue of floating point reads as a power of ten.
    expect(formatNumber(4.95e-13)).toBe('4.95 × 10⁻¹³');
    expect(formatNumber(-2e-7)).toBe('−2 × 10⁻⁷');
    expect(formatNumber(0.000001)).toBe('0.000001');
    expect(formatPercent(4.95e-15)).toBe('4.95 × 10⁻¹³ %');
  });

  it('keeps tick labels within five characters, negative ones included', () => {
    expect([0, 2500, 40000, 100000, 1500000, 0.25, 12.5].map(formatTickNumber)).toEqual(['0', '2,500', '40k', '100k', '1.5M', '0.25', '12.5']);
    expect(formatTickNumber(-40000)).toBe('−40k');
  });

  it('prints ratios as percentages, everything else with its own unit', () => {
    expect(displayScale('ratio').unit).toBe('%');
    expect(formatQuantity(1, 'ratio')).toBe('100 %');
    expect(formatQuantity(0.975, 'ratio')).toBe('97.5 %');
    expect(formatQuantity(51660, 'sessions')).toBe('51,660 sessions');
    expect(formatQuantity(3, '')).toBe('3');
    expect(formatPercent(0.02)).toBe('2 %');
  });

  it('says durations in the unit a reader would use', () => {
    expect(formatDuration(90)).toBe('90 s');
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(3 * 3600)).toBe('3 h');
  });
});
