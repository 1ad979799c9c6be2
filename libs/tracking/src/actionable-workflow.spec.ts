import { ACTIONABLE_STATUSES, AppError, type ActionableStatus } from '@hindsight/domain';
import { allowedTransitions, checkTransition } from './actionable-workflow';

const ALLOWED: [ActionableStatus, ActionableStatus][] = [
  ['open', 'in_progress'],
  ['open', 'wont_do'],
  ['in_progress', 'done'],
  ['in_progress', 'wont_do'],
  ['done', 'open'],
  ['wont_do', 'open'],
];

describe('actionable workflow', () => {
  const all = ACTIONABLE_STATUSES.flatMap((from) => ACTIONABLE_STATUSES.map((to) => [from, to] as [ActionableStatus, ActionableStatus]));

  it.each(all)('%s → %s is allowed exactly when the workflow says so', (from, to) => {
    const allowed = ALLOWED.some(([f, t]) => f === from && t === to);
    const attempt = () => checkTransition(from, to, 'a reason');
    if (allowed) expect(attempt).not.toThrow();
    else expect(attempt).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT', details: expect.objectContaining({ allowed: allowedTransitions(from) }) }));
  });

  it('needs a reason to move to wont_do', () => {
    expect(() => checkTransition('in_progress', 'wont_do', null)).toThrow(AppError);
    expect(() => checkTransition('in_progress', 'wont_do', '   ')).toThrow(/reason/);
    expect(() => checkTransition('open', 'wont_do', null)).toThrow(/reason/);
  });
});
