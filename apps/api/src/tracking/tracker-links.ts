import { Inject, Injectable } from '@nestjs/common';
import type { ExternalReferenceRecord } from '@hindsight/incidents';
import { linkReference, TRACKING_OPTIONS, trackersFor, type TrackingOptions } from '@hindsight/tracking';

/**
 * Tracker links, worked out when a reference is read, from the trackers its incident's
 * organization has now (`TRACKERS_BY_ORGANIZATION` and the `TRACKER_*_URL` defaults). The
 * GraphQL API, the pages and the exports all show references through this one place.
 */
@Injectable()
export class TrackerLinks {
  constructor(@Inject(TRACKING_OPTIONS) private readonly options: TrackingOptions) {}

  link<R extends ExternalReferenceRecord>(references: readonly R[], organization: string | null): R[] {
    const bases = trackersFor(this.options.trackers, organization);
    return references.map((r) => linkReference(r, bases));
  }
}
