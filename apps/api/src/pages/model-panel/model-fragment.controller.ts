import { Controller, Get, Param, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { IncidentsService } from '@hindsight/incidents';
import { trustedHtml } from '@hindsight/web';
import { PageErrorFilter } from '../page-error.filter';
import { formFields, queryStringOf, sendPage } from '../page-response';
import { ModelPanel } from './model-panel.provider';
import { fragmentPath } from './model-panel.view';
import { WhatIfRateLimitGuard } from './what-if-rate-limit.guard';

/**
 * The Model aside alone, for the page script: a what-if submitted with JavaScript on redraws the
 * panel from here without reloading the page. Same renderer, same service and same query fields
 * as the page, so both paths show exactly the same thing. A GET like the page: no token is needed
 * where reading is open, and nothing is changed.
 */
@Controller('incidents')
@UseFilters(PageErrorFilter)
@UseGuards(WhatIfRateLimitGuard)
export class ModelFragmentController {
  constructor(
    private readonly incidents: IncidentsService,
    private readonly panel: ModelPanel,
  ) {}

  @Get(':slug/model')
  async fragment(@Param('slug') slug: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    // A renamed incident's old slug leads to the panel under its current one, like the page.
    const incident = await this.incidents.findBySlug(slug);
    if (incident.slug !== slug) {
      res.redirect(301, `${fragmentPath(incident.slug)}${queryStringOf(req)}`);
      return;
    }
    const { html: markup } = await this.panel.render({ incidentId: incident.id, slug: incident.slug, form: formFields(query) });
    // Search engines and link previews want the page, not this piece of it.
    res.setHeader('X-Robots-Tag', 'noindex');
    sendPage(res, 200, trustedHtml(markup));
  }
}
