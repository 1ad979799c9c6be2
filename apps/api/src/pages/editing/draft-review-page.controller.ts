import { Body, Controller, Get, NotFoundException, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '@hindsight/domain';
import { DraftsService } from '@hindsight/drafts';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { draftListView, draftReviewView } from '../views/draft-review.view';

/** Reviewing imported drafts (editors and admins): the draft beside its source, then publishing. */
@Controller('drafts')
@UseFilters(PageErrorFilter)
export class DraftReviewPageController {
  constructor(private readonly imports: DraftsService) {}

  @Get()
  @RequireRole('editor')
  async list(@Res() res: Response): Promise<void> {
    sendPage(res, 200, draftListView((await this.imports.listDrafts({ first: 100 })).nodes));
  }

  @Get(':slug')
  @RequireRole('editor')
  async review(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const draft = await this.imports.findDraft(slug);
    if (!draft) throw new NotFoundException(`There is no draft "${slug}"; it may be published already.`);
    sendPage(res, 200, draftReviewView({ ...draft, csrfToken: (await principalOf(req))!.csrfToken ?? '' }));
  }

  /** Publishes against the version the page showed; a stale page shows the draft as it is now. */
  @Post(':slug/publish')
  @RequireRole('editor')
  async publish(@Param('slug') slug: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    const draft = await this.imports.findDraft(slug);
    if (!draft) throw new NotFoundException(`There is no draft "${slug}"; it may be published already.`);
    try {
      await this.imports.publish(slug, Number(body?.version), principal);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'BAD_USER_INPUT')) {
        const now = (await this.imports.findDraft(slug)) ?? draft;
        const message = error.code === 'CONFLICT' ? `The draft changed since you opened it (now version ${now.incident.version}); nothing was published. Review it again below.` : error.message;
        sendPage(res, error.code === 'CONFLICT' ? 409 : 400, draftReviewView({ ...now, csrfToken: principal.csrfToken ?? '', message }));
        return;
      }
      throw error;
    }
    res.redirect(303, `/incidents/${encodeURIComponent(slug)}`);
  }
}
