import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import type { IncidentLoaders } from '@hindsight/incidents';
import { ActionableWritesService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { Loaders } from '../common/gql-context';
import { CitationNotices, toNoticeType } from '../runbooks/citation-notices';
import { localIdOf, toGlobalId } from '../node/global-id';
import { CreateActionableInput, DeleteActionableInput, TransitionActionableInput, UpdateActionableInput } from './types/tracking.inputs';
import { CreateActionablePayload, DeleteActionablePayload, TransitionActionablePayload, UpdateActionablePayload } from './types/tracking.payloads';

@Resolver()
export class ActionableMutationsResolver {
  constructor(
    private readonly actionables: ActionableWritesService,
    private readonly prisma: PrismaService,
    private readonly notices: CitationNotices,
  ) {}

  @Mutation(() => CreateActionablePayload, { description: 'New follow-up work for an incident, status OPEN. Editor.' })
  async createActionable(@Args('input') input: CreateActionableInput, @CurrentPrincipal() actor: Principal, @Loaders() loaders: IncidentLoaders) {
    const { note, ...fields } = input;
    const actionable = await this.actionables.create(fields, actor, note);
    return { actionable, incident: await loaders.incident.load(actionable.incidentId) };
  }

  @Mutation(() => UpdateActionablePayload, { description: 'Changes title, description, owner, due date, priority, addressed factors or references. Editor.' })
  async updateActionable(@Args('input') input: UpdateActionableInput, @CurrentPrincipal() actor: Principal) {
    const id = localIdOf(input.id, 'Actionable', 'input.id');
    const before = await this.notices.actionable(id);
    const actionable = await this.actionables.update(id, input.expectedVersion, input.patch, actor, input.note);
    return { actionable, notices: await this.noticesFor(id, before) };
  }

  @Mutation(() => TransitionActionablePayload, {
    description: 'Moves through the workflow: OPEN → IN_PROGRESS → DONE | WONT_DO, and back to OPEN from DONE or WONT_DO. WONT_DO needs a note giving the reason. Editor.',
  })
  async transitionActionable(@Args('input') input: TransitionActionableInput, @CurrentPrincipal() actor: Principal) {
    const id = localIdOf(input.id, 'Actionable', 'input.id');
    const before = await this.notices.actionable(id);
    const actionable = await this.actionables.transition(id, input.to, input.expectedVersion, actor, input.note);
    return { actionable, notices: await this.noticesFor(id, before) };
  }

  private async noticesFor(id: string, before: Awaited<ReturnType<CitationNotices['actionable']>>) {
    const after = await this.notices.actionable(id);
    return after ? (await this.notices.between({ kind: 'actionable', id }, before, after)).map(toNoticeType) : [];
  }

  @RequireRole('admin')
  @Mutation(() => DeleteActionablePayload, { description: 'Deletes an actionable; its audit trail stays. Admin.' })
  async deleteActionable(@Args('input') input: DeleteActionableInput, @CurrentPrincipal() actor: Principal, @Loaders() loaders: IncidentLoaders) {
    const id = localIdOf(input.id, 'Actionable', 'input.id');
    const owner = await this.prisma.actionable.findUnique({ where: { id }, select: { incidentId: true } });
    if (!owner) throw AppError.notFound('Actionable', input.id, 'input.id');
    const deleted = await this.actionables.delete(id, input.expectedVersion, actor, input.note);
    return { deletedActionableId: toGlobalId('Actionable', deleted), incident: await loaders.incident.load(owner.incidentId) };
  }
}
