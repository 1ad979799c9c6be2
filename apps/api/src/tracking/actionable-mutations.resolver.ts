import { UseInterceptors } from '@nestjs/common';
import { Args, ID, Int, Mutation, Resolver } from '@nestjs/graphql';
import type { ActionableStatus } from '@hindsight/domain';
import { ActionableWritesService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { ActionableStatusEnum } from '../common/graphql-enums';
import { Actionable } from '../incidents/types/incident.types';
import { FreshLoadersInterceptor } from './fresh-loaders.interceptor';
import { ActionablePatchInput, CreateActionableInput } from './types/tracking.inputs';

const VERSION = { type: () => Int, description: 'The version you last read; a stale one is CONFLICT and changes nothing.' };
const NOTE = { type: () => String, nullable: true, description: 'Why; kept in the audit trail.' };

@Resolver(() => Actionable)
@UseInterceptors(FreshLoadersInterceptor)
export class ActionableMutationsResolver {
  constructor(private readonly actionables: ActionableWritesService) {}

  @Mutation(() => Actionable, { description: 'New follow-up work for an incident, status OPEN. Editor.' })
  createActionable(@Args('input') input: CreateActionableInput, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.actionables.create(input, actor, note);
  }

  @Mutation(() => Actionable, { description: 'Changes title, description, owner, due date, priority, addressed factors or references. Editor.' })
  updateActionable(@Args('id', { type: () => ID }) id: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('patch') patch: ActionablePatchInput, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.actionables.update(id, expectedVersion, patch, actor, note);
  }

  @Mutation(() => Actionable, { description: 'Moves through the workflow: OPEN → IN_PROGRESS → DONE | WONT_DO, and back to OPEN from DONE or WONT_DO. WONT_DO needs a note giving the reason. Editor.' })
  transitionActionable(@Args('id', { type: () => ID }) id: string, @Args('to', { type: () => ActionableStatusEnum }) to: ActionableStatus, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.actionables.transition(id, to, expectedVersion, actor, note);
  }

  @RequireRole('admin')
  @Mutation(() => ID, { description: 'Deletes an actionable; its audit trail stays. Admin.' })
  deleteActionable(@Args('id', { type: () => ID }) id: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.actionables.delete(id, expectedVersion, actor, note);
  }
}
