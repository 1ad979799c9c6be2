import { AppError, type ActionableStatus } from '@hindsight/domain';

/**
 * The status workflow:
 *
 *   open ──▶ in_progress ──▶ done
 *     │                 └──▶ wont_do
 *     └──▶ wont_do   (declined at triage, with the reason)
 *     ▲
 *     └──── reopen ◀──────── done | wont_do
 *
 * Done always goes through in_progress, so "who worked on it" is never skipped; declining needs
 * no work, so an open item can move to wont_do straight away (always with a reason). Reopening
 * always lands on open, so the item is triaged again.
 */
export const TRANSITIONS: Readonly<Record<ActionableStatus, readonly ActionableStatus[]>> = {
  open: ['in_progress', 'wont_do'],
  in_progress: ['done', 'wont_do'],
  done: ['open'],
  wont_do: ['open'],
};

export const CLOSED_STATUSES: readonly ActionableStatus[] = ['done', 'wont_do'];

export function allowedTransitions(from: ActionableStatus): readonly ActionableStatus[] {
  return TRANSITIONS[from];
}

/** Throws BAD_USER_INPUT naming the allowed targets when `from → to` is not in the workflow. */
export function checkTransition(from: ActionableStatus, to: ActionableStatus, note: string | null): void {
  const allowed = TRANSITIONS[from];
  if (!allowed.includes(to)) {
    throw new AppError('BAD_USER_INPUT', `to: cannot move an actionable from ${from} to ${to}; from ${from} it can move to ${allowed.join(' or ')}.`, {
      field: 'to',
      problems: [{ field: 'to', reason: `not allowed from ${from}` }],
      from,
      allowed,
    });
  }
  if (to === 'wont_do' && (note === null || note.trim() === '')) {
    throw AppError.badField('note', 'moving to wont_do needs a reason: say why the work will not be done');
  }
}
