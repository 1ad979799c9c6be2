import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { TrackingLoaders, type AuditEventRecord } from '@hindsight/tracking';
import type { RequestLoaders } from '../common/request-loaders';
import type { AuditEvent } from './types/tracking.types';

/** Tracking loaders, held by the request's RequestLoaders like every other kind. */
@Injectable()
export class TrackingLoadersProvider {
  constructor(private readonly prisma: PrismaService) {}

  for(loaders: RequestLoaders): TrackingLoaders {
    return loaders.of(TrackingLoaders, () => new TrackingLoaders(this.prisma));
  }

  /** The most recent MAX_HISTORY events of an actionable, oldest first (the window its history connection pages). */
  async actionableHistory(context: RequestLoaders, actionableId: string): Promise<AuditEvent[]> {
    return (await this.for(context).actionableHistory.load(actionableId)).map(toAuditEvent);
  }

  /** The most recent MAX_HISTORY events of an incident and its actionables, oldest first. */
  async incidentHistory(context: RequestLoaders, incidentId: string): Promise<AuditEvent[]> {
    return (await this.for(context).incidentHistory.load(incidentId)).map(toAuditEvent);
  }
}

/** Text stays text; lists and snapshots become JSON, so a client can show any value as a string. */
function render(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function toAuditEvent(e: AuditEventRecord): AuditEvent {
  return {
    id: e.id.toString(),
    at: e.at,
    actor: e.actor,
    entity: e.entity,
    entityKey: e.entityKey,
    action: e.action,
    field: e.field,
    from: render(e.from),
    to: render(e.to),
    note: e.note,
    version: e.version,
  };
}
