import { Query, Resolver } from '@nestjs/graphql';
import { ActionableStatsService } from '@hindsight/tracking';
import { ActionableStats } from './types/tracking.types';

@Resolver(() => ActionableStats)
export class ActionableStatsResolver {
  constructor(private readonly stats: ActionableStatsService) {}

  @Query(() => ActionableStats, { description: 'Counts by status, overdue count and median age of unfinished items, overall, per organization and per pattern.' })
  actionableStats() {
    return this.stats.stats();
  }
}
