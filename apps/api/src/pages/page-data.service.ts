import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError, type ErrorDetails, type FieldProblem } from '@hindsight/domain';
import { toAppError } from '../common/errors/app-error.mapping';
import {
  IncidentLoaders,
  IncidentsService,
  RelatedIncidentsService,
  SearchResultsService,
  type IncidentFilter,
  type IncidentRecord,
  type Page,
  type PatternWithCount,
} from '@hindsight/incidents';
import { TrackerLinks } from '../tracking/tracker-links';
import type { DidYouMean, Facet, RelatedIncident, SearchHighlight } from '@hindsight/incidents';
import type { FieldError, ParsedActionableList, ParsedIncidentList } from './list-query.parser';
import type { ActionableListItem } from './views/actionable-list.view';
import type { IncidentListItem, ListPage } from './views/incident-list.view';
import type { IncidentPageModel } from './views/incident.view';

/** What the list page shows beside the rows: where each result matched, a correction, facet counts, filter suggestions. */
export interface IncidentListSearch {
  suggestions: { organizations: string[]; components: string[] };
  highlights: Map<string, SearchHighlight[]>;
  didYouMean: DidYouMean | null;
  /** Counts of the whole result set, for a search and a plain filter alike. */
  facets: Facet[];
  /** 'now': counted for this page; 'minute': the unfiltered list's counts, recounted at most once a minute. */
  facetsRecounted: 'now' | 'minute';
}

/** Values shown per facet on the list page. */
const FACET_VALUES = 8;

type IncidentDetails = Pick<IncidentPageModel, 'patterns' | 'timeline' | 'factors' | 'links' | 'actionables'>;

interface Loadable<K, V> {
  loadMany(keys: readonly K[]): Promise<(V | Error)[]>;
}

async function loadAll<K, V>(loader: Loadable<K, V>, keys: readonly K[]): Promise<V[]> {
  const results = await loader.loadMany(keys);
  const failed = results.find((r): r is Error => r instanceof Error);
  if (failed) throw failed;
  return results as V[];
}

async function toListPage<T, U>(page: Page<T>, items: U[], total?: { count: number; complete: boolean }): Promise<ListPage<U>> {
  return {
    items,
    totalCount: total ? total.count : await page.count(),
    totalCountComplete: total ? total.complete : true,
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage,
    endCursor: page.cursors[page.cursors.length - 1] ?? null,
  };
}

const FRIENDLY: Record<string, string> = {
  after: 'That page link is no longer valid (the order changed or it was cut short). Start again from the first page.',
  first: 'Show from 1 to 100 per page.',
};

/**
 * Reads for the pages, through the same IncidentsService and per-request IncidentLoaders the
 * GraphQL resolvers use: one statement per kind of child whatever the number of rows, and no
 * query of its own.
 */
@Injectable()
export class PageDataService {
  constructor(
    private readonly incidents: IncidentsService,
    private readonly prisma: PrismaService,
    private readonly trackerLinks: TrackerLinks,
    private readonly searchResults: SearchResultsService,
    private readonly relatedIncidents: RelatedIncidentsService,
  ) {}

  /** Loaders live for one page render, exactly like the GraphQL request context. */
  private loaders(): IncidentLoaders {
    return new IncidentLoaders(this.prisma);
  }

  /** The loaders an incident was read with (its children already in them), for `incidentDetails`. */
  private readonly readWith = new WeakMap<IncidentRecord, IncidentLoaders>();

  /** The incident, or the slug it now lives under when `slug` is an old one. */
  async findIncident(slug: string): Promise<{ incident: IncidentRecord } | { movedTo: string }> {
    const loaders = this.loaders();
    const everything = { narrative: true, patterns: true, timeline: true, factors: true, links: true, actionables: true, references: true, addresses: true };
    const incident = await this.incidents.findBySlug(slug, { loaders, include: everything });
    if (incident.slug !== slug) return { movedTo: incident.slug };
    this.readWith.set(incident, loaders);
    return { incident };
  }

  async incidentDetails(incident: IncidentRecord): Promise<IncidentDetails> {
    const loaders = this.readWith.get(incident) ?? this.loaders();
    const [patterns, timeline, factors, links, actionables] = await Promise.all([
      loaders.patterns.load(incident.id),
      loaders.timeline.load(incident.id),
      loaders.factors.load(incident.id),
      loaders.links.load(incident.id),
      loaders.actionables.load(incident.id),
    ]);
    const ids = actionables.map((a) => a.id);
    const [references, addresses] = await Promise.all([loadAll(loaders.references, ids), loadAll(loaders.addressedFactors, ids)]);
    return {
      patterns,
      timeline,
      factors,
      links,
      actionables: actionables.map((a, i) => ({ ...a, references: this.trackerLinks.link(references[i]!, incident.organization ?? ''), addresses: addresses[i]! })),
    };
  }

  /**
   * The incident list page. The unfiltered list counts every published incident (an index-only
   * count) and shows the facets of all of them, recounted at most once a minute; a filtered or
   * searched list counts its matches, and their facets, no further than `countLimit` (see
   * `AppConfig.listCountLimit`).
   */
  async incidentList(parsed: ParsedIncidentList, countLimit: number): Promise<{ patterns: PatternWithCount[]; page: ListPage<IncidentListItem> | null; errors: FieldError[] } & IncidentListSearch> {
    const errors = [...parsed.errors];
    const loaders = this.loaders();
    const [patterns, found, organizations, components] = await Promise.all([
      this.incidents.listPatterns(),
      errors.length > 0 ? null : refusedAsNull(this.incidents.listIncidents(parsed.filter, parsed.page, { loaders, include: { patterns: true } }), errors),
      this.searchResults.commonValues('ORGANIZATION'),
      this.searchResults.commonValues('COMPONENT'),
    ]);
    const suggestions = { organizations, components };
    if (!found) return { patterns, page: null, errors, suggestions, highlights: new Map(), didYouMean: null, facets: [], facetsRecounted: 'now' };
    const search = found.search;
    const unfiltered = this.incidents.isUnfiltered(parsed.filter, search);
    // Did-you-mean and facets depend on whether anything matched: the count comes first.
    const total = unfiltered ? { count: await found.count(), complete: true } : await this.searchResults.countUpTo(parsed.filter, search, countLimit);
    const [page, highlights, didYouMean, facets] = await Promise.all([
      this.withPatterns(found, loaders, total),
      search ? this.searchResults.highlights(search, found.nodes.map((n) => n.id)) : new Map<string, SearchHighlight[]>(),
      search && total.count === 0 ? this.searchResults.didYouMean(parsed.filter, search) : null,
      total.count === 0 ? null : this.searchResults.resultFacets(parsed.filter, search, FACET_VALUES, countLimit),
    ]);
    return { patterns, page, errors, suggestions, highlights, didYouMean, facets: facets?.facets ?? [], facetsRecounted: facets?.recounted ?? 'now' };
  }

  /** Incidents related to one, for its page; a failure leaves the section out rather than the page. */
  async related(incident: IncidentRecord): Promise<RelatedIncident[]> {
    return this.relatedIncidents.related(incident.id, 5);
  }

  async actionableList(parsed: ParsedActionableList): Promise<{ page: ListPage<ActionableListItem> | null; errors: FieldError[]; ownerSuggestions: string[] }> {
    const errors = [...parsed.errors];
    const loaders = this.loaders();
    const [found, ownerSuggestions] = await Promise.all([
      errors.length > 0 ? null : refusedAsNull(this.incidents.listActionables(parsed.filter, parsed.page, { loaders, include: { incident: true, references: true } }), errors),
      this.searchResults.commonValues('OWNER'),
    ]);
    if (!found) return { page: null, errors, ownerSuggestions };
    const [incidents, references] = await Promise.all([
      loadAll(loaders.incident, found.nodes.map((a) => a.incidentId)),
      loadAll(loaders.references, found.nodes.map((a) => a.id)),
    ]);
    const items = found.nodes.map((actionable, i) => ({ actionable, incident: incidents[i] ?? null, references: this.trackerLinks.link(references[i]!, incidents[i]?.organization ?? '') }));
    return { page: await toListPage(found, items), errors, ownerSuggestions };
  }

  async patternPage(key: string, first: number, after: string, queryErrors: FieldError[]): Promise<{ pattern: PatternWithCount; page: ListPage<IncidentListItem> | null; errors: FieldError[] }> {
    const errors = [...queryErrors];
    const pattern = await this.incidents.findPattern(key);
    const loaders = this.loaders();
    const found =
      errors.length > 0
        ? null
        : await refusedAsNull(this.incidents.listIncidents({ patterns: [key] }, { first, after: after || null, orderBy: 'STARTED_AT_DESC' }, { loaders, include: { patterns: true } }), errors);
    return { pattern, page: found ? await this.withPatterns(found, loaders) : null, errors };
  }

  patternIndex(): Promise<PatternWithCount[]> {
    return this.incidents.listPatterns();
  }

  private async withPatterns(found: Page<IncidentRecord>, loaders: IncidentLoaders, total?: { count: number; complete: boolean }): Promise<ListPage<IncidentListItem>> {
    const patterns = await loadAll(loaders.patterns, found.nodes.map((i) => i.id));
    return toListPage(found, found.nodes.map((incident, i) => ({ incident, patterns: patterns[i]! })), total);
  }
}

/**
 * A refused page request (a stale cursor, a page size out of range) becomes a message on the
 * page rather than an error page: the reader keeps the form and can start again.
 */
async function refusedAsNull<T>(work: Promise<T>, errors: FieldError[]): Promise<T | null> {
  try {
    return await work;
  } catch (thrown) {
    const error = toAppError(thrown);
    if (!error || error.code !== 'BAD_USER_INPUT') throw thrown;
    const problems = (error.details as ErrorDetails['BAD_USER_INPUT']).problems ?? [{ field: 'form', reason: error.message }];
    for (const p of problems) errors.push({ field: p.field, message: FRIENDLY[p.field] ?? p.reason });
    return null;
  }
}
