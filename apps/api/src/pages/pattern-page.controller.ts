import { Controller, Get, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RunbooksService } from '@hindsight/tracking';
import { parsePageQuery } from './list-query.parser';
import { PageDataService } from './page-data.service';
import { PageErrorFilter } from './page-error.filter';
import { requestOrigin, sendPage } from './page-response';
import { patternIndexView, patternView } from './views/pattern.view';

@Controller('patterns')
@UseFilters(PageErrorFilter)
export class PatternPageController {
  constructor(
    private readonly data: PageDataService,
    private readonly runbooks: RunbooksService,
  ) {}

  @Get()
  async index(@Res() res: Response): Promise<void> {
    sendPage(res, 200, patternIndexView(await this.data.patternIndex()));
  }

  @Get(':pattern')
  async show(@Param('pattern') key: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { first, after, errors: queryErrors } = parsePageQuery(query);
    const { pattern, page, errors } = await this.data.patternPage(key, first, after, queryErrors);
    const citations = await this.runbooks.citationsOf({ kind: 'pattern', id: pattern.id });
    sendPage(res, errors.length > 0 ? 400 : 200, patternView({ pattern, page, errors, first, origin: requestOrigin(req), citations }));
  }
}
