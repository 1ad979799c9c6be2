import { Int, ResolveField, Resolver } from '@nestjs/graphql';
import type { ConnectionCounts } from '../common/page-info.type';
import { ActionableConnection, IncidentConnection } from './types/incident.types';

// Counting is a statement of its own, run only when the query selects the field.

@Resolver(() => IncidentConnection)
export class IncidentConnectionCountsResolver {
  @ResolveField(() => Int)
  totalCount(c: ConnectionCounts): Promise<number> {
    return c.count();
  }

  @ResolveField(() => Int)
  totalCountEstimate(c: ConnectionCounts): Promise<number> {
    return c.estimate();
  }
}

@Resolver(() => ActionableConnection)
export class ActionableConnectionCountsResolver {
  @ResolveField(() => Int)
  totalCount(c: ConnectionCounts): Promise<number> {
    return c.count();
  }

  @ResolveField(() => Int)
  totalCountEstimate(c: ConnectionCounts): Promise<number> {
    return c.estimate();
  }
}
