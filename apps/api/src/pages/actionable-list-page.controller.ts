import { Controller, Get, Query, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { parseActionableListQuery } from './list-query.parser';
import { PageDataService } from './page-data.service';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-response';
import { actionableListView } from './views/actionable-list.view';
import { todayUtc } from './views/labels';

@Controller('actionables')
@UseFilters(PageErrorFilter)
export class ActionableListPageController {
  constructor(private readonly data: PageDataService) {}

  @Get()
  async list(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const parsed = parseActionableListQuery(query);
    const { page, errors } = await this.data.actionableList(parsed);
    sendPage(res, errors.length > 0 ? 400 : 200, actionableListView({ form: parsed.form, errors, page, today: todayUtc() }));
  }
}
