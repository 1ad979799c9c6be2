import { Args, ID, Int, Mutation, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import DataLoader from 'dataloader';
import { AppError } from '@hindsight/domain';
import { RunbooksService, targetOf, type CitedKind, type CitedTarget, type Principal, type RunbookCitationRecord } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { AllLoaders } from '../common/gql-context';
import { listConnection, type PageArgs } from '../common/list-connection';
import type { RequestLoaders } from '../common/request-loaders';
import { Actionable, CausalFactor, Incident, Pattern } from '../incidents/types/incident.types';
import { fromGlobalId, toGlobalId, type NodeType } from '../node/global-id';
import {
  CiteInRunbookInput,
  CiteInRunbookPayload,
  RemoveRunbookCitationInput,
  RemoveRunbookCitationPayload,
  RunbookCitation,
  RunbookCitationConnection,
} from './runbook.types';

const KIND_OF_TYPE: Partial<Record<NodeType, CitedKind>> = { Incident: 'incident', CausalFactor: 'causal_factor', Actionable: 'actionable', Pattern: 'pattern' };
export const TYPE_OF_KIND: Record<CitedKind, NodeType> = { incident: 'Incident', causal_factor: 'CausalFactor', actionable: 'Actionable', pattern: 'Pattern' };

/** The record a global id names, as a citation target; BAD_USER_INPUT for an id of anything else. */
export function citedTargetOf(id: string, field: string): CitedTarget {
  const { type, localId } = fromGlobalId(id, field);
  const kind = KIND_OF_TYPE[type];
  if (!kind) throw AppError.badField(field, `is the id of a ${type}; a runbook cites an Incident, CausalFactor, Actionable or Pattern`);
  return { kind, id: localId };
}

/** Citations of many records of one kind per request, in one statement per kind. */
class CitationLoaders {
  private readonly byKind = new Map<CitedKind, DataLoader<string, RunbookCitationRecord[]>>();
  constructor(private readonly runbooks: RunbooksService) {}
  of(kind: CitedKind): DataLoader<string, RunbookCitationRecord[]> {
    let loader = this.byKind.get(kind);
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const found = await this.runbooks.citationsOfMany(kind, ids);
        return ids.map((id) => found.get(id) ?? []);
      });
      this.byKind.set(kind, loader);
    }
    return loader;
  }
}

const PAGE_ARGS = {
  first: { type: () => Int, nullable: true, description: 'At most 100; 20 by default.' },
  last: { type: () => Int, nullable: true, description: 'At most 100.' },
} as const;

abstract class CitedByField {
  constructor(protected readonly runbooks: RunbooksService) {}
  protected async page(kind: CitedKind, id: string, loaders: RequestLoaders, args: PageArgs) {
    const citations = await loaders.of(CitationLoaders, () => new CitationLoaders(this.runbooks)).of(kind).load(id);
    return listConnection(citations, (c) => c.id, 'runbook-title', args);
  }
}

function citedByResolver(type: typeof Incident | typeof CausalFactor | typeof Actionable | typeof Pattern, kind: CitedKind) {
  @Resolver(() => type)
  class Cited extends CitedByField {
    constructor(runbooks: RunbooksService) {
      super(runbooks);
    }

    @ResolveField(() => RunbookCitationConnection, { description: 'The runbooks citing it, by runbook title. Pages both ways: first/after or last/before (at most 100; 20 by default).' })
    citedBy(
      @Parent() parent: { id: string },
      @AllLoaders() loaders: RequestLoaders,
      @Args('first', PAGE_ARGS.first) first: number | null,
      @Args('after', { type: () => String, nullable: true }) after: string | null,
      @Args('last', PAGE_ARGS.last) last: number | null,
      @Args('before', { type: () => String, nullable: true }) before: string | null,
    ) {
      return this.page(kind, parent.id, loaders, { first, after, last, before });
    }
  }
  Object.defineProperty(Cited, 'name', { value: `${type.name}CitedByResolver` });
  return Cited;
}

export const IncidentCitedByResolver = citedByResolver(Incident, 'incident');
export const CausalFactorCitedByResolver = citedByResolver(CausalFactor, 'causal_factor');
export const ActionableCitedByResolver = citedByResolver(Actionable, 'actionable');
export const PatternCitedByResolver = citedByResolver(Pattern, 'pattern');

/** Runbook citations over the API: register one, remove one. Editors and admins (the default role for mutations). */
@Resolver(() => RunbookCitation)
export class RunbooksResolver {
  constructor(private readonly runbooks: RunbooksService) {}

  @Mutation(() => CiteInRunbookPayload, {
    description: 'Registers that a runbook (by URL, with its title) cites an incident, causal factor, actionable or pattern; creates the runbook on first use. Citing again changes nothing (created: false). Editor.',
  })
  citeInRunbook(@Args('input') input: CiteInRunbookInput, @CurrentPrincipal() actor: Principal) {
    return this.runbooks.cite({ url: input.url, title: input.title, target: citedTargetOf(input.target, 'input.target') }, actor);
  }

  @Mutation(() => RemoveRunbookCitationPayload, { description: 'Removes one citation; the runbook keeps its others. Editor.' })
  async removeRunbookCitation(@Args('input') input: RemoveRunbookCitationInput, @CurrentPrincipal() actor: Principal) {
    const { type, localId } = fromGlobalId(input.citationId, 'input.citationId');
    if (type !== 'RunbookCitation') throw AppError.badField('input.citationId', `is the id of a ${type}, not of a RunbookCitation`);
    const removed = await this.runbooks.uncite(localId, actor);
    return { removedCitationId: toGlobalId('RunbookCitation', removed.id), runbook: removed.runbook };
  }

  @ResolveField(() => ID, { description: 'Global id of the cited Incident, CausalFactor, Actionable or Pattern.' })
  recordId(c: RunbookCitationRecord): string {
    const target = targetOf(c);
    return toGlobalId(TYPE_OF_KIND[target.kind], target.id);
  }
}
