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

/** A value GraphQL awaits like a promise, computed only on the first `then`. */
function lazy<T>(compute: () => Promise<T>): PromiseLike<T> {
  let started: Promise<T> | null = null;
  return {
    then: (onFulfilled, onRejected) => (started ??= compute()).then(onFulfilled, onRejected),
  };
}

/** The Relay connection shape shared by every list: edges, nodes, pageInfo and totalCount. */
export function toConnection<T>(page: Page<T>) {
  return {
    edges: page.nodes.map((node, i) => ({ node, cursor: page.cursors[i]! })),
    nodes: page.nodes,
    // Resolved by the connection's totalCount/totalCountEstimate fields, only when selected.
    count: () => page.count(),
    estimate: () => page.estimate(),
    // For connection types without a count resolver of their own: a thenable that counts only
    // when GraphQL awaits it, which it does only when `totalCount` is selected.
    totalCount: lazy(() => page.count()),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: page.cursors[0] ?? null,
      endCursor: page.cursors[page.cursors.length - 1] ?? null,
    },
  };
}
