import { Parent, ResolveField, Resolver } from '@nestjs/graphql';
import type { CausalFactorRecord, CausalLinkRecord, IncidentLoaders } from '@hindsight/incidents';
import { Loaders } from '../common/gql-context';
import { CausalFactor, CausalLink } from './types/incident.types';

@Resolver(() => CausalLink)
export class CausalLinkResolver {
  @ResolveField(() => CausalFactor)
  from(@Parent() link: CausalLinkRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.factor.load(link.fromId);
  }

  @ResolveField(() => CausalFactor)
  to(@Parent() link: CausalLinkRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.factor.load(link.toId);
  }
}

@Resolver(() => CausalFactor)
export class CausalFactorResolver {
  @ResolveField(() => [CausalLink], { description: 'Links leaving this factor (what it causes, amplifies or enables).' })
  async leadsTo(@Parent() factor: CausalFactorRecord, @Loaders() loaders: IncidentLoaders) {
    return (await loaders.links.load(factor.incidentId)).filter((l) => l.fromId === factor.id);
  }

  @ResolveField(() => [CausalLink], { description: 'Links arriving at this factor.' })
  async followsFrom(@Parent() factor: CausalFactorRecord, @Loaders() loaders: IncidentLoaders) {
    return (await loaders.links.load(factor.incidentId)).filter((l) => l.toId === factor.id);
  }
}
