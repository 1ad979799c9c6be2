import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { MAX_HISTORY, SCENARIO_LINK, TrackingLoaders, type AuditEventRecord, type ScenarioLink } from '@hindsight/tracking';
import type { AuditEvent } from './types/tracking.types';

/**
 * Per-request tracking loaders, keyed by the GraphQL context object (one per request), so they
 * need no wiring in the context factory and vanish with the request.
 */
@Injectable()
export class TrackingLoadersProvider {
  private readonly perRequest = new WeakMap<object, TrackingLoaders>();

  constructor(
    private readonly prisma: PrismaService,
    @Inject(SCENARIO_LINK) private readonly scenarios: ScenarioLink,
  ) {}

  for(context: object): TrackingLoaders {
    let loaders = this.perRequest.get(context);
    if (!loaders) {
      loaders = new TrackingLoaders(this.prisma, this.scenarios);
      this.perRequest.set(context, loaders);
    }
    return loaders;
  }

  /** Forget cached answers: a mutation just changed what they describe. */
  reset(context: object): void {
    this.perRequest.delete(context);
  }

  async actionableHistory(context: object, actionableId: string, last: number): Promise<AuditEvent[]> {
    checkLast(last);
    return (await this.for(context).actionableHistory.load(actionableId)).slice(-last).map(toAuditEvent);
  }

  async incidentHistory(context: object, incidentId: string, last: number): Promise<AuditEvent[]> {
    checkLast(last);
    return (await this.for(context).incidentHistory.load(incidentId)).slice(-last).map(toAuditEvent);
  }
}

function checkLast(last: number): void {
  if (!Number.isInteger(last) || last < 1 || last > MAX_HISTORY) throw AppError.badField('last', `must be an integer from 1 to ${MAX_HISTORY}; got ${last}`);
}

/** Text stays text; lists and snapshots become JSON, so a client can show any value as a string. */
function render(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function toAuditEvent(e: AuditEventRecord): AuditEvent {
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
