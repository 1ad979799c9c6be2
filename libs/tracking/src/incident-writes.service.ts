import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import {
  AppError,
  validateIncidentDocument,
  type CausalFactorDocument,
  type CausalLinkDocument,
  type CustomerImpactDocument,
  checkSeverity,
  type FieldProblem,
  type ActionableStatus,
  type IncidentDocument,
  type TimePrecision,
  type TimelineEventDocument,
  type TimelineEventKind,
} from '@hindsight/domain';
import {
  diffIncident,
  diffValue,
  incidentSummary,
  incidentValues,
  isEmptyDiff,
  linkKey,
  loadIncidentSnapshot,
  lockIncidentRow,
  renamesIncident,
  withStoredInstants,
  writeIncident,
  type EditableIncident,
  type IncidentDiff,
  type IncidentRecord,
  type IncidentSnapshot,
  type IncidentStatusValue,
} from '@hindsight/incidents';
import { parseCalendarDate } from './actionable-input.validator';
import { parseExternalReference } from './external-reference.parser';
import { appendAuditEvents, type AuditDraft } from './audit-log';
import { TRACKING_OPTIONS, trackersFor, type TrackingOptions } from './tracking-options';
import type { Actor } from './tracking.types';
import { checkExpectedVersion, checkNote, inWriteTransaction } from './write-transaction';

type Tx = Prisma.TransactionClient;

/** A timeline event as clients send it; an event without a time has precision `none`. */
export interface TimelineEventInput {
  key: string;
  asWritten?: string | null;
  at?: string | null;
  precision?: TimePrecision | null;
  kind: TimelineEventKind;
  text: string;
}

export interface NewActionable {
  key: string;
  title: string;
  description?: string | null;
  owner?: string | null;
  status?: ActionableStatus | null;
  dueDate?: string | null;
  /** As people write them: `T134456`, `OPS-123`, URLs. */
  references?: string[] | null;
  addresses?: string[] | null;
}

/** A new incident as clients send it: the shared document shape with defaults for empty parts. */
export interface NewIncident {
  slug: string;
  title: string;
  organization: string;
  components?: string[] | null;
  summary: string;
  narrative?: string | null;
  impact?: string | null;
  patterns?: string[] | null;
  source: { title: string; url?: string | null; language: string };
  keyTimes?: Partial<IncidentDocument['keyTimes']> | null;
  timeline?: TimelineEventInput[] | null;
  causalFactors?: CausalFactorDocument[] | null;
  causalLinks?: CausalLinkDocument[] | null;
  actionables?: NewActionable[] | null;
  severity?: string | null;
  nearMiss?: boolean | null;
  tags?: string[] | null;
  customerImpact?: CustomerImpactDocument | null;
}

export function timelineEventDocument(e: TimelineEventInput): TimelineEventDocument {
  const at = e.at ?? null;
  // A time without a precision stays null here, for the validator to report with its path.
  const precision = (e.precision ?? (at === null ? 'none' : null)) as TimePrecision;
  return { key: e.key, asWritten: e.asWritten ?? null, at, precision, kind: e.kind, text: e.text };
}

/** Fields of an incident an editor may change; absent fields stay as they are. */
export interface IncidentPatch {
  slug?: string;
  status?: IncidentStatusValue;
  title?: string;
  organization?: string;
  components?: string[];
  summary?: string;
  narrative?: string;
  impact?: string;
  patterns?: string[];
  source?: Partial<IncidentDocument['source']>;
  keyTimes?: Partial<IncidentDocument['keyTimes']>;
  /** Null clears it (the source states none). */
  severity?: string | null;
  nearMiss?: boolean;
  tags?: string[];
  /** Null clears it. */
  customerImpact?: CustomerImpactDocument | null;
}

type Edit = (current: EditableIncident) => EditableIncident;

/** Rewrites validator paths (`timeline[4].text`) to the argument the client sent (`event.text`). */
type PathMap = (field: string) => string;

function clone(e: EditableIncident): EditableIncident {
  return { status: e.status, doc: structuredClone(e.doc) };
}

function placeAt<T extends { key: string }>(items: T[], item: T, position: number | null | undefined, field: string): T[] {
  const index = items.findIndex((i) => i.key === item.key);
  const rest = items.filter((i) => i.key !== item.key);
  const target = position ?? (index === -1 ? rest.length : index);
  if (!Number.isInteger(target) || target < 0 || target > rest.length) {
    throw AppError.badField(field, `expected a position from 0 to ${rest.length}; got ${position}`);
  }
  return [...rest.slice(0, target), item, ...rest.slice(target)];
}

/**
 * Editor writes to incident records: create, correct fields (including renaming the slug),
 * and upsert or delete timeline events, causal factors and links by their stable keys.
 *
 * Every edit loads the record as an `IncidentDocument`, applies the change, checks the whole
 * result with `validateIncidentDocument` (the seeds' and importer's rules), and writes only the
 * difference. The incident's version is claimed in SQL (its row locked and its version compared)
 * before any child row is touched, and every difference becomes an audit event in the same
 * transaction. Actionables are never written here, so an incident edit cannot overwrite
 * tracking work done concurrently.
 */
@Injectable()
export class IncidentWritesService {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(TRACKING_OPTIONS) private readonly options: TrackingOptions,
  ) {}

  async create(input: NewIncident, status: IncidentStatusValue, actor: Actor, note?: string | null): Promise<IncidentRecord> {
    const noteText = checkNote(note);
    const doc = this.newDocument(input);
    checkSeverity(doc.severity, this.options.severityLevels, 'input.severity');
    return inWriteTransaction(this.prisma, async (tx) => {
      await this.checkSlugFree(tx, doc.slug, null, 'input.slug');
      await this.checkPatterns(tx, doc.patterns, 'input.patterns');
      const result = await writeIncident(tx, { before: null, after: { doc, status } });
      const created = await tx.incident.findUniqueOrThrow({ where: { id: result.incidentId } });
      const rows = await tx.actionable.findMany({ where: { incidentId: created.id }, select: { id: true, key: true } });
      const now = new Date();
      await appendAuditEvents(tx, actor, now, noteText, [
        { entity: 'incident', entityKey: doc.slug, action: 'create', to: incidentSummary({ doc, status }), incidentId: created.id, version: created.version },
        ...doc.actionables.map(
          (a): AuditDraft => ({
            entity: 'actionable',
            entityKey: a.key,
            action: 'create',
            to: diffValue({ ...a, references: a.references.map((r) => r.ref) }),
            incidentId: created.id,
            actionableId: rows.find((r) => r.key === a.key)?.id ?? null,
            version: 1,
          }),
        ),
      ]);
      return created;
    });
  }

  /** Fills the optional parts, parses references, and validates the whole document at once. */
  private newDocument(input: NewIncident): IncidentDocument {
    const problems: FieldProblem[] = [];
    const actionables = (input.actionables ?? []).map((a, i) => {
      const at = `input.actionables[${i}]`;
      if (a.dueDate != null && !parseCalendarDate(a.dueDate)) {
        problems.push({ field: `${at}.dueDate`, reason: `expected a calendar date YYYY-MM-DD; got ${JSON.stringify(a.dueDate)}` });
      }
      const references = (a.references ?? []).flatMap((raw, j) => {
        try {
          return [parseExternalReference(raw, trackersFor(this.options.trackers, input.organization), `${at}.references[${j}]`)];
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          problems.push(...(error.details.problems as FieldProblem[]));
          return [];
        }
      });
      return {
        key: a.key,
        title: a.title,
        description: a.description ?? '',
        owner: a.owner ?? null,
        status: a.status ?? 'open',
        dueDate: a.dueDate ?? null,
        references,
        addresses: a.addresses ?? [],
      };
    });
    if (problems.length > 0) throw AppError.badInput(problems);
    const keyTimes = { started: null, detected: null, mitigated: null, resolved: null, ...stripUndefined(input.keyTimes ?? {}) };
    return validateIncidentDocument(
      {
        slug: input.slug,
        title: input.title,
        organization: input.organization,
        components: input.components ?? [],
        summary: input.summary,
        narrative: input.narrative ?? '',
        impact: input.impact ?? '',
        patterns: input.patterns ?? [],
        source: { title: input.source.title, url: input.source.url ?? null, language: input.source.language },
        keyTimes,
        timeline: (input.timeline ?? []).map(timelineEventDocument),
        causalFactors: input.causalFactors ?? [],
        causalLinks: input.causalLinks ?? [],
        actionables,
        severity: input.severity ?? null,
        nearMiss: input.nearMiss ?? false,
        tags: input.tags ?? [],
        customerImpact: input.customerImpact ?? null,
      },
      'input',
    );
  }

  /** The incident as an editable document with its version (drafts included), for edit forms; null when there is none. */
  async document(slug: string): Promise<{ doc: IncidentDocument; status: IncidentStatusValue; version: number } | null> {
    const snapshot = await loadIncidentSnapshot(this.prisma, { slug });
    return snapshot ? { doc: snapshot.doc, status: snapshot.status, version: snapshot.row.version } : null;
  }

  update(slug: string, expectedVersion: number, patch: IncidentPatch, actor: Actor, note?: string | null): Promise<IncidentRecord> {
    return this.change(slug, expectedVersion, actor, note, (path) => `patch.${path}`, (current) => {
      const next = clone(current);
      const d = next.doc;
      const set = <K extends keyof IncidentPatch>(name: K, apply: (value: NonNullable<IncidentPatch[K]>) => void) => {
        const value = patch[name];
        if (value === undefined) return;
        if (value === null) throw AppError.badField(`patch.${name}`, 'cannot be null');
        apply(value as NonNullable<IncidentPatch[K]>);
      };
      set('slug', (v) => (d.slug = v));
      set('status', (v) => (next.status = v));
      set('title', (v) => (d.title = v));
      set('organization', (v) => (d.organization = v));
      set('components', (v) => (d.components = v));
      set('summary', (v) => (d.summary = v));
      set('narrative', (v) => (d.narrative = v));
      set('impact', (v) => (d.impact = v));
      set('patterns', (v) => (d.patterns = v));
      set('source', (v) => (d.source = { ...d.source, ...stripUndefined(v) }));
      if (patch.severity !== undefined) d.severity = patch.severity;
      if (patch.customerImpact !== undefined) d.customerImpact = patch.customerImpact;
      set('nearMiss', (v) => (d.nearMiss = v));
      set('tags', (v) => (d.tags = v));
      set('keyTimes', (v) => {
        for (const name of ['started', 'detected', 'mitigated', 'resolved'] as const) {
          const t = v[name];
          if (t === undefined) continue;
          d.keyTimes[name] = t === null || (t.at === null && t.precision === 'none') ? null : t;
        }
      });
      return next;
    });
  }

  upsertTimelineEvent(slug: string, expectedVersion: number, input: TimelineEventInput, position: number | null | undefined, actor: Actor, note?: string | null) {
    let index = -1;
    return this.change(slug, expectedVersion, actor, note, (path) => path.replace(`timeline[${index}]`, 'event'), (current) => {
      const next = clone(current);
      const event = timelineEventDocument(input);
      next.doc.timeline = placeAt(next.doc.timeline, event, position, 'position');
      index = next.doc.timeline.findIndex((e) => e.key === event.key);
      return next;
    });
  }

  deleteTimelineEvent(slug: string, expectedVersion: number, key: string, actor: Actor, note?: string | null) {
    return this.change(slug, expectedVersion, actor, note, (path) => path, (current) => {
      if (!current.doc.timeline.some((e) => e.key === key)) throw AppError.notFound('Timeline event', `${slug}#${key}`, 'key');
      const next = clone(current);
      next.doc.timeline = next.doc.timeline.filter((e) => e.key !== key);
      return next;
    });
  }

  upsertCausalFactor(slug: string, expectedVersion: number, factor: CausalFactorDocument, position: number | null | undefined, actor: Actor, note?: string | null) {
    let index = -1;
    return this.change(slug, expectedVersion, actor, note, (path) => path.replace(`causalFactors[${index}]`, 'factor'), (current) => {
      const next = clone(current);
      // A factor sent without a title keeps the one it has (clients that predate titles).
      const stored = next.doc.causalFactors.find((f) => f.key === factor.key);
      const written = factor.title === undefined && stored?.title != null ? { ...factor, title: stored.title } : factor;
      next.doc.causalFactors = placeAt(next.doc.causalFactors, written, position, 'position');
      index = next.doc.causalFactors.findIndex((f) => f.key === factor.key);
      return next;
    });
  }

  /** Also removes the factor's causal links; refused while an actionable still addresses it. */
  deleteCausalFactor(slug: string, expectedVersion: number, key: string, actor: Actor, note?: string | null) {
    return this.change(slug, expectedVersion, actor, note, (path) => path, (current) => {
      if (!current.doc.causalFactors.some((f) => f.key === key)) throw AppError.notFound('Causal factor', `${slug}#${key}`, 'key');
      const addressing = current.doc.actionables.filter((a) => a.addresses.includes(key)).map((a) => a.key);
      if (addressing.length > 0) throw addressedFactor(key, addressing);
      const next = clone(current);
      next.doc.causalFactors = next.doc.causalFactors.filter((f) => f.key !== key);
      next.doc.causalLinks = next.doc.causalLinks.filter((l) => l.from !== key && l.to !== key);
      return next;
    });
  }

  /** A link is identified by its ends and kind, so "upsert" adds it when it is not there yet. */
  upsertCausalLink(slug: string, expectedVersion: number, link: CausalLinkDocument, actor: Actor, note?: string | null) {
    let index = -1;
    return this.change(slug, expectedVersion, actor, note, (path) => path.replace(`causalLinks[${index}]`, 'link'), (current) => {
      const next = clone(current);
      if (!next.doc.causalLinks.some((l) => linkKey(l) === linkKey(link))) next.doc.causalLinks.push(link);
      index = next.doc.causalLinks.findIndex((l) => linkKey(l) === linkKey(link));
      return next;
    });
  }

  deleteCausalLink(slug: string, expectedVersion: number, link: CausalLinkDocument, actor: Actor, note?: string | null) {
    return this.change(slug, expectedVersion, actor, note, (path) => path, (current) => {
      if (!current.doc.causalLinks.some((l) => linkKey(l) === linkKey(link))) throw AppError.notFound('Causal link', `${slug}#${linkKey(link)}`, 'link');
      const next = clone(current);
      next.doc.causalLinks = next.doc.causalLinks.filter((l) => linkKey(l) !== linkKey(link));
      return next;
    });
  }

  /** Admin only (the API enforces the role). Old slugs go with it; the audit trail stays. */
  async delete(slug: string, expectedVersion: number, actor: Actor, note?: string | null): Promise<string> {
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    return inWriteTransaction(this.prisma, async (tx) => {
      const current = await this.loadForWrite(tx, slug, expectedVersion);
      const deleted = await tx.incident.deleteMany({ where: { id: current.row.id, version: expectedVersion } });
      if (deleted.count !== 1) await this.raiseConflict(tx, current.row.id, slug, expectedVersion);
      await appendAuditEvents(tx, actor, new Date(), noteText, [
        { entity: 'incident', entityKey: slug, action: 'delete', from: incidentSummary(current), incidentId: current.row.id, version: current.row.version },
      ]);
      return current.row.id;
    });
  }

  private async change(slug: string, expectedVersion: number, actor: Actor, note: string | null | undefined, path: PathMap, edit: Edit): Promise<IncidentRecord> {
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    return inWriteTransaction(this.prisma, async (tx) => {
      // The input is checked before the version: a caller told CONFLICT re-reads and sends the
      // same values again, so problems with them are worth reporting first.
      const before = await this.loadForWrite(tx, slug);
      const after = edit(before);
      after.doc = this.validate(after.doc, path);
      const diff = diffIncident(before, after);
      const id = before.row.id;
      if (renamesIncident(diff)) await this.checkSlugFree(tx, after.doc.slug, id, path('slug'));
      if (diff.patterns) await this.checkPatterns(tx, after.doc.patterns, path('patterns'));
      // Only a new level is checked: a level the scale no longer lists stays until someone changes it.
      if (diff.scalars.some((s) => s.field === 'severity')) checkSeverity(after.doc.severity, this.options.severityLevels, path('severity'));
      if (before.row.version !== expectedVersion) throw AppError.staleVersion('Incident', slug, expectedVersion, before.row.version, incidentValues(before));
      if (isEmptyDiff(diff)) return before.row;
      if (diff.factors.deleted.length > 0) {
        // The incident's row before its factors, as every writer of an incident's parts takes them:
        // two edits (or an edit and an actionable write) that locked factors first could each hold
        // a row the other needs. The claim below finds the row already locked.
        await lockIncidentRow(tx, id, renamesIncident(diff));
        await this.lockUnaddressedFactors(tx, before, diff.factors.deleted.map((f) => f.key));
      }

      // The one writer claims the version in SQL before any child row is touched.
      const written = await writeIncident(tx, { before, after, expectedVersion, diff });
      if (renamesIncident(diff)) {
        // Old links keep working: the previous slug becomes an alias; renaming back reclaims it.
        await tx.incidentSlugAlias.deleteMany({ where: { slug: after.doc.slug, incidentId: id } });
        await tx.incidentSlugAlias.upsert({ where: { slug: before.doc.slug }, create: { slug: before.doc.slug, incidentId: id }, update: {} });
      }
      const row = await tx.incident.findUniqueOrThrow({ where: { id } });
      await appendAuditEvents(tx, actor, row.updatedAt, noteText, auditDrafts(id, after.doc.slug, written.version, diff));
      return row;
    });
  }

  /** Validates, then writes instants the way the database gives them back, so equal times compare equal. */
  private validate(doc: IncidentDocument, path: PathMap): IncidentDocument {
    try {
      return withStoredInstants({ doc: validateIncidentDocument(doc), status: 'draft' }).doc;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'BAD_USER_INPUT') throw error;
      const problems = (error.details.problems as FieldProblem[]).map((p) => ({ ...p, field: path(p.field) }));
      throw AppError.badInput(problems);
    }
  }

  /** The incident as it is now; with `expectedVersion`, CONFLICT unless it is at that version. */
  private async loadForWrite(tx: Tx, slug: string, expectedVersion?: number): Promise<IncidentSnapshot> {
    const current = await loadIncidentSnapshot(tx, { slug });
    if (!current) {
      const alias = await tx.incidentSlugAlias.findUnique({ where: { slug }, include: { incident: { select: { slug: true } } } });
      if (alias) {
        throw new AppError('NOT_FOUND', `Incident "${slug}" was renamed to "${alias.incident.slug}"; write to the current slug.`, {
          what: 'Incident',
          id: slug,
          field: 'slug',
          renamedTo: alias.incident.slug,
        });
      }
      throw AppError.notFound('Incident', slug, 'slug');
    }
    if (expectedVersion !== undefined && current.row.version !== expectedVersion) {
      throw AppError.staleVersion('Incident', slug, expectedVersion, current.row.version, incidentValues(current));
    }
    return current;
  }

  private async raiseConflict(tx: Tx, id: string, slug: string, expectedVersion: number): Promise<never> {
    const now = await loadIncidentSnapshot(tx, { id });
    if (!now) throw AppError.notFound('Incident', slug, 'slug');
    throw AppError.staleVersion('Incident', slug, expectedVersion, now.row.version, incidentValues(now));
  }

  private async checkSlugFree(tx: Tx, slug: string, incidentId: string | null, field: string): Promise<void> {
    const [owner, alias] = await Promise.all([
      tx.incident.findUnique({ where: { slug }, select: { id: true } }),
      tx.incidentSlugAlias.findUnique({ where: { slug }, select: { incidentId: true } }),
    ]);
    if (owner && owner.id !== incidentId) throw new AppError('CONFLICT', `${field}: another incident already uses the slug "${slug}".`, { field, slug });
    if (alias && alias.incidentId !== incidentId) {
      throw new AppError('CONFLICT', `${field}: "${slug}" is a former slug of another incident; links to it must keep working.`, { field, slug });
    }
  }

  private async checkPatterns(tx: Tx, keys: string[], field: string): Promise<void> {
    const known = new Set((await tx.pattern.findMany({ where: { key: { in: keys } }, select: { key: true } })).map((p) => p.key));
    const unknown = keys.map((k, i) => ({ k, i })).filter(({ k }) => !known.has(k));
    if (unknown.length > 0) {
      throw AppError.badInput(unknown.map(({ k, i }) => ({ field: `${field}[${i}]`, reason: `unknown pattern "${k}"` })));
    }
  }

  /**
   * Locks the factors about to be deleted, then checks no actionable addresses them. The lock
   * makes a concurrent actionable write that adds such a reference wait for this transaction
   * (and then fail on the missing factor), instead of losing its reference to a cascade.
   */
  private async lockUnaddressedFactors(tx: Tx, before: IncidentSnapshot, keys: string[]): Promise<void> {
    const ids = keys.map((k) => before.factorIds.get(k)!.id);
    await tx.$queryRaw`SELECT "id" FROM "CausalFactor" WHERE "id" IN (${Prisma.join(ids.map((id) => Prisma.sql`${id}::uuid`))}) FOR UPDATE`;
    const rows = await tx.actionableFactor.findMany({
      where: { factorId: { in: ids } },
      include: { actionable: { select: { key: true } }, factor: { select: { key: true } } },
    });
    if (rows.length > 0) throw addressedFactor(rows[0]!.factor.key, rows.map((r) => r.actionable.key));
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function addressedFactor(key: string, actionables: string[]): AppError {
  return new AppError(
    'BAD_USER_INPUT',
    `key: causal factor "${key}" is addressed by actionable ${actionables.map((a) => `"${a}"`).join(', ')}; remove it from their addresses first.`,
    { field: 'key', problems: [{ field: 'key', reason: 'addressed by actionables' }], actionables },
  );
}

function auditDrafts(incidentId: string, slug: string, version: number, diff: IncidentDiff): AuditDraft[] {
  const base = { incidentId, version };
  const drafts: AuditDraft[] = diff.scalars.map((s) => ({ ...base, entity: 'incident', entityKey: slug, action: 'update', field: s.field, from: s.from, to: s.to }));
  if (diff.patterns) drafts.push({ ...base, entity: 'incident', entityKey: slug, action: 'update', field: 'patterns', ...diff.patterns });
  const children = (entity: 'timeline_event' | 'causal_factor', orderField: string, c: IncidentDiff['timeline'] | IncidentDiff['factors']) => {
    for (const { item } of c.created) drafts.push({ ...base, entity, entityKey: item.key, action: 'create', to: diffValue(item) });
    for (const { item, fields } of c.updated) {
      for (const f of fields) drafts.push({ ...base, entity, entityKey: item.key, action: 'update', field: f.field, from: f.from, to: f.to });
    }
    for (const item of c.deleted) drafts.push({ ...base, entity, entityKey: item.key, action: 'delete', from: diffValue(item) });
    if (c.reordered) drafts.push({ ...base, entity: 'incident', entityKey: slug, action: 'update', field: orderField, ...c.reordered });
  };
  children('causal_factor', 'causalFactors.order', diff.factors);
  children('timeline_event', 'timeline.order', diff.timeline);
  for (const l of diff.links.removed) drafts.push({ ...base, entity: 'causal_link', entityKey: linkKey(l), action: 'delete', from: diffValue(l) });
  for (const l of diff.links.added) drafts.push({ ...base, entity: 'causal_link', entityKey: linkKey(l), action: 'create', to: diffValue(l) });
  return drafts;
}
