import { Body, Controller, Get, NotFoundException, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ACTIONABLE_STATUSES, AppError, type ActionableStatus, type FieldProblem } from '@hindsight/domain';
import { ActionableWritesService, ACTIONABLE_PRIORITIES, CLOSED_STATUSES, formatCalendarDate, TeamsService, type ActionablePatch, type ActionablePriority, type Principal } from '@hindsight/tracking';
import { anchorId } from '@hindsight/web';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import type { FieldError } from '../list-query.parser';
import { PageDataService } from '../page-data.service';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { actionableEditView, type ActionableFormValues } from '../views/actionable-edit.view';
import { noticePath } from './runbook-citations-page.controller';

type Stored = NonNullable<Awaited<ReturnType<ActionableWritesService['findByKey']>>>;

function valuesOf(a: Stored): ActionableFormValues {
  return {
    status: a.status,
    owner: a.snapshot.ownerAccount ? `account:${String(a.snapshot.ownerAccount)}` : a.snapshot.ownerTeam ? `team:${String(a.snapshot.ownerTeam)}` : a.owner ? `text:${a.owner}` : '',
    dueDate: formatCalendarDate(a.dueDate) ?? '',
    priority: a.priority ?? '',
    references: (a.snapshot.references as string[]).join('\n'),
    note: '',
  };
}

function sentValues(body: Record<string, unknown>, fallback: ActionableFormValues): ActionableFormValues {
  const text = (name: keyof ActionableFormValues) => (typeof body[name] === 'string' ? (body[name] as string) : fallback[name]);
  return { status: text('status') as ActionableStatus, owner: text('owner'), dueDate: text('dueDate'), priority: text('priority'), references: text('references'), note: text('note') };
}

/**
 * The owner choice as the form sends it (`account:<name>`, `team:<name>`, `text:<as written>`,
 * empty for nobody, or plain text from a client without the choice list) as the one patch field
 * it sets.
 */
function ownerPatch(choice: string): Pick<ActionablePatch, 'owner' | 'ownerAccount' | 'ownerTeam'> {
  const at = choice.indexOf(':');
  const [kind, name] = at < 0 ? ['', ''] : [choice.slice(0, at), choice.slice(at + 1).trim()];
  if (kind === 'account' && name) return { ownerAccount: name };
  if (kind === 'team' && name) return { ownerTeam: name };
  if (kind === 'text' && name) return { owner: name };
  // A client posting the form without the choice list sends the owner as text.
  return { owner: choice.trim() === '' ? null : choice.trim() };
}

/** Problems as the form shows them, under the field that caused them. */
function fieldErrors(problems: FieldProblem[]): FieldError[] {
  return problems.map((p) => {
    const field = p.field === 'to' ? 'status' : p.field.replace(/^patch\./, '').replace(/^owner(Account|Team)$/, 'owner');
    return { field: field.replace(/\[\d+\]$/, ''), message: `${field}: ${p.reason}` };
  });
}

/**
 * Editing a follow-up on the page: status through the workflow, owner, due date, priority,
 * references and a note, sent as one form against the version it showed. Editors and admins
 * only (the guard decides, for sessions and tokens alike); a stale form gets CONFLICT, shown
 * with the stored values, and writes nothing.
 */
@Controller('incidents')
@UseFilters(PageErrorFilter)
export class ActionableEditPageController {
  constructor(
    private readonly writes: ActionableWritesService,
    private readonly data: PageDataService,
    private readonly teams: TeamsService,
  ) {}

  @Get(':slug/actionables/:key/edit')
  @RequireRole('editor')
  async form(@Param('slug') slug: string, @Param('key') key: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { stored, incidentTitle } = await this.load(slug, key);
    const principal = (await principalOf(req))!;
    sendPage(res, 200, actionableEditView({ ...(await this.base(slug, incidentTitle, stored, principal)), values: valuesOf(stored), errors: [] }));
  }

  @Post(':slug/actionables/:key/edit')
  @RequireRole('editor')
  async save(@Param('slug') slug: string, @Param('key') key: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { stored, incidentTitle } = await this.load(slug, key);
    const principal = (await principalOf(req))!;
    const form = body ?? {};
    const sent = sentValues(form, valuesOf(stored));
    const version = Number(form.version);
    const errors: FieldError[] = [];
    if (!Number.isInteger(version) || version < 1) errors.push({ field: 'version', message: 'The form has no version; reload the page.' });
    if (!(ACTIONABLE_STATUSES as readonly string[]).includes(sent.status)) errors.push({ field: 'status', message: `status: unknown status "${sent.status}"` });
    if (sent.priority !== '' && !(ACTIONABLE_PRIORITIES as readonly string[]).includes(sent.priority)) errors.push({ field: 'priority', message: `priority: expected none or ${ACTIONABLE_PRIORITIES.join(', ')}` });
    if (errors.length > 0) {
      sendPage(res, 400, actionableEditView({ ...(await this.base(slug, incidentTitle, stored, principal)), values: sent, errors }));
      return;
    }
    try {
      await this.writes.edit(
        stored.id,
        version,
        {
          status: sent.status,
          patch: {
            ...ownerPatch(sent.owner),
            dueDate: sent.dueDate.trim() === '' ? null : sent.dueDate.trim(),
            priority: sent.priority === '' ? null : (sent.priority as ActionablePriority),
            references: sent.references.split(/\r?\n/).map((r) => r.trim()).filter(Boolean),
          },
        },
        principal,
        sent.note,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'CONFLICT' && 'currentVersion' in error.details) {
        const details = error.details as { expectedVersion: number; currentVersion: number; current: Record<string, unknown> };
        const now = (await this.writes.findByKey(slug, key)) ?? stored;
        sendPage(res, 409, actionableEditView({
          ...(await this.base(slug, incidentTitle, now, principal)),
          values: valuesOf(now),
          errors: [],
          conflict: { current: details.current, sent, expectedVersion: details.expectedVersion, currentVersion: details.currentVersion },
        }));
        return;
      }
      if (error.code === 'BAD_USER_INPUT') {
        const problems = (error.details as { problems?: FieldProblem[] }).problems ?? [{ field: 'form', reason: error.message }];
        sendPage(res, 400, actionableEditView({ ...(await this.base(slug, incidentTitle, stored, principal)), values: sent, errors: fieldErrors(problems) }));
        return;
      }
      throw error;
    }
    const back = `/incidents/${encodeURIComponent(slug)}#${anchorId('actionable', key)}`;
    // Closing it may make runbooks that cite it wrong: the next page names them (or goes straight on).
    const closing = CLOSED_STATUSES.includes(sent.status) && !CLOSED_STATUSES.includes(stored.status);
    res.redirect(303, closing ? noticePath('actionable', slug, key, 'closed', back) : back);
  }

  private async base(slug: string, incidentTitle: string, stored: Stored, principal: Principal) {
    return {
      ownerChoices: await this.teams.ownerChoices(),
      slug,
      incidentTitle,
      key: stored.key,
      title: stored.title,
      storedStatus: stored.status,
      version: stored.version,
      // Only sessions need it; a bearer-token client posting this form is not a browser.
      csrfToken: principal.csrfToken ?? '',
    };
  }

  private async load(slug: string, key: string): Promise<{ stored: Stored; incidentTitle: string }> {
    const found = await this.data.findIncident(slug);
    if ('movedTo' in found) throw new NotFoundException(`Incident "${slug}" was renamed to "${found.movedTo}".`);
    const stored = await this.writes.findByKey(found.incident.slug, key);
    if (!stored) throw new NotFoundException(`Incident "${slug}" has no follow-up "${key}".`);
    return { stored, incidentTitle: found.incident.title };
  }
}
