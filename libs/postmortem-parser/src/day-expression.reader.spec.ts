import { findDayExpression, resolveDay } from './day-expression.reader';
import { parseLeadingTime } from './time-expression.parser';

const anchor = { year: 2025, month: 2, day: 9 }; // a Sunday
const written = { year: 2025, month: 2, day: 12 };

describe('findDayExpression and resolveDay', () => {
  it.each([
    ['The next day the cache was rebuilt.', 'The next day', { year: 2025, month: 2, day: 10 }],
    ['Am nächsten Tag lief der Export wieder.', 'Am nächsten Tag', { year: 2025, month: 2, day: 10 }],
    ['Le lendemain, la file était vide.', 'Le lendemain', { year: 2025, month: 2, day: 10 }],
    ['第二天恢复了同步。', '第二天', { year: 2025, month: 2, day: 10 }],
    ['The day before, a config change went out.', 'The day before', { year: 2025, month: 2, day: 8 }],
    ['The alert had fired on friday.', 'on friday', { year: 2025, month: 2, day: 7 }],
    ['周六凌晨磁盘写满。', '周六', { year: 2025, month: 2, day: 8 }],
    ['，7 日晚服务暂停。', '7 日', { year: 2025, month: 2, day: 7 }],
    ['Today we restored the last mirror.', 'Today', written],
    ['今日晚 22:24 下线。', '今日', written],
  ])('%j names %j', (sentence, text, day) => {
    const e = findDayExpression(sentence);
    expect(e?.text).toBe(text);
    expect(e?.relative && resolveDay(e.relative, anchor, written)).toEqual(day);
  });

  it('reads the clock after a relative day, and prefers an absolute date to the weekday naming it', () => {
    expect(findDayExpression('今日晚 22:24 下线')?.clock).toEqual({ hour: 22, minute: 24, second: 0 });
    const e = findDayExpression('Saturday March 8th, the disk filled up');
    expect(e?.date).toEqual({ year: null, month: 3, day: 8 });
    expect(e?.relative).toBeNull();
  });

  it('finds no day in durations and plain weekdays used as names', () => {
    expect(findDayExpression('the rebuild took 3 日間')).toBeNull();
    expect(findDayExpression('Friday is the name of our deploy bot')).toBeNull();
    expect(resolveDay({ kind: 'offset', days: 1 }, null, null)).toBeNull();
  });
});

describe('parseLeadingTime: CJK dates and clocks', () => {
  it.each([
    ['3 月 5 日晚，管理员发现报错', '3 月 5 日晚', { year: null, month: 3, day: 5 }, null, 'day', '管理员发现报错'],
    ['2022年3月9日下午3点，阵列重建完成', '2022年3月9日下午3点', { year: 2022, month: 3, day: 9 }, [15, 0], 'hour', '阵列重建完成'],
    ['4月9日 14:05 发现', '4月9日 14:05', { year: null, month: 4, day: 9 }, [14, 5], 'minute', '发现'],
    ['下午3点半 重启', '下午3点半', null, [15, 30], 'minute', '重启'],
    ['15時20分に復旧', '15時20分', null, [15, 20], 'minute', 'に復旧'],
  ])('reads %j', (input, asWritten, date, clock, precision, rest) => {
    const t = parseLeadingTime(input);
    expect(t?.asWritten).toBe(asWritten);
    expect(t?.date).toEqual(date);
    expect(t?.clock ? [t.clock.hour, t.clock.minute] : null).toEqual(clock);
    expect(t?.precision).toBe(precision);
    expect(t?.rest).toBe(rest);
  });
});
