import { Args, Query, Resolver } from '@nestjs/graphql';
import { IncidentsService } from '@hindsight/incidents';
import { PatternWithCount } from './types/incident.types';

@Resolver(() => PatternWithCount)
export class PatternsResolver {
  constructor(private readonly service: IncidentsService) {}

  @Query(() => [PatternWithCount], { description: 'The failure-pattern taxonomy with incident counts.' })
  patterns() {
    return this.service.listPatterns();
  }

  @Query(() => PatternWithCount, { description: 'One pattern by key; NOT_FOUND when there is none.' })
  pattern(@Args('key') key: string) {
    return this.service.findPattern(key);
  }
}
