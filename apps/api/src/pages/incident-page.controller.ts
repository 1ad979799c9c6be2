import { principalOf } from '../auth/request-principal';
import { roleAllows } from '@hindsight/tracking';
import { Body, Controller, Get, Inject, Logger, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { IncidentRecord } from '@hindsight/incidents';
import { RunbooksService, TeamsService } from '@hindsight/tracking';
import { html, trustedHtml, type SafeHtml } from '@hindsight/web';
import { ReadOperation } from '../auth/roles.decorator';
import { WhatIfRateLimitGuard } from './model-panel/what-if-rate-limit.guard';
import { IncidentExports, wantsJson } from './incident-exports';
import { INCIDENT_MODEL_PANEL, type ActionableVerdict, type IncidentModelPanel } from './incident-model-panel.token';
import { PageDataService } from './page-data.service';
import { PageErrorFilter } from './page-error.filter';
import { formFields, queryStringOf, requestOrigin, sendPage } from './page-response';
import { todayUtc } from './views/labels';
import { incidentView } from './views/incident.view';

@Controller('incidents')
@UseFilters(PageErrorFilter)
@UseGuards(WhatIfRateLimitGuard)
export class IncidentPageController {
  private readonly logger = new Logger('Pages');

  constructor(
    private readonly data: PageDataService,
    @Inject(INCIDENT_MODEL_PANEL) private readonly modelPanel: IncidentModelPanel,
    private readonly exports: IncidentExports,
    private readonly runbooks: RunbooksService,
    private readonly teams: TeamsService,
  ) {}

  /**
   * The page; its query parameters go to the model panel as the fields of a what-if form
   * submitted without JavaScript. A what-if changes nothing, so it is a GET: safe to repeat, open
   * to readers like any page, and a result a runbook can link to.
   */
  @Get(':slug')
  async show(@Param('slug') slug: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (wantsJson(req)) return this.exports.sendIncident(slug, 'json', req, res);
    await this.render(slug, formFields(query), req, res);
  }

  /**
   * The same what-if sent as a form POST (a client or a form that prefers POST): still a read
   * — it computes and caches runs but edits nothing — so it is allowed like the GET.
   */
  @Post(':slug')
  @ReadOperation()
  async post(@Param('slug') slug: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.render(slug, formFields(body ?? {}), req, res);
  }

  private async render(slug: string, form: Record<string, string> | null, req: Request, res: Response): Promise<void> {
    const found = await this.data.findIncident(slug);
    if ('movedTo' in found) {
      // Permanent, so runbooks and bookmarks can update. Browsers carry the #fragment over to
      // the new location; the query string (a linked what-if) is kept here.
      res.redirect(301, `/incidents/${encodeURIComponent(found.movedTo)}${queryStringOf(req)}`);
      return;
    }
    const client = `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    const [details, { modelPanel, verdicts }, related, principal] = await Promise.all([
      this.data.incidentDetails(found.incident),
      this.renderModelPanel(found.incident, form, client),
      this.data.related(found.incident),
      principalOf(req),
    ]);
    // Editors get a way from the page to the model builder, below the model (or its empty state).
    const panel = principal && roleAllows(principal.role, 'editor')
      ? html`${modelPanel}<p class="model-builder-link"><a href="/incidents/${encodeURIComponent(found.incident.slug)}/model-builder">Open the model builder</a> to suggest, adjust and attach a model.</p>`
      : modelPanel;
    const actionableIds = details.actionables.map((a) => a.id);
    const [incidentCitations, factorCitations, actionableCitations, owners] = await Promise.all([
      this.runbooks.citationsOf({ kind: 'incident', id: found.incident.id }),
      this.runbooks.citationsOfMany('causal_factor', details.factors.map((f) => f.id)),
      this.runbooks.citationsOfMany('actionable', actionableIds),
      this.teams.ownersOf(actionableIds),
    ]);
    sendPage(
      res,
      200,
      incidentView({
        incident: found.incident,
        ...details,
        modelPanel: panel,
        verdicts,
        related,
        origin: requestOrigin(req),
        today: todayUtc(),
        citations: { incident: incidentCitations, factors: factorCitations, actionables: actionableCitations },
        owners,
      }),
    );
  }

  /** A failing model must not take the postmortem down with it: on-call needs the page regardless. */
  private async renderModelPanel(incident: IncidentRecord, form: Record<string, string> | null, client: string): Promise<{ modelPanel: SafeHtml; verdicts: ActionableVerdict[] }> {
    try {
      const { html: markup, verdicts } = await this.modelPanel.render({ incidentId: incident.id, slug: incident.slug, form, client });
      return { modelPanel: trustedHtml(markup), verdicts };
    } catch (error) {
      this.logger.error(`model panel for ${incident.slug} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { modelPanel: html`<p class="model-error" role="alert">The model could not be shown just now. The rest of this page is unaffected.</p>`, verdicts: [] };
    }
  }
}
