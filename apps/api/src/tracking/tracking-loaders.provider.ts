import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { encodeCursor, pageWindow, type Page, type PageWindow } from '@hindsight/incidents';
import { TrackingLoaders, type AuditEventRecord, type HistoryWindow } from '@hindsight/tracking';
import { toConnection } from '../common/page-info.type';
import type { RequestLoaders } from '../common/request-loaders';
import type { AuditEvent } from './types/tracking.types';

/** The one ordering of an audit trail: oldest first (event ids grow with time). */
const HISTORY_ORDER = 'AT_ASC';
/** The largest event id Postgres can hold (bigint). */
const MAX_BIGINT = 9223372036854775807n;

/** Tracking loaders, held by the request's RequestLoaders like every other kind. */
@Injectable()
export class TrackingLoadersProvider {
  constructor(private readonly prisma: PrismaService) {}

  for(loaders: RequestLoaders): TrackingLoaders {
    return loaders.of(TrackingLoaders, () => new TrackingLoaders(this.prisma));
  }

  /** A page of an actionable's whole audit trail, as a connection. */
  async actionableHistory(context: RequestLoaders, actionableId: string, args: PageWindow) {
    const loaders = this.for(context);
    return historyConnection(actionableId, args, (w) => loaders.actionableHistory.load({ id: actionableId, window: w }), () => loaders.actionableHistoryCount.load(actionableId));
  }

  /** A page of the audit trail of an incident and its actionables (deleted ones too), as a connection. */
  async incidentHistory(context: RequestLoaders, incidentId: string, args: PageWindow) {
    const loaders = this.for(context);
    return historyConnection(incidentId, args, (w) => loaders.incidentHistory.load({ id: incidentId, window: w }), () => loaders.incidentHistoryCount.load(incidentId));
  }
}

/**
 * Keyset paging over a trail of any length: a cursor names the event and the record whose trail
 * it came from, so a cursor of another record's trail (or of another connection) is refused.
 */
async function historyConnection(
  recordId: string,
  args: PageWindow,
  load: (w: HistoryWindow) => Promise<{ events: AuditEventRecord[]; hasNextPage: boolean; hasPreviousPage: boolean }>,
  count: () => Promise<number>,
) {
  const { size, backward, after, before } = pageWindow(args, HISTORY_ORDER);
  const eventId = (cursor: typeof after, field: string): bigint | null => {
    if (!cursor) return null;
    if (cursor.id !== recordId) throw AppError.badField(field, "the cursor belongs to another record's history");
    if (!/^[0-9]{1,19}$/.test(cursor.value) || BigInt(cursor.value) > MAX_BIGINT) throw AppError.badField(field, 'malformed cursor: pass a cursor returned by this API');
    return BigInt(cursor.value);
  };
  const window: HistoryWindow = { size, backward, afterId: eventId(after, 'after'), beforeId: eventId(before, 'before') };
  const found = await load(window);
  const nodes = found.events.map(toAuditEvent);
  const page: Page<AuditEvent> = {
    nodes,
    cursors: nodes.map((e) => encodeCursor({ order: HISTORY_ORDER, value: e.id, id: recordId })),
    count,
    // A trail is counted exactly through its index: cheap enough to serve as its own estimate.
    estimate: count,
    hasNextPage: found.hasNextPage,
    hasPreviousPage: found.hasPreviousPage,
  };
  return toConnection(page);
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
