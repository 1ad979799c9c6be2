import { Controller, Get, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '@hindsight/domain';
import { TeamsService } from '@hindsight/tracking';
import { principalOf } from '../auth/request-principal';
import { RequireRole } from '../auth/roles.decorator';
import { parseActionableListQuery } from './list-query.parser';
import { PageDataService } from './page-data.service';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-response';
import { actionableListView } from './views/actionable-list.view';
import { todayUtc } from './views/labels';

@Controller('actionables')
@UseFilters(PageErrorFilter)
export class ActionableListPageController {
  constructor(
    private readonly data: PageDataService,
    private readonly teams: TeamsService,
  ) {}

  @Get()
  async list(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const parsed = parseActionableListQuery(query);
    const { page, errors, ownerSuggestions } = await this.data.actionableList(parsed);
    const owners = await this.teams.ownersOf(page?.items.map((i) => i.actionable.id) ?? []);
    sendPage(res, errors.length > 0 ? 400 : 200, actionableListView({ form: parsed.form, errors, page, today: todayUtc(), owners, ownerSuggestions }));
  }

  /** The signed-in person's board: follow-ups they own or one of their teams owns, with the same filters. */
  @Get('mine')
  @RequireRole('viewer')
  async mine(@Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = (await principalOf(req))!;
    if (principal.via !== 'session') throw new AppError('BAD_USER_INPUT', 'This board is for a signed-in person: an API token belongs to no account. Use the actionables query with an owner filter instead.');
    const parsed = parseActionableListQuery(query);
    const { page, errors, ownerSuggestions } = await this.data.actionableList({ ...parsed, filter: { ...parsed.filter, assignedTo: principal.accountId } });
    const [owners, teams] = await Promise.all([this.teams.ownersOf(page?.items.map((i) => i.actionable.id) ?? []), this.teams.teamsOf(principal.accountId)]);
    sendPage(res, errors.length > 0 ? 400 : 200, actionableListView({ form: parsed.form, errors, page, today: todayUtc(), owners, ownerSuggestions, mine: { name: principal.name, teams: teams.map((t) => t.name) } }));
  }
}
