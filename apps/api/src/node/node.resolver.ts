import { Args, Context, ID, Query, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { IncidentsService } from '@hindsight/incidents';
import { ModelRunsService } from '@hindsight/model-runs';
import { principalOf } from '../auth/request-principal';
import { Actionable } from '../incidents/types/incident.types';
import { toAuditEvent } from '../tracking/tracking-loaders.provider';
import { fromGlobalId, localIdOf, type NodeType } from './global-id';
import { Node, NODE_TYPE, type TaggedNode } from './node.interface';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_NODES = 100;
const PUBLISHED = { incident: { status: 'published' as const } };

/**
 * Refetching any object by its global id. Readers see what they can list: records of published
 * incidents, patterns, audit events, model runs and specs; API tokens only for admins. An id of
 * the right form that names nothing answers null, as Relay expects; a string that is no id of
 * this API is BAD_USER_INPUT.
 */
@Resolver()
export class NodeResolver {
  constructor(
    private readonly prisma: PrismaService,
    private readonly incidents: IncidentsService,
    private readonly models: ModelRunsService,
  ) {}

  @Query(() => Node, { nullable: true, description: 'Any object by its global id; null when it names nothing you may see.' })
  node(@Args('id', { type: () => ID }) id: string, @Context('req') req: Request): Promise<TaggedNode | null> {
    const { type, localId } = fromGlobalId(id, 'id');
    return this.fetch(type, localId, req);
  }

  @Query(() => [Node], { nullable: 'items', description: `Objects by global id, in the order asked (at most ${MAX_NODES}); null for each id that names nothing you may see.` })
  nodes(@Args('ids', { type: () => [ID] }) ids: string[], @Context('req') req: Request): Promise<(TaggedNode | null)[]> {
    if (ids.length > MAX_NODES) throw AppError.badField('ids', `at most ${MAX_NODES} ids; got ${ids.length}`);
    const parsed = ids.map((id, i) => fromGlobalId(id, `ids[${i}]`));
    return Promise.all(parsed.map(({ type, localId }) => this.fetch(type, localId, req)));
  }

  @Query(() => Actionable, { description: 'One actionable by its id; NOT_FOUND when there is none.' })
  async actionable(@Args('id', { type: () => ID }) id: string, @Context('req') req: Request) {
    const found = await this.fetch('Actionable', localIdOf(id, 'Actionable', 'id'), req);
    if (!found) throw AppError.notFound('Actionable', id, 'id');
    return found;
  }

  private async fetch(type: NodeType, localId: string, req: Request): Promise<TaggedNode | null> {
    const record = await this.load(type, localId, req);
    return record ? { ...(record as Record<string, unknown>), [NODE_TYPE]: type } : null;
  }

  private async load(type: NodeType, id: string, req: Request): Promise<object | null> {
    if (type === 'AuditEvent') {
      if (!/^\d{1,18}$/.test(id)) return null;
      const row = await this.prisma.auditEvent.findUnique({ where: { id: BigInt(id) } });
      return row ? toAuditEvent(row) : null;
    }
    if (!UUID.test(id)) return null;
    switch (type) {
      case 'Incident':
        return this.prisma.incident.findFirst({ where: { id, status: 'published' } });
      case 'Actionable':
        return this.prisma.actionable.findFirst({ where: { id, ...PUBLISHED } });
      case 'TimelineEvent':
        return this.prisma.timelineEvent.findFirst({ where: { id, ...PUBLISHED } });
      case 'CausalFactor':
        return this.prisma.causalFactor.findFirst({ where: { id, ...PUBLISHED } });
      case 'CausalLink':
        return this.prisma.causalLink.findFirst({ where: { id, ...PUBLISHED } });
      case 'Pattern': {
        const row = await this.prisma.pattern.findUnique({ where: { id }, select: { key: true } });
        return row ? this.incidents.findPattern(row.key) : null;
      }
      case 'ApiToken': {
        const principal = await principalOf(req);
        if (principal?.role !== 'admin') return null;
        return this.prisma.apiToken.findUnique({ where: { id }, omit: { tokenHash: true } });
      }
      case 'Account': {
        const principal = await principalOf(req);
        if (principal?.role !== 'admin') return null;
        return this.prisma.account.findUnique({ where: { id }, select: { id: true, name: true, role: true, createdBy: true, createdAt: true, lastSignInAt: true, disabledAt: true } });
      }
      case 'ModelScenario':
        return this.prisma.scenario.findFirst({
          where: { id, binding: { incident: { status: 'published' } } },
          select: { id: true, incidentId: true, key: true, position: true, title: true, description: true, actionableKey: true },
        });
      case 'ModelRun':
        return this.models.findRun(id).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
          throw error;
        });
      case 'ModelSpecVersion':
        return this.prisma.modelSpec.findUnique({ where: { id }, select: { id: true, key: true, version: true, title: true, checksum: true, createdAt: true } });
      case 'Runbook':
        return this.prisma.runbook.findUnique({ where: { id } });
      case 'RunbookCitation':
        // Citations of a draft's records are not shown to readers, like the draft itself.
        return this.prisma.runbookCitation.findFirst({
          where: {
            id,
            OR: [{ patternId: { not: null } }, { incident: { status: 'published' } }, { factor: PUBLISHED }, { actionable: PUBLISHED }],
          },
          include: { runbook: true },
        });
      case 'Team':
        return this.prisma.team.findUnique({ where: { id } });
    }
  }
}
