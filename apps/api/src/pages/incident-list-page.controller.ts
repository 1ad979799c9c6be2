import { Controller, Get, Inject, Query, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { parseIncidentListQuery } from './list-query.parser';
import { PageDataService } from './page-data.service';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-response';
import { incidentListView } from './views/incident-list.view';

@Controller()
@UseFilters(PageErrorFilter)
export class IncidentListPageController {
  constructor(
    private readonly data: PageDataService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The front page is the incident list: what a reader arriving without a link wants first. */
  @Get()
  home(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    return this.list(query, res);
  }

  @Get('incidents')
  async list(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const parsed = parseIncidentListQuery(query);
    const { errors, ...found } = await this.data.incidentList(parsed, this.config.listCountLimit);
    sendPage(res, errors.length > 0 ? 400 : 200, incidentListView({ form: parsed.form, errors, ...found, severityLevels: this.config.severityLevels }));
  }
}
