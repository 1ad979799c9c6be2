import { checkActionablePatch, keyFromTitle, parseCalendarDate } from './actionable-input.validator';
import { DEFAULT_TRACKERS } from './tracking-options';

describe('actionable input', () => {
  it.each([
    ['2026-12-31', '2026-12-31T00:00:00.000Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2026-02-29', null],
    ['2026-02-30', null],
    ['2026-13-01', null],
    ['31/12/2026', null],
    ['2026-1-5', null],
    ['0001-01-01', null],
  ])('reads %s as a calendar date: %s', (text, iso) => {
    expect(parseCalendarDate(text)?.toISOString() ?? null).toBe(iso);
  });

  it('derives keys from titles in any script', () => {
    expect(keyFromTitle('Raise the HAProxy limit!')).toBe('raise-the-haproxy-limit');
    expect(keyFromTitle('Giảm thời gian chờ')).toBe('giam-thoi-gian-cho');
    expect(keyFromTitle('!!!')).toBe('actionable');
  });

  it('leaves absent fields alone, clears nullable ones on null, and treats a blank owner as none', () => {
    expect(checkActionablePatch({}, DEFAULT_TRACKERS)).toEqual({});
    expect(checkActionablePatch({ owner: '  ', dueDate: null, priority: null }, DEFAULT_TRACKERS)).toEqual({ owner: null, dueDate: null, priority: null });
  });

  it('refuses two spellings of the same reference', () => {
    const wikimedia = { ...DEFAULT_TRACKERS, phabricator: 'https://phabricator.wikimedia.org' };
    expect(() => checkActionablePatch({ references: ['T5', 'https://phabricator.wikimedia.org/T5'] }, wikimedia)).toThrow(/duplicate of "T5"/);
  });
});
