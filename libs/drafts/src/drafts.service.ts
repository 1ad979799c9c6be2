import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, type IncidentDocument } from '@hindsight/domain';
import { parsePostmortem, type DocumentFormat, type ImportReport, type ImportResult, type ParsePostmortemOptions, type TrackerBases } from '@hindsight/postmortem-parser';
import { encodeCursor, pageWindow, writeIncidentDocument, type CursorValue, type IncidentRecord, type Page, type PageWindow } from '@hindsight/incidents';

/** The one ordering of the draft queue: most recently changed first. */
const DRAFT_ORDER = 'UPDATED_AT_DESC';
import { appendAuditEvents, type Actor } from '@hindsight/tracking';

export const IMPORT_OPTIONS = Symbol('IMPORT_OPTIONS');

export interface ImportOptions {
  /** Documents larger than this many UTF-8 bytes are refused. */
  maxBytes: number;
  trackers: TrackerBases;
}

export interface ImportRequest {
  document: string;
  format?: DocumentFormat | null;
  sourceUrl?: string | null;
  /** Used when the document does not name its organization. */
  organization?: string | null;
  /** Who imports: an API token's principal, or `cli:<user>` for the command line. */
  actor: Actor;
}

export interface ImportOutcome {
  incident: IncidentRecord;
  report: ImportReport;
  /** False when an earlier draft of the same document was updated. */
  created: boolean;
}

/**
 * Turns postmortem documents into draft incidents. A draft is an ordinary incident with status
 * `draft`: invisible to readers until an editor publishes it. Importing the same document again
 * (same source URL, or same content) updates its draft; a published incident is never
 * overwritten by an import.
 */
@Injectable()
export class DraftsService {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(IMPORT_OPTIONS) private readonly options: ImportOptions,
  ) {}

  /** Parses without writing: what an import would produce. */
  async preview(request: Omit<ImportRequest, 'actor'>) {
    return this.parse(request, await this.knownPatterns());
  }

  async importDocument(request: ImportRequest): Promise<ImportOutcome> {
    return this.saveDraft(this.parse(request, await this.knownPatterns()), request);
  }

  /** Stores an already parsed document as a draft (the command line parses first, then saves). */
  async saveDraft({ draft, report }: ImportResult, request: Pick<ImportRequest, 'sourceUrl' | 'actor'> & { document?: string }): Promise<ImportOutcome> {
    if (report.problems.length > 0) {
      throw new AppError('BAD_USER_INPUT', `The document could not be turned into a draft: ${report.problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}`, {
        field: 'document',
        problems: report.problems,
      });
    }
    return this.prisma.$transaction(
      async (tx) => {
        const previous = await tx.importedDocument.findFirst({
          where: request.sourceUrl ? { OR: [{ sourceUrl: request.sourceUrl }, { contentHash: report.contentHash }] } : { contentHash: report.contentHash },
          include: { incident: { select: { id: true, slug: true, status: true } } },
          orderBy: { importedAt: 'asc' },
        });
        if (previous?.incident.status === 'published') {
          throw new AppError(
            'CONFLICT',
            `This document was already imported and published as "${previous.incident.slug}"; an import never overwrites a published incident.`,
            { field: 'document', slug: previous.incident.slug },
          );
        }
        const slug = previous ? previous.incident.slug : await this.freeSlug(tx, draft.slug);
        const doc: IncidentDocument = { ...draft, slug };
        const written = await writeIncidentDocument(tx, doc, { status: 'draft' });
        const record = {
          incidentId: written.incidentId,
          sourceUrl: request.sourceUrl ?? null,
          contentHash: report.contentHash,
          format: report.format,
          report: JSON.parse(JSON.stringify(report)) as object,
          sourceText: request.document?.replace(/\r\n?/g, '\n') ?? null,
          importedBy: request.actor.name,
        };
        if (previous) await tx.importedDocument.update({ where: { id: previous.id }, data: record });
        else await tx.importedDocument.create({ data: record });
        const incident = await tx.incident.findUniqueOrThrow({ where: { id: written.incidentId } });
        await appendAuditEvents(tx, request.actor, new Date(), `imported from ${request.sourceUrl ?? `a ${report.format} document`}`, [
          {
            entity: 'incident',
            entityKey: incident.slug,
            action: previous ? 'update' : 'create',
            field: previous ? 'import' : null,
            to: { status: 'draft', contentHash: report.contentHash },
            incidentId: incident.id,
            version: incident.version,
          },
        ]);
        return { incident, report, created: !previous };
      },
      { timeout: 30_000, maxWait: 5_000 },
    );
  }

  /** Makes a draft visible to readers. Stale `expectedVersion` → CONFLICT, nothing changes. */
  async publish(slug: string, expectedVersion: number, actor: Actor): Promise<IncidentRecord> {
    if (!Number.isInteger(expectedVersion) || expectedVersion < 1) throw AppError.badField('expectedVersion', 'expected the positive version you last read');
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.incident.findUnique({ where: { slug } });
      if (!current) throw AppError.notFound('Incident', slug, 'slug');
      if (current.status === 'published') throw new AppError('BAD_USER_INPUT', `Incident "${slug}" is already published.`, { field: 'slug' });
      const updated = await tx.incident.updateMany({
        where: { id: current.id, version: expectedVersion, status: 'draft' },
        data: { status: 'published', version: { increment: 1 } },
      });
      if (updated.count === 0) {
        throw new AppError('CONFLICT', `Incident "${slug}" is at version ${current.version}, not ${expectedVersion}; reload it and try again.`, {
          field: 'expectedVersion',
          currentVersion: current.version,
        });
      }
      const published = await tx.incident.findUniqueOrThrow({ where: { id: current.id } });
      await appendAuditEvents(tx, actor, new Date(), null, [
        { entity: 'incident', entityKey: slug, action: 'update', field: 'status', from: 'draft', to: 'published', incidentId: current.id, version: published.version },
      ]);
      return published;
    });
  }

  /** One draft with its import report and source text, for the review page; null when `slug` is no draft. */
  async findDraft(slug: string): Promise<{ incident: IncidentRecord; report: ImportReport | null; sourceText: string | null } | null> {
    const found = await this.prisma.incident.findFirst({ where: { slug, status: 'draft' }, include: { importedFrom: true } });
    if (!found) return null;
    const { importedFrom, ...incident } = found;
    return { incident, report: (importedFrom?.report as ImportReport | undefined) ?? null, sourceText: importedFrom?.sourceText ?? null };
  }

  /** Drafts with their import reports, newest first, for editors reviewing imports. */
  async listDrafts(args: PageWindow = {}): Promise<Page<{ incident: IncidentRecord; report: ImportReport | null }>> {
    // Newest change first, id breaking ties; a backward page reads the order reversed from
    // `before`, then turns its rows back. Cursors carry the update time and the id.
    const { size, backward, after, before } = pageWindow(args, DRAFT_ORDER);
    const past = (c: CursorValue, newer: boolean): Prisma.IncidentWhereInput => {
      const at = new Date(c.value);
      const cmp = newer ? 'gt' : 'lt';
      return { OR: [{ updatedAt: { [cmp]: at } }, { updatedAt: at, id: { [cmp]: c.id } }] };
    };
    const bounds: Prisma.IncidentWhereInput[] = [];
    if (after) bounds.push(past(after, false));
    if (before) bounds.push(past(before, true));
    const dir = backward ? 'asc' : 'desc';
    const where: Prisma.IncidentWhereInput = { status: 'draft' };
    const rows = await this.prisma.incident.findMany({
      where: { ...where, AND: bounds },
      include: { importedFrom: true },
      orderBy: [{ updatedAt: dir }, { id: dir }],
      take: size + 1,
    });
    const more = rows.length > size;
    const drafts = rows.slice(0, size);
    if (backward) drafts.reverse();
    let counted: Promise<number> | null = null;
    return {
      nodes: drafts.map(({ importedFrom, ...incident }) => ({ incident, report: (importedFrom?.report as ImportReport | undefined) ?? null })),
      cursors: drafts.map((d) => encodeCursor({ order: DRAFT_ORDER, value: d.updatedAt.toISOString(), id: d.id })),
      count: () => (counted ??= this.prisma.incident.count({ where })),
      estimate: () => (counted ??= this.prisma.incident.count({ where })),
      hasNextPage: (!backward && more) || before !== null,
      hasPreviousPage: (backward && more) || after !== null,
    };
  }

  /** Pattern keys of the taxonomy: suggestions outside it are dropped. */
  async knownPatterns(): Promise<string[]> {
    return (await this.prisma.pattern.findMany({ select: { key: true } })).map((p) => p.key);
  }

  /**
   * The options every import parses with, whichever door the document came in by (GraphQL or
   * the command line), so the same document gives the same draft.
   */
  async parseOptions(request: Pick<ImportRequest, 'format' | 'sourceUrl' | 'organization'> = {}): Promise<ParsePostmortemOptions> {
    return this.optionsWith(request, await this.knownPatterns());
  }

  private optionsWith(request: Pick<ImportRequest, 'format' | 'sourceUrl' | 'organization'>, knownPatterns: string[]): ParsePostmortemOptions {
    return {
      format: request.format ?? undefined,
      sourceUrl: request.sourceUrl ?? null,
      maxBytes: this.options.maxBytes,
      trackers: this.options.trackers,
      knownPatterns,
      // Unknown stays empty (the report flags ORGANIZATION_UNKNOWN), never a placeholder.
      organization: request.organization ?? undefined,
    };
  }

  /** Throws ImportError for a document that cannot be read at all; the API maps it to BAD_USER_INPUT. */
  private parse(request: Omit<ImportRequest, 'actor'>, knownPatterns: string[]) {
    return parsePostmortem(request.document, this.optionsWith(request, knownPatterns));
  }

  private async freeSlug(tx: Pick<PrismaService, 'incident'>, base: string): Promise<string> {
    const taken = new Set(
      (await tx.incident.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map((i) => i.slug),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }
}
