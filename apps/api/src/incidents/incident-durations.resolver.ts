import { Args, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { IncidentDurationsService, incidentDurations, type DurationGroup, type DurationMetric, type IncidentRecord } from '@hindsight/incidents';
import { Incident } from './types/incident.types';
import { DurationDistribution, DurationGroupEnum, DurationMetricEnum, IncidentDurations } from './types/durations.types';

@Resolver(() => Incident)
export class IncidentDurationsResolver {
  constructor(private readonly durationStats: IncidentDurationsService) {}

  @ResolveField(() => IncidentDurations, { description: 'Derived from the key times, with their precision and consistency checks.' })
  durations(@Parent() i: IncidentRecord) {
    return incidentDurations(i);
  }

  @Query(() => [DurationDistribution], { description: 'Percentiles and a histogram of a duration across published incidents, overall or per pattern, organization or year (largest groups first, `first` 1 to 100).' })
  incidentDurationStats(
    @Args('metric', { type: () => DurationMetricEnum }) metric: DurationMetric,
    @Args('groupBy', { type: () => DurationGroupEnum, nullable: true, defaultValue: 'ALL' }) groupBy: DurationGroup,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
  ) {
    return this.durationStats.distribution(metric, groupBy, first);
  }
}
