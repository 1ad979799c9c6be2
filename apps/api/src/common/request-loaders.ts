import type { PrismaService } from '@hindsight/db';
import { IncidentLoaders } from '@hindsight/incidents';

/**
 * The one per-request DataLoader mechanism. The GraphQL context holds one `RequestLoaders`;
 * every resolver that batches reads asks it for its lib's loaders (`of`), which creates them on
 * first use. `reset()` forgets every cached answer at once: a mutation runs it before it starts,
 * so nothing an earlier field of the same operation cached (an incident's model before
 * `attachModel`, an actionable before `transitionActionable`) leaks into what the mutation
 * returns.
 */
export class RequestLoaders {
  private readonly byKind = new Map<unknown, unknown>();

  constructor(private readonly prisma: PrismaService) {}

  /** The loaders of the read side of the knowledge base. */
  get incidents(): IncidentLoaders {
    return this.of(IncidentLoaders, () => new IncidentLoaders(this.prisma));
  }

  /** Loaders of one kind for this request, created by `create` on first use. */
  of<T>(kind: abstract new (...args: never[]) => T, create: () => T): T {
    let loaders = this.byKind.get(kind) as T | undefined;
    if (loaders === undefined) {
      loaders = create();
      this.byKind.set(kind, loaders);
    }
    return loaders;
  }

  /** Forget every cached answer of every kind. */
  reset(): void {
    this.byKind.clear();
  }
}
