import { Args, Int, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import type { ActionableStatus } from '@hindsight/domain';
import type { ActionableRecord, ExternalReferenceRecord, IncidentRecord } from '@hindsight/incidents';
import { allowedTransitions, type ActionablePriority, type TrackedActionableRecord } from '@hindsight/tracking';
import { ActionableStatusEnum } from '../common/graphql-enums';
import { AllLoaders, type GqlContext } from '../common/gql-context';
import type { RequestLoaders } from '../common/request-loaders';
import { Actionable, ExternalReference, Incident } from '../incidents/types/incident.types';
import { TrackerLinks } from './tracker-links';
import { ActionablePriorityEnum } from './tracking-enums';
import { TrackingLoadersProvider } from './tracking-loaders.provider';
import { AuditEventConnection } from './types/tracking.types';

const HISTORY_NOTE = 'Oldest first; pages both ways over the whole trail: first/after from the oldest, last/before from the newest (at most 100 a page, 20 by default). A cursor belongs to the trail it came from.';

/** The tracking side of an actionable: priority, who closed it, its references and audit trail. */
@Resolver(() => Actionable)
export class TrackedActionableResolver {
  constructor(
    private readonly loaders: TrackingLoadersProvider,
    private readonly trackerLinks: TrackerLinks,
  ) {}

  @ResolveField(() => [ExternalReference], { description: "Tracker references as written, each linked with its incident's organization's trackers as configured now." })
  references(a: ActionableRecord, _args: unknown, { loaders }: GqlContext): ExternalReferenceRecord[] | Promise<ExternalReferenceRecord[]> {
    const references = loaders.incidents.references.get(a.id);
    const incident = loaders.incidents.incident.get(a.incidentId);
    // Both are in hand after a tree statement: linked at once, without a promise.
    if (!(references instanceof Promise) && !(incident instanceof Promise)) return this.trackerLinks.link(references, incident?.organization ?? '');
    return Promise.all([references, incident]).then(([r, i]) => this.trackerLinks.link(r, i?.organization ?? ''));
  }

  @ResolveField(() => ActionablePriorityEnum, { nullable: true })
  priority(a: TrackedActionableRecord): ActionablePriority | null {
    return a.priority;
  }

  @ResolveField(() => Date, {
    nullable: true,
    description:
      "When it moved to DONE or WONT_DO. For an item the postmortem itself reports closed (no status change recorded here), the incident's own end time (resolved, else mitigated, detected or started): see closedAtRecorded. Null while open, or when neither is known.",
  })
  async closedAt(a: TrackedActionableRecord, _args: unknown, { loaders }: GqlContext): Promise<Date | null> {
    if (a.closedAt || (a.status !== 'done' && a.status !== 'wont_do')) return a.closedAt;
    const incident = await loaders.incidents.incident.load(a.incidentId);
    return incident ? (incident.resolvedAt ?? incident.mitigatedAt ?? incident.detectedAt ?? incident.startedAt) : null;
  }

  @ResolveField(() => Boolean, { description: 'Whether closedAt was recorded by a status change here (false: taken from the incident, or still open).' })
  closedAtRecorded(a: TrackedActionableRecord): boolean {
    return a.closedAt !== null;
  }

  @ResolveField(() => String, { nullable: true, description: 'Who moved it to DONE or WONT_DO.' })
  closedBy(a: TrackedActionableRecord): string | null {
    return a.closedBy;
  }

  @ResolveField(() => String, { nullable: true, description: 'Why it will not be done (required for WONT_DO).' })
  wontDoReason(a: TrackedActionableRecord): string | null {
    return a.wontDoReason;
  }

  @ResolveField(() => [ActionableStatusEnum], { description: 'Statuses transitionActionable accepts from the current one.' })
  allowedTransitions(a: TrackedActionableRecord): readonly ActionableStatus[] {
    return allowedTransitions(a.status);
  }

  @ResolveField(() => AuditEventConnection, { description: `Every change to this actionable: who, when, which field, from what to what, and why. ${HISTORY_NOTE}` })
  async history(
    @Parent() a: TrackedActionableRecord,
    @AllLoaders() context: RequestLoaders,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return this.loaders.actionableHistory(context, a.id, { first, after, last, before });
  }
}

@Resolver(() => Incident)
export class IncidentHistoryResolver {
  constructor(private readonly loaders: TrackingLoadersProvider) {}

  @ResolveField(() => AuditEventConnection, { description: `Every change to this incident and its actionables, including deleted ones. ${HISTORY_NOTE}` })
  async history(
    @Parent() i: IncidentRecord,
    @AllLoaders() context: RequestLoaders,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return this.loaders.incidentHistory(context, i.id, { first, after, last, before });
  }
}
