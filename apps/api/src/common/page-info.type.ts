import { Field, ObjectType } from '@nestjs/graphql';
import type { Page } from '@hindsight/incidents';

@ObjectType({ description: 'Relay page information.' })
export class PageInfo {
  @Field() hasNextPage!: boolean;
  @Field() hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true }) startCursor!: string | null;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

/** What a connection's count fields resolve from. */
export interface ConnectionCounts {
  count(): Promise<number>;
  estimate(): Promise<number>;
}

/** The Relay connection shape shared by every list: edges, nodes, pageInfo and totalCount. */
export function toConnection<T>(page: Page<T>) {
  return {
    edges: page.nodes.map((node, i) => ({ node, cursor: page.cursors[i]! })),
    nodes: page.nodes,
    // Resolved by the connection's totalCount/totalCountEstimate fields, only when selected.
    count: () => page.count(),
    estimate: () => page.estimate(),
    // For connection types without a resolver of their own: GraphQL's default resolver calls a
    // function property, so the count still runs only when the field is selected.
    totalCount: () => page.count(),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors[page.cursors.length - 1] ?? null,
    },
  };
}
