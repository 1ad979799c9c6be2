import { readProseActions, reportsHappening, settleProseActions, splitSentences, splitStatements, type Statement } from './prose.reader';

const statement = (text: string, extra: Partial<Statement> = {}): Statement => ({ text, sentence: 0, label: null, role: null, introduces: false, ...extra });
const actions = (text: string, language = 'en', item = false) =>
  settleProseActions(readProseActions(splitStatements(text, { item }), language)).map((a) => [a.status, a.text, a.owner]);

describe('splitSentences', () => {
  it('splits at sentence ends followed by a capital or a digit', () => {
    expect(splitSentences('The cache emptied. Load rose! 5 minutes later it fell.')).toEqual(['The cache emptied.', 'Load rose!', '5 minutes later it fell.']);
  });

  it('does not split after abbreviations, inside parentheses or before a lower-case word', () => {
    expect(splitSentences('Some hosts (e.g. db1. Then db2) failed, i.e. Most of them. apachectl returns.')).toEqual([
      'Some hosts (e.g. db1. Then db2) failed, i.e. Most of them. apachectl returns.',
    ]);
  });
});

describe('splitStatements', () => {
  it('splits clauses at ";" and at ":" followed by words, keeping the sentence number', () => {
    expect(splitStatements('Two steps went well; the third (at peak: 25%) did not: hits fell. Then it recovered.').map((s) => [s.sentence, s.text])).toEqual([
      [0, 'Two steps went well'],
      [0, 'the third (at peak: 25%) did not'],
      [0, 'hits fell.'],
      [1, 'Then it recovered.'],
    ]);
  });

  it('takes a list item\'s labels off and carries what they say to the statements after them', () => {
    const parts = splitStatements('Khắc phục: throttle boot; sửa query. Về sau: chuyển bảng, đổi rollout.', { item: true });
    expect(parts.map((s) => [s.label, s.role, s.text])).toEqual([
      ['Khắc phục', 'remediation', 'throttle boot'],
      [null, 'remediation', 'sửa query.'],
      ['Về sau', 'follow-up', 'chuyển bảng, đổi rollout.'],
    ]);
  });

  it('marks a statement that introduces what follows', () => {
    expect(splitStatements('Cutting requests came in 2 parts:')).toEqual([expect.objectContaining({ text: 'Cutting requests came in 2 parts', introduces: true })]);
  });

  it('takes no label from a paragraph, only from a list item', () => {
    expect(splitStatements('Fix: restart it.')[0]).toMatchObject({ label: null, role: null, text: 'Fix' });
  });
});

describe('reportsHappening', () => {
  it.each([
    ['The database failed over to the replica.', true],
    ['Last week the upstream API went down.', true],
    ['Neither site has wobbled since.', true],
    ['I went through the code and put a timeout on every call I could find.', true],
    ['If the cache is cold, queries time out.', false],
    ['Requests can time out under load.', false],
    ['This is the graph while the box was wedged.', false],
    ['“Systems fail where they connect.”', false],
    ['Fail fast!', false],
    ['The queue holds jobs for an hour.', false],
    ['Quiet, far too quiet.', false],
  ])('English: %s → %s', (text, expected) => {
    expect(reportsHappening(statement(text), 'en', false)).toBe(expected);
  });

  it.each([
    ['hệ thống đã rơi vào vòng quá tải', true],
    ['tuần trước hai bước đều êm', true],
    ['mỗi bước restart agent lần lượt', false],
    ['đội vận hành đang nâng cấp agent', false],
    ['agent dừng thì node bị gỡ khỏi catalog', false],
  ])('Vietnamese: %s → %s', (text, expected) => {
    expect(reportsHappening(statement(text), 'vi', false)).toBe(expected);
  });

  it('counts a dated statement in any language, and every statement after a remediation label', () => {
    expect(reportsHappening(statement('Le cache est vide'), 'fr', true)).toBe(true);
    expect(reportsHappening(statement('Le cache est vide'), 'fr', false)).toBe(false);
    expect(reportsHappening(statement('cho phép đọc từ replica', { role: 'remediation' }), 'vi', false)).toBe(true);
    expect(reportsHappening(statement('chuyển bảng', { role: 'follow-up' }), 'vi', false)).toBe(false);
  });
});

describe('readProseActions and settleProseActions', () => {
  it('reads what we did, one item per thing done, in the imperative', () => {
    expect(actions('Once we found it we raised the limit and lowered the timeout, while the platform team fixed the config.')).toEqual([
      ['done', 'Raise the limit', null],
      ['done', 'Lower the timeout', null],
      ['done', 'Fix the config', 'Platform team'],
    ]);
    expect(actions('We decided to shorten keep-alive to 5 s, and the sessions fell.')).toEqual([['done', 'Shorten keep-alive to 5 s', null]]);
  });

  it('does not read a setting or an intention as work done', () => {
    expect(actions('We had it set to 15 seconds.')).toEqual([]);
    expect(actions('Before we started cutting them back, requests peaked.')).toEqual([]);
    expect(actions('At 10:23 we turned the feature on for everyone.')).toEqual([]);
  });

  it('reads commitments, splitting "X and use Y" but not "measure and test"', () => {
    expect(actions('We will watch latency in the data center and use client timings to compare.')).toEqual([
      ['open', 'Watch latency in the data center', null],
      ['open', 'Use client timings to compare', null],
    ]);
    expect(actions('It may cost some performance, which we will measure and test.')).toEqual([['open', 'Measure and test (It may cost some performance)', null]]);
  });

  it('folds a later mention of the same work into the first and puts what was done first', () => {
    const settled = settleProseActions(
      readProseActions(splitStatements('Keep-alive may cost speed, which we will measure and test. We cached the page. We will use client timings to measure it.'), 'en'),
    );
    expect(settled.map((a) => [a.status, a.text, a.mentions])).toEqual([
      ['done', 'Cache the page', []],
      ['open', 'Measure and test (Keep-alive may cost speed)', ['Use client timings to measure it']],
    ]);
  });

  it('reads ongoing work, leading gerunds and missing safeguards', () => {
    expect(actions('We are holding an internal review.')).toEqual([['in_progress', 'Holding an internal review', null]]);
    expect(actions('Rolling back the deploy cleared the errors.')).toEqual([['done', 'Rolling back the deploy cleared the errors', null]]);
    expect(actions('Caching the result could have prevented it.')).toEqual([['open', 'Caching the result could have prevented it', null]]);
    expect(actions('The footer made this call on every page, without caching the result.')).toEqual([['open', 'Cache the result', null]]);
    expect(actions('The worker called the billing API without a timeout.')).toEqual([['open', 'Add a timeout', null]]);
    expect(actions('Cutting requests came in 2 parts:')).toEqual([]);
  });

  it('reads a remediation label as work done and a follow-up label as a list of work to do, in any language', () => {
    expect(actions('Khắc phục: throttle request boot; sửa query. Về sau: chuyển query sang bảng khác, sửa Mcrib.', 'vi', true)).toEqual([
      ['done', 'Throttle request boot', null],
      ['done', 'Sửa query.', null],
      ['open', 'Chuyển query sang bảng khác', null],
      ['open', 'Sửa Mcrib', null],
    ]);
    expect(actions('Fix: pinned the revision. Later: add an alert, review the retries.', 'en', true)).toEqual([
      ['done', 'Pinned the revision.', null],
      ['open', 'Add an alert', null],
      ['open', 'Review the retries', null],
    ]);
  });

  it('reads nothing from sentences without an actor or a label in languages without word lists', () => {
    expect(actions('Wir haben das Limit erhöht.', 'de')).toEqual([]);
  });
});

describe('splitSentences with Intl.Segmenter', () => {
  it('splits Japanese and Chinese prose at 。！？', () => {
    expect(splitSentences('同期が止まった。管理者が再起動した！原因は？')).toEqual(['同期が止まった。', '管理者が再起動した！', '原因は？']);
    expect(splitSentences('阵列重建完成。同步恢复。')).toEqual(['阵列重建完成。', '同步恢复。']);
  });

  it('keeps abbreviations, parentheses and lower-case continuations inside one sentence', () => {
    expect(splitSentences('We paged the rota (ca. 03:20. Then more.) and waited. It held.')).toEqual(['We paged the rota (ca. 03:20. Then more.) and waited.', 'It held.']);
    expect(splitSentences('Caches, e.g. Redis, were cold. Next.')).toEqual(['Caches, e.g. Redis, were cold.', 'Next.']);
  });
});
