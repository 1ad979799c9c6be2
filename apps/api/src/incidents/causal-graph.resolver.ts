import { ResolveField, Resolver } from '@nestjs/graphql';
import type { CausalFactorRecord, CausalLinkRecord } from '@hindsight/incidents';
import type { GqlContext } from '../common/gql-context';
import { CausalFactor, CausalLink } from './types/incident.types';

@Resolver(() => CausalLink)
export class CausalLinkResolver {
  @ResolveField(() => CausalFactor)
  from(link: CausalLinkRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.factor.get(link.fromId);
  }

  @ResolveField(() => CausalFactor)
  to(link: CausalLinkRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.factor.get(link.toId);
  }
}

@Resolver(() => CausalFactor)
export class CausalFactorResolver {
  @ResolveField(() => [CausalLink], { description: 'Links leaving this factor (what it causes, amplifies or enables).' })
  async leadsTo(factor: CausalFactorRecord, _args: unknown, { loaders }: GqlContext) {
    return (await loaders.incidents.links.load(factor.incidentId)).filter((l) => l.fromId === factor.id);
  }

  @ResolveField(() => [CausalLink], { description: 'Links arriving at this factor.' })
  async followsFrom(factor: CausalFactorRecord, _args: unknown, { loaders }: GqlContext) {
    return (await loaders.incidents.links.load(factor.incidentId)).filter((l) => l.toId === factor.id);
  }
}
