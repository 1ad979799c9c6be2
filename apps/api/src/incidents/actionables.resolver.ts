import { Args, Context, Info, Int, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import { principalOf } from '../auth/request-principal';
import type { GraphQLResolveInfo } from 'graphql';
import {
  IncidentsService,
  type ActionableOrder,
  type ActionableRecord,
  type IncidentLoaders,
} from '@hindsight/incidents';
import { parseCalendarDate } from '@hindsight/tracking';
import { CalendarDateScalar } from '../common/calendar-date.scalar';
import { ActionableOrderEnum } from '../common/graphql-enums';
import { Loaders, type GqlContext } from '../common/gql-context';
import { toConnection } from '../common/page-info.type';
import { actionablePageInclude } from './includes';
import { Actionable, ActionableConnection, ActionableFilterInput, CausalFactor, Incident } from './types/incident.types';

@Resolver(() => Actionable)
export class ActionablesResolver {
  constructor(private readonly service: IncidentsService) {}

  @Query(() => ActionableConnection, { description: 'Follow-up work across all incidents, soonest due first by default. Pages both ways: first/after or last/before (at most 100); a cursor belongs to its orderBy.' })
  async actionables(
    @Args('filter', { type: () => ActionableFilterInput, nullable: true }) filter: ActionableFilterInput | null,
    @Args('orderBy', { type: () => ActionableOrderEnum, nullable: true }) orderBy: ActionableOrder | null,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
    @Loaders() loaders: IncidentLoaders,
    @Info() info: GraphQLResolveInfo,
    @Context('req') req: Request,
  ) {
    const { assignedToMe, ...rest } = filter ?? {};
    let assignedTo: string | null = null;
    if (assignedToMe) {
      const principal = await principalOf(req);
      if (principal?.via !== 'session') throw AppError.badField('filter.assignedToMe', 'needs a signed-in person: an API token belongs to no account');
      assignedTo = principal.accountId;
    }
    // The input guard has checked the day; the service compares it as midnight UTC.
    const dueBefore = rest.dueBefore ? parseCalendarDate(rest.dueBefore) : null;
    const page = await this.service.listActionables({ ...rest, dueBefore, assignedTo }, { orderBy, first, after, last, before }, { loaders, include: actionablePageInclude(info) });
    return toConnection(page);
  }

  @ResolveField(() => CalendarDateScalar, { nullable: true })
  dueDate(a: ActionableRecord): string | null {
    return a.dueDate ? a.dueDate.toISOString().slice(0, 10) : null;
  }

  @ResolveField(() => Boolean, { description: 'Due date passed while still open or in progress.' })
  overdue(a: ActionableRecord): boolean {
    return a.dueDate !== null && (a.status === 'open' || a.status === 'in_progress') && a.dueDate.toISOString().slice(0, 10) < new Date().toISOString().slice(0, 10);
  }

  @ResolveField(() => [CausalFactor], { description: 'The causal factors this work addresses.' })
  addresses(a: ActionableRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.addressedFactors.get(a.id);
  }

  @ResolveField(() => Incident)
  incident(a: ActionableRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.incident.get(a.incidentId);
  }
}
