import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { PrismaService } from '@hindsight/db';
import type { CausalLinkKind } from '@hindsight/domain';
import type { IncidentRecord } from '@hindsight/incidents';
import { IncidentWritesService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { toGlobalId } from '../node/global-id';
import { CitationNotices, toNoticeType } from '../runbooks/citation-notices';
import {
  CreateIncidentInput,
  DeleteCausalFactorInput,
  type CausalFactorInput,
  type KeyTimeInput,
  type KeyTimesInput,
  type TimelineEventInput,
  DeleteCausalLinkInput,
  DeleteIncidentInput,
  DeleteTimelineEventInput,
  UpdateIncidentInput,
  UpsertCausalFactorInput,
  UpsertCausalLinkInput,
  UpsertTimelineEventInput,
} from './types/tracking.inputs';
import {
  CreateIncidentPayload,
  DeleteCausalFactorPayload,
  DeleteCausalLinkPayload,
  DeleteIncidentPayload,
  DeleteTimelineEventPayload,
  UpdateIncidentPayload,
  UpsertCausalFactorPayload,
  UpsertCausalLinkPayload,
  UpsertTimelineEventPayload,
} from './types/tracking.payloads';

/** The writers keep instants as ISO 8601 text, as documents and imports carry them; GraphQL parsed them into DateTimes. */
function instantText(at: Date | null | undefined): string | null | undefined {
  return at instanceof Date ? at.toISOString() : at;
}

function eventText(event: TimelineEventInput) {
  return { ...event, at: instantText(event.at) };
}

/** An omitted component is an unknown one, as in imported records. */
function factorOf(factor: CausalFactorInput) {
  return { ...factor, component: factor.component ?? null };
}

function keyTimesText(keyTimes: KeyTimesInput | null | undefined) {
  if (!keyTimes) return keyTimes;
  // Only the key times sent: an omitted one stays as it is, null clears it.
  return Object.fromEntries(Object.entries(keyTimes).map(([name, t]: [string, KeyTimeInput | null]) => [name, t ? { ...t, at: instantText(t.at) ?? null } : t]));
}

/**
 * Incident-level corrections for editors. Each returns the incident at its new version and the
 * child it wrote (or the id of the child it removed), read after the write committed.
 */
@Resolver()
export class IncidentMutationsResolver {
  constructor(
    private readonly incidents: IncidentWritesService,
    private readonly prisma: PrismaService,
    private readonly notices: CitationNotices,
  ) {}

  @Mutation(() => CreateIncidentPayload, { description: 'A whole incident in one call (the importer uses it). CONFLICT when the slug is taken. Editor.' })
  async createIncident(@Args('input') input: CreateIncidentInput, @CurrentPrincipal() actor: Principal) {
    const { status, note, keyTimes, timeline, causalFactors, ...incident } = input;
    return { incident: await this.incidents.create({ ...incident, keyTimes: keyTimesText(keyTimes), timeline: timeline?.map(eventText), causalFactors: causalFactors?.map(factorOf) }, status, actor, note) };
  }

  @Mutation(() => UpdateIncidentPayload, { description: 'Changes fields of an incident, including its slug (the old one keeps working as an alias). Editor.' })
  async updateIncident(@Args('input') input: UpdateIncidentInput, @CurrentPrincipal() actor: Principal) {
    // Key times sent are turned into the writer's text; omitted (undefined) or null pass as they are.
    const { keyTimes, ...rest } = input.patch;
    // (null is refused by the writer, naming the field, as before.)
    const patch: Parameters<IncidentWritesService['update']>[2] = { ...rest, ...(keyTimes === undefined ? {} : { keyTimes: keyTimes === null ? (null as never) : keyTimesText(keyTimes)! }) };
    const before = await this.notices.incident(input.slug);
    const incident = await this.incidents.update(input.slug, input.expectedVersion, patch, actor, input.note);
    const after = { name: incident.title, slug: incident.slug };
    return { incident, notices: before ? (await this.notices.between({ kind: 'incident', id: before.id }, before, after)).map(toNoticeType) : [] };
  }

  @Mutation(() => UpsertTimelineEventPayload, { description: 'Adds a timeline event, or replaces the one with the same key. Editor.' })
  async upsertTimelineEvent(@Args('input') input: UpsertTimelineEventInput, @CurrentPrincipal() actor: Principal) {
    const incident = await this.incidents.upsertTimelineEvent(input.slug, input.expectedVersion, eventText(input.event), input.position, actor, input.note);
    return { incident, timelineEvent: await this.prisma.timelineEvent.findFirstOrThrow({ where: { incidentId: incident.id, key: input.event.key } }) };
  }

  @Mutation(() => DeleteTimelineEventPayload, { description: 'Removes a timeline event by key. Editor.' })
  async deleteTimelineEvent(@Args('input') input: DeleteTimelineEventInput, @CurrentPrincipal() actor: Principal) {
    const before = await this.childId('timelineEvent', input.slug, input.key);
    const incident = await this.incidents.deleteTimelineEvent(input.slug, input.expectedVersion, input.key, actor, input.note);
    return { incident, deletedTimelineEventId: toGlobalId('TimelineEvent', before ?? '') };
  }

  @Mutation(() => UpsertCausalFactorPayload, { description: 'Adds a causal factor, or replaces the one with the same key. Editor.' })
  async upsertCausalFactor(@Args('input') input: UpsertCausalFactorInput, @CurrentPrincipal() actor: Principal) {
    const before = await this.notices.factor(input.slug, input.factor.key);
    const incident = await this.incidents.upsertCausalFactor(input.slug, input.expectedVersion, factorOf(input.factor), input.position, actor, input.note);
    const causalFactor = await this.prisma.causalFactor.findFirstOrThrow({ where: { incidentId: incident.id, key: input.factor.key } });
    const notices = before ? await this.notices.between({ kind: 'causal_factor', id: causalFactor.id }, before, { name: causalFactor.title ?? causalFactor.text }) : [];
    return { incident, causalFactor, notices: notices.map(toNoticeType) };
  }

  @Mutation(() => DeleteCausalFactorPayload, { description: 'Removes a causal factor and its links; refused while an actionable addresses it. Editor.' })
  async deleteCausalFactor(@Args('input') input: DeleteCausalFactorInput, @CurrentPrincipal() actor: Principal) {
    const before = await this.childId('causalFactor', input.slug, input.key);
    const incident = await this.incidents.deleteCausalFactor(input.slug, input.expectedVersion, input.key, actor, input.note);
    return { incident, deletedCausalFactorId: toGlobalId('CausalFactor', before ?? '') };
  }

  @Mutation(() => UpsertCausalLinkPayload, { description: 'Adds a causal link between two factors of the incident (no change if it exists). Editor.' })
  async upsertCausalLink(@Args('input') input: UpsertCausalLinkInput, @CurrentPrincipal() actor: Principal) {
    const incident = await this.incidents.upsertCausalLink(input.slug, input.expectedVersion, input.link, actor, input.note);
    return { incident, causalLink: await this.findLink(incident, input.link) };
  }

  @Mutation(() => DeleteCausalLinkPayload, { description: 'Removes a causal link. Editor.' })
  async deleteCausalLink(@Args('input') input: DeleteCausalLinkInput, @CurrentPrincipal() actor: Principal) {
    const current = await this.prisma.incident.findFirst({ where: { OR: [{ slug: input.slug }, { slugAliases: { some: { slug: input.slug } } }] } });
    const before = current ? await this.findLink(current, input.link).catch(() => null) : null;
    const incident = await this.incidents.deleteCausalLink(input.slug, input.expectedVersion, input.link, actor, input.note);
    return { incident, deletedCausalLinkId: toGlobalId('CausalLink', before?.id ?? '') };
  }

  @RequireRole('admin')
  @Mutation(() => DeleteIncidentPayload, { description: 'Deletes an incident with everything under it; the audit trail stays. Admin.' })
  async deleteIncident(@Args('input') input: DeleteIncidentInput, @CurrentPrincipal() actor: Principal) {
    return { deletedIncidentId: toGlobalId('Incident', await this.incidents.delete(input.slug, input.expectedVersion, actor, input.note)) };
  }

  /** The id of a child (by key) before it is removed: the write replaces children by key, so it is not known after. */
  private async childId(table: 'timelineEvent' | 'causalFactor', slug: string, key: string): Promise<string | null> {
    const where = { key, incident: { OR: [{ slug }, { slugAliases: { some: { slug } } }] } };
    const row = table === 'timelineEvent' ? await this.prisma.timelineEvent.findFirst({ where, select: { id: true } }) : await this.prisma.causalFactor.findFirst({ where, select: { id: true } });
    return row?.id ?? null;
  }

  private findLink(incident: Pick<IncidentRecord, 'id'>, link: { from: string; to: string; kind: CausalLinkKind }) {
    return this.prisma.causalLink.findFirstOrThrow({
      where: { incidentId: incident.id, kind: link.kind, from: { key: link.from }, to: { key: link.to } },
    });
  }
}
