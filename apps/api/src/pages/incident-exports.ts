import { TeamsService } from '@hindsight/tracking';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '@hindsight/domain';
import type { IncidentRecord } from '@hindsight/incidents';
import { sendRevalidated } from '../common/revalidated';
import { INCIDENT_MODEL_PANEL, type ActionableVerdict, type IncidentModelPanel } from './incident-model-panel.token';
import { parsePageQuery } from './list-query.parser';
import { PageDataService } from './page-data.service';
import { queryStringOf, requestOrigin } from './page-response';
import { incidentExportJson, incidentExportMarkdown, patternExportJson, patternExportMarkdown, type IncidentExportModel } from './views/incident-export.view';

export type ExportFormat = 'json' | 'md';

/** Whether a request for a page asks for its JSON instead (`Accept: application/json` before HTML). */
export function wantsJson(req: Request): boolean {
  return req.accepts(['text/html', 'application/json']) === 'application/json';
}

function send(res: Response, format: ExportFormat, body: Record<string, unknown> | string): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Vary', 'Accept');
  if (format === 'json') sendRevalidated(res.status(200).type('application/json; charset=utf-8'), JSON.stringify(body, null, 2));
  else sendRevalidated(res.status(200).type('text/markdown; charset=utf-8'), body as string);
}

/** Builds and sends the export documents; shared by the export routes and the incident page. */
@Injectable()
export class IncidentExports {
  private readonly logger = new Logger('Exports');

  constructor(
    private readonly data: PageDataService,
    @Inject(INCIDENT_MODEL_PANEL) private readonly modelPanel: IncidentModelPanel,
    private readonly teams: TeamsService,
  ) {}

  /** Also used by the incident page for `Accept: application/json`. */
  async sendIncident(slug: string, format: ExportFormat, req: Request, res: Response): Promise<void> {
    const found = await this.data.findIncident(slug);
    if ('movedTo' in found) {
      const suffix = req.path.endsWith(`.${format}`) ? `.${format}` : '';
      res.redirect(301, `/incidents/${encodeURIComponent(found.movedTo)}${suffix}${queryStringOf(req)}`);
      return;
    }
    const [details, verdicts] = await Promise.all([this.data.incidentDetails(found.incident), this.verdicts(found.incident)]);
    const owners = await this.teams.ownersOf(details.actionables.map((a) => a.id));
    const model: IncidentExportModel = { incident: found.incident, ...details, verdicts, owners, origin: requestOrigin(req) };
    send(res, format, format === 'json' ? incidentExportJson(model) : incidentExportMarkdown(model));
  }

  async sendPattern(key: string, format: ExportFormat, query: Record<string, unknown>, req: Request, res: Response): Promise<void> {
    const { first, after, errors: queryErrors } = parsePageQuery(query);
    const { pattern, page, errors } = await this.data.patternPage(key, first, after, queryErrors);
    if (!page) throw AppError.badInput(errors.map((e) => ({ field: e.field, reason: e.message })));
    const model = { pattern, page, origin: requestOrigin(req) };
    send(res, format, format === 'json' ? patternExportJson(model) : patternExportMarkdown(model));
  }

  /** A model that fails must not fail the export: its verdicts are then reported as unknown. */
  private async verdicts(incident: IncidentRecord): Promise<ActionableVerdict[] | null> {
    try {
      return (await this.modelPanel.render({ incidentId: incident.id, slug: incident.slug, form: null })).verdicts;
    } catch (error) {
      this.logger.error(`model verdicts for the export of ${incident.slug} failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }
}
