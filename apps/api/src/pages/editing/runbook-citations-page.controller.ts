import { Body, Controller, Get, NotFoundException, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, type FieldProblem } from '@hindsight/domain';
import { CITED_KINDS, RunbooksService, type CitationNotice, type CitedKind, type Principal } from '@hindsight/tracking';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { citationNoticePageView, citeFormPath, citeFormView } from '../views/runbook-citations.view';

const str = (from: Record<string, unknown>, name: string): string => (typeof from[name] === 'string' ? (from[name] as string).trim() : '');
const CHANGES: readonly CitationNotice['change'][] = ['closed', 'renamed', 'retitled'];

/** Where the notice page sends the person on: a path of this site, never another host. */
function localPath(text: string): string {
  return text.startsWith('/') && !text.startsWith('//') && !text.includes('\\') ? text : '/';
}

/** The page after a change to a cited record: the notice when runbooks cite it, else straight on. */
export function noticePath(kind: CitedKind, slug: string, key: string, change: CitationNotice['change'], next: string): string {
  return `/runbooks/notice?${new URLSearchParams({ kind, incident: slug, key, change, next }).toString()}`;
}

/**
 * Runbook citations on the pages, without JavaScript: the form to register that a runbook cites a
 * record, removal of a citation, and the notice shown after a change to a cited record. Writing
 * needs an editor (the guard decides, with the session's CSRF token on every form).
 */
@Controller('runbooks')
@UseFilters(PageErrorFilter)
export class RunbookCitationsPageController {
  constructor(private readonly runbooks: RunbooksService) {}

  @Get('cite')
  @RequireRole('editor')
  async form(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    await this.render(res, 200, principal, str(query, 'kind'), str(query, 'incident'), str(query, 'key'), { url: '', title: '' }, []);
  }

  @Post('cite')
  @RequireRole('editor')
  async cite(@Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    const form = body ?? {};
    const [kind, slug, key] = [str(form, 'kind'), str(form, 'incident'), str(form, 'key')];
    const values = { url: str(form, 'url'), title: str(form, 'title') };
    const found = await this.target(kind, slug, key);
    try {
      await this.runbooks.cite({ ...values, target: found.target }, principal);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'BAD_USER_INPUT') throw error;
      const problems = (error.details as { problems?: FieldProblem[] }).problems ?? [];
      const errors = problems.map((p) => ({ field: p.field.replace(/^input\./, ''), message: `${p.field.replace(/^input\./, '')}: ${p.reason}` }));
      await this.render(res, 400, principal, kind, slug, key, values, errors);
      return;
    }
    res.redirect(303, citeFormPath(kind as CitedKind, slug, key));
  }

  @Post('citations/:id/remove')
  @RequireRole('editor')
  async remove(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    const citation = await this.runbooks.findCitation(id);
    if (!citation) throw new NotFoundException(`There is no runbook citation "${id}".`);
    const removed = await this.runbooks.uncite(id, principal, 'id');
    const back = await this.runbooks.citePageOf(removed);
    res.redirect(303, back ? citeFormPath(back.kind, back.slug, back.key) : '/');
  }

  /** After a change to a cited record; anyone may read it (it names what the record's page names). */
  @Get('notice')
  async notice(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const next = localPath(str(query, 'next'));
    const change = str(query, 'change') as CitationNotice['change'];
    const found = await this.runbooks.findTarget(str(query, 'kind') as CitedKind, str(query, 'incident'), str(query, 'key')).catch(() => null);
    const notice = found && CHANGES.includes(change) ? await this.runbooks.notice(found.target, change, found.name) : null;
    if (!notice) {
      res.redirect(303, next);
      return;
    }
    sendPage(res, 200, citationNoticePageView([notice], next));
  }

  private async target(kind: string, slug: string, key: string) {
    if (!(CITED_KINDS as readonly string[]).includes(kind)) throw new NotFoundException(`"${kind}" is not something a runbook cites: expected ${CITED_KINDS.join(', ')}.`);
    const found = await this.runbooks.findTarget(kind as CitedKind, slug, key);
    if (!found) throw new NotFoundException(`There is no ${kind.replace('_', ' ')} "${kind === 'incident' ? slug : key}"${kind === 'pattern' || kind === 'incident' ? '' : ` in incident "${slug}"`}.`);
    return found;
  }

  private async render(res: Response, status: number, principal: Principal, kind: string, slug: string, key: string, values: { url: string; title: string }, errors: { field: string; message: string }[]): Promise<void> {
    const found = await this.target(kind, slug, key);
    const citations = await this.runbooks.citationsOf(found.target);
    sendPage(res, status, citeFormView({ kind: kind as CitedKind, slug, key, name: found.name, path: found.path, citations, values, errors, csrfToken: principal.csrfToken ?? '' }));
  }
}
