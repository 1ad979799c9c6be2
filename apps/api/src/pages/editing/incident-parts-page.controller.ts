import { Body, Controller, Get, NotFoundException, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, type CausalFactorDocument, type CausalLinkDocument, type FieldProblem, type TimelineEventKind, type TimePrecision } from '@hindsight/domain';
import { IncidentWritesService, RunbooksService, type Principal } from '@hindsight/tracking';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { incidentPartsView } from '../views/incident-parts.view';
import { noticePath } from './runbook-citations-page.controller';

const str = (body: Record<string, unknown>, name: string): string => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');

/**
 * Timeline events, causal factors and links on the page (editors and admins). Each form is one
 * write through IncidentWritesService against the incident version the page showed: a stale page
 * gets 409 and the record as it is now; a refused value gets 400 with the reason; neither writes.
 */
@Controller('incidents')
@UseFilters(PageErrorFilter)
export class IncidentPartsPageController {
  constructor(
    private readonly writes: IncidentWritesService,
    private readonly runbooks: RunbooksService,
  ) {}

  @Get(':slug/parts')
  @RequireRole('editor')
  async form(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.render(res, 200, slug, (await principalOf(req))!);
  }

  @Post(':slug/parts')
  @RequireRole('editor')
  async save(@Param('slug') slug: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    const form = body ?? {};
    const version = Number(form.version);
    const op = str(form, 'op');
    const part = str(form, 'part');
    let retitled: string | null = null;
    try {
      if (part === 'event') {
        if (op === 'delete') await this.writes.deleteTimelineEvent(slug, version, str(form, 'key'), principal);
        else {
          await this.writes.upsertTimelineEvent(
            slug,
            version,
            {
              key: str(form, 'key'),
              asWritten: str(form, 'asWritten') || null,
              at: str(form, 'at') || null,
              precision: (str(form, 'precision') || null) as TimePrecision | null,
              kind: str(form, 'kind') as TimelineEventKind,
              text: str(form, 'text'),
            },
            null,
            principal,
          );
        }
      } else if (part === 'factor') {
        if (op === 'delete') await this.writes.deleteCausalFactor(slug, version, str(form, 'key'), principal);
        else {
          const factor = { key: str(form, 'key'), title: str(form, 'title') || null, role: str(form, 'role'), component: str(form, 'component'), text: str(form, 'text') } as CausalFactorDocument;
          const before = await this.runbooks.findTarget('causal_factor', slug, factor.key);
          await this.writes.upsertCausalFactor(slug, version, factor, null, principal);
          if (before && before.name !== (factor.title ?? factor.text)) retitled = factor.key;
        }
      } else if (part === 'link') {
        const link = { from: str(form, 'from'), to: str(form, 'to'), kind: str(form, 'kind') } as CausalLinkDocument;
        if (op === 'delete') await this.writes.deleteCausalLink(slug, version, link, principal);
        else await this.writes.upsertCausalLink(slug, version, link, principal);
      } else {
        throw AppError.badField('part', 'expected event, factor or link');
      }
    } catch (error) {
      if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'BAD_USER_INPUT' || error.code === 'NOT_FOUND')) {
        const conflict = error.code === 'CONFLICT' && 'currentVersion' in error.details;
        const problems = (error.details as { problems?: FieldProblem[] }).problems;
        const text = conflict
          ? `Someone changed this incident since the page was shown (now version ${String((error.details as { currentVersion: number }).currentVersion)}). Nothing you sent was saved; the forms below show the record as it is now.`
          : problems
            ? problems.map((p) => `${p.field}: ${p.reason}`).join('; ')
            : error.message;
        await this.render(res, conflict ? 409 : error.code === 'NOT_FOUND' ? 404 : 400, slug, principal, { kind: conflict ? 'conflict' : 'error', text });
        return;
      }
      throw error;
    }
    const next = `/incidents/${encodeURIComponent(slug)}/parts`;
    // A factor's title (or, without one, its text) is its name: runbooks citing it may now read wrong, and the next page names them.
    res.redirect(303, retitled ? noticePath('causal_factor', slug, retitled, 'retitled', next) : next);
  }

  private async render(res: Response, status: number, slug: string, principal: Principal, message?: { kind: 'conflict' | 'error'; text: string }): Promise<void> {
    const found = await this.writes.document(slug);
    if (!found) throw new NotFoundException(`There is no incident "${slug}".`);
    sendPage(res, status, incidentPartsView({ doc: found.doc, title: found.doc.title, version: found.version, csrfToken: principal.csrfToken ?? '', message }));
  }
}
