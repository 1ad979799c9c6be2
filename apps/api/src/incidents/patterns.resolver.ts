import { Args, Int, Query, ResolveField, Resolver } from '@nestjs/graphql';
import DataLoader from 'dataloader';
import { IncidentsService, type PatternRecord, type PatternWithCount } from '@hindsight/incidents';
import type { GqlContext } from '../common/gql-context';
import { listConnection } from '../common/list-connection';
import { Pattern, PatternConnection } from './types/incident.types';

/** Incident counts of patterns reached through `Incident.patterns`: the taxonomy is small, so one read of it serves the request. */
class PatternCountLoaders {
  constructor(private readonly service: IncidentsService) {}

  readonly count = new DataLoader<string, number>(async (keys) => {
    const counts = new Map((await this.service.listPatterns()).map((p) => [p.key, p.incidentCount]));
    return keys.map((k) => counts.get(k) ?? 0);
  });
}

@Resolver(() => Pattern)
export class PatternsResolver {
  constructor(private readonly service: IncidentsService) {}

  @Query(() => PatternConnection, { description: 'The failure-pattern taxonomy with incident counts, by key. Pages both ways: first/after or last/before (at most 100).' })
  async patterns(
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return listConnection(await this.service.listPatterns(), (p) => p.key, 'KEY_ASC', { first, after, last, before });
  }

  @Query(() => Pattern, { description: 'One pattern by key; NOT_FOUND when there is none.' })
  pattern(@Args('key') key: string) {
    return this.service.findPattern(key);
  }

  @ResolveField(() => Int, { description: 'Published incidents showing this pattern.' })
  incidentCount(p: PatternRecord | PatternWithCount, _args: unknown, { loaders }: GqlContext): number | Promise<number> {
    if ('incidentCount' in p) return p.incidentCount;
    return loaders.of(PatternCountLoaders, () => new PatternCountLoaders(this.service)).count.load(p.key);
  }
}
