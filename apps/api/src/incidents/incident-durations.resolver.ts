import { Inject } from '@nestjs/common';
import { Args, Int, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { customerImpactOf, IncidentDurationsService, incidentDurations, type DurationGroup, type DurationMetric, type IncidentRecord } from '@hindsight/incidents';
import { Incident } from './types/incident.types';
import { CustomerImpact, DurationDistribution, DurationGroupEnum, DurationMetricEnum, IncidentDurations } from './types/durations.types';
import { APP_CONFIG } from '../config/app-config.token';
import type { AppConfig } from '../config/app-config';

@Resolver(() => Incident)
export class IncidentDurationsResolver {
  constructor(
    private readonly durationStats: IncidentDurationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ResolveField(() => CustomerImpact, { nullable: true, description: 'As stated, or from the start to mitigation when both are known (`derived`); null when neither.' })
  customerImpact(i: IncidentRecord) {
    return customerImpactOf(i);
  }

  @Query(() => [String], { description: 'The severity scale incidents are rated on (INCIDENT_SEVERITY_LEVELS), most severe first.' })
  severityLevels(): string[] {
    return this.config.severityLevels;
  }

  @ResolveField(() => IncidentDurations, { description: 'Derived from the key times, with their precision and consistency checks.' })
  durations(i: IncidentRecord) {
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
