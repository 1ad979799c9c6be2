import { parseLeadingTime } from './time-expression.parser';

describe('parseLeadingTime', () => {
  it.each([
    ['2016-05-05T02:16:10 first INFO', '2016-05-05T02:16:10', { year: 2016, month: 5, day: 5 }, [2, 16, 10], 'second', 'first INFO'],
    ['2016-05-05T02:28 log events elevated', '2016-05-05T02:28', { year: 2016, month: 5, day: 5 }, [2, 28, 0], 'minute', 'log events elevated'],
    ['2016-05-05T02:3X bytes_out spikes', '2016-05-05T02:3X', { year: 2016, month: 5, day: 5 }, [2, 30, 0], 'ten_minutes', 'bytes_out spikes'],
    ['2016-05-05T03:20:00 (ca.) Ori stops it', '2016-05-05T03:20:00 (ca.)', { year: 2016, month: 5, day: 5 }, [3, 20, 0], 'approximate', 'Ori stops it'],
    ['(ca.) 03:20 Ori stops it', '(ca.) 03:20', null, [3, 20, 0], 'approximate', 'Ori stops it'],
    ['10:23:14 StackEgg enabled', '10:23:14', null, [10, 23, 14], 'second', 'StackEgg enabled'],
    ['~14:00 queue grows', '~14:00', null, [14, 0, 0], 'approximate', 'queue grows'],
    ['around 14:00 queue grows', 'around 14:00', null, [14, 0, 0], 'approximate', 'queue grows'],
    ['14:00–14:20 restarts', '14:00–14:20', null, [14, 0, 0], 'minute', 'restarts'],
    ['14:XX something', '14:XX', null, [14, 0, 0], 'hour', 'something'],
    ['9:41 PM — job starts', '9:41 PM', null, [21, 41, 0], 'minute', 'job starts'],
    ['12:15 AM — found it', '12:15 AM', null, [0, 15, 0], 'minute', 'found it'],
    ['12:05 pm lunch', '12:05 pm', null, [12, 5, 0], 'minute', 'lunch'],
    ['9pm the page', '9pm', null, [21, 0, 0], 'hour', 'the page'],
    ['**08:1X** split brain', '08:1X', null, [8, 10, 0], 'ten_minutes', 'split brain'],
    ['09h05 Début', '09h05', null, [9, 5, 0], 'minute', 'Début'],
    ['March 31, 2015 10:23 enabled', 'March 31, 2015 10:23', { year: 2015, month: 3, day: 31 }, [10, 23, 0], 'minute', 'enabled'],
    ['2024-03-14 release day', '2024-03-14', { year: 2024, month: 3, day: 14 }, null, 'day', 'release day'],
  ])('reads %j', (input, asWritten, date, clock, precision, rest) => {
    const t = parseLeadingTime(input);
    expect(t).not.toBeNull();
    expect(t?.asWritten).toBe(asWritten);
    expect(t?.date).toEqual(date);
    expect(t?.clock ? [t.clock.hour, t.clock.minute, t.clock.second] : null).toEqual(clock);
    expect(t?.precision).toBe(precision);
    expect(t?.rest).toBe(rest);
  });

  it('reads slash dates month-first in English and day-first elsewhere', () => {
    expect(parseLeadingTime('2/3/2022 10:00 x')?.date).toEqual({ year: 2022, month: 2, day: 3 });
    expect(parseLeadingTime('2/3/2022 10:00 x', { dayFirst: true })?.date).toEqual({ year: 2022, month: 3, day: 2 });
    expect(parseLeadingTime('22/2 09:15 x')?.date).toEqual({ year: null, month: 2, day: 22 });
    expect(parseLeadingTime('1/2 of the fleet restarted')).toBeNull();
  });

  it.each([
    ['10:05 PM PDT deploy', 'PDT', -420],
    ['14:00 UTC alert', 'UTC', 0],
    ['2016-05-05T02:16:10+02:00 thing', '+02:00', 120],
    ['09:12 MEZ Rollout', 'MEZ', 60],
    ['14:00–14:20 UTC restarts', 'UTC', 0],
  ])('reads the zone of %j', (input, label, offset) => {
    const zone = parseLeadingTime(input)?.zone;
    expect(zone).toEqual({ kind: 'fixed', offsetMinutes: offset, label });
  });

  it('does not take a following capitalised word for a zone', () => {
    const t = parseLeadingTime('14:02 DNS changes pushed');
    expect(t?.zone).toBeNull();
    expect(t?.rest).toBe('DNS changes pushed');
  });

  it.each(['1) The lower-case version', 'About 50 users complained', '3,444 requests per second', '25:00 is not a time', 'Timeline for March 31st:', '2016-05-05x'])(
    'finds no leading time in %j',
    (input) => {
      expect(parseLeadingTime(input)).toBeNull();
    },
  );
});
