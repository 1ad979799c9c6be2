import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, type ActionableStatus, type ExternalReferenceDocument } from '@hindsight/domain';
import { checkActionablePatch, formatCalendarDate, KEY, keyFromTitle, MAX_KEY_LENGTH, type CheckedActionablePatch } from './actionable-input.validator';
import { CLOSED_STATUSES, checkTransition } from './actionable-workflow';
import { diffValue, refreshSearchDocuments, sameValue } from '@hindsight/incidents';
import { appendAuditEvents, type AuditDraft } from './audit-log';
import { TRACKING_OPTIONS, trackersFor, type TrackerBases, type TrackingOptions } from './tracking-options';
import type { ActionablePatch, Actor, AuditValue, CreateActionableInput, TrackedActionableRecord } from './tracking.types';
import { checkExpectedVersion, checkId, checkNote, inWriteTransaction } from './write-transaction';

type Tx = Prisma.TransactionClient;

/** Fields of an actionable that its incident's search document holds (see search-document.ts). */
const INDEXED_FIELDS = new Set(['title', 'description', 'references']);

/** Owner columns to write: absent ones stay as they are. */
type OwnerColumns = { owner?: string | null; ownerAccountId?: string | null; ownerTeamId?: string | null; ownerName?: string | null };

const WITH_CHILDREN = {
  references: { orderBy: { position: 'asc' } },
  addresses: { include: { factor: { select: { key: true, position: true } } } },
  ownerAccount: { select: { name: true } },
  ownerTeam: { select: { name: true } },
} as const satisfies Prisma.ActionableInclude;

type LoadedActionable = TrackedActionableRecord & {
  references: { kind: ExternalReferenceDocument['kind']; ref: string; url: string | null }[];
  addresses: { factor: { key: string; position: number } }[];
  ownerAccountId: string | null;
  ownerTeamId: string | null;
  ownerAccount: { name: string } | null;
  ownerTeam: { name: string } | null;
};

/** The values a person sees, as the audit trail and CONFLICT answers show them. */
export function actionableSnapshot(a: LoadedActionable): { [key: string]: AuditValue } {
  return {
    key: a.key,
    title: a.title,
    description: a.description,
    owner: a.owner,
    ownerAccount: a.ownerAccount?.name ?? null,
    ownerTeam: a.ownerTeam?.name ?? null,
    status: a.status,
    dueDate: formatCalendarDate(a.dueDate),
    priority: a.priority,
    addresses: addressKeys(a),
    references: a.references.map((r) => r.ref),
    closedAt: diffValue(a.closedAt),
    closedBy: a.closedBy,
    wontDoReason: a.wontDoReason,
    version: a.version,
  };
}

function addressKeys(a: LoadedActionable): string[] {
  return [...a.addresses].sort((x, y) => x.factor.position - y.factor.position).map((x) => x.factor.key);
}

/**
 * Writes to actionables: create, edit, move through the workflow, delete. Each runs in one
 * interactive transaction that checks the caller's `expectedVersion` in the UPDATE itself
 * (`WHERE id = … AND version = …`), so of two writers that read the same version exactly one
 * succeeds, and the audit events commit with the change or not at all.
 *
 * Actionables carry their own version, separate from their incident's: tracking work on one item
 * never makes an editor's correction of the incident record stale, and vice versa.
 */
@Injectable()
export class ActionableWritesService {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(TRACKING_OPTIONS) private readonly options: TrackingOptions,
  ) {}

  /**
   * The trackers of the incident's organization, to recognise references (and spot two spellings
   * of one) as that organization writes them. Links are worked out again on every read.
   */
  private async trackersOf(where: Prisma.IncidentWhereInput): Promise<TrackerBases> {
    const incident = await this.prisma.incident.findFirst({ where, select: { organization: true } });
    return trackersFor(this.options.trackers, incident?.organization);
  }

  async create(input: CreateActionableInput, actor: Actor, note?: string | null): Promise<TrackedActionableRecord> {
    const noteText = checkNote(note);
    const { incident: slug, key: wantedKey, ...fields } = input;
    const checked = checkActionablePatch({ description: '', ...fields }, await this.trackersOf({ slug }), 'input.');
    if (wantedKey != null && (!KEY.test(wantedKey) || wantedKey.length > MAX_KEY_LENGTH)) {
      throw AppError.badField('input.key', `expected lower-case letters, digits and dashes (at most ${MAX_KEY_LENGTH} characters)`);
    }
    return inWriteTransaction(this.prisma, async (tx) => {
      // Serialises creations within one incident, so key and position choices cannot collide.
      const [incident] = await tx.$queryRaw<{ id: string }[]>`
        SELECT "id"::text AS id FROM "Incident" WHERE "slug" = ${slug} FOR NO KEY UPDATE`;
      if (!incident) throw AppError.notFound('Incident', slug, 'input.incident');
      const factorIds = await this.factorIds(tx, incident.id, checked.addresses ?? [], 'input.addresses');
      const key = wantedKey ?? (await this.freeKey(tx, incident.id, keyFromTitle(checked.title!)));
      if (wantedKey != null && (await tx.actionable.count({ where: { incidentId: incident.id, key } })) > 0) {
        throw new AppError('CONFLICT', `Incident "${slug}" already has an actionable "${key}".`, { key });
      }
      const { ownerName: _name, ...ownerColumns } = await this.ownerIds(tx, checked, 'input.');
      const last = await tx.actionable.aggregate({ where: { incidentId: incident.id }, _max: { position: true } });
      const now = new Date();
      const created = await tx.actionable.create({
        data: {
          incidentId: incident.id,
          key,
          position: (last._max.position ?? -1) + 1,
          title: checked.title!,
          description: checked.description ?? '',
          owner: checked.owner ?? null,
          ...ownerColumns,
          dueDate: checked.dueDate ?? null,
          priority: checked.priority ?? null,
          createdAt: now,
          updatedAt: now,
        },
      });
      await this.writeReferences(tx, created.id, checked.references ?? []);
      await tx.actionableFactor.createMany({ data: factorIds.map((factorId) => ({ actionableId: created.id, factorId })) });
      await refreshSearchDocuments(tx, [incident.id]);
      const loaded = await this.load(tx, created.id);
      await appendAuditEvents(tx, actor, now, noteText, [
        {
          entity: 'actionable',
          entityKey: key,
          action: 'create',
          to: actionableSnapshot(loaded!),
          incidentId: incident.id,
          actionableId: created.id,
          version: created.version,
        },
      ]);
      return loaded!;
    });
  }

  async update(id: string, expectedVersion: number, patch: ActionablePatch, actor: Actor, note?: string | null): Promise<TrackedActionableRecord> {
    checkId('Actionable', id);
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    const checked = checkActionablePatch(patch, await this.trackersOf({ actionables: { some: { id } } }), 'patch.');
    return inWriteTransaction(this.prisma, async (tx) => {
      await this.lockIncidentOf(tx, id);
      await this.updateIn(tx, id, expectedVersion, checked, actor, noteText, 'patch.');
      return (await this.load(tx, id))!;
    });
  }

  async transition(id: string, to: ActionableStatus, expectedVersion: number, actor: Actor, note?: string | null): Promise<TrackedActionableRecord> {
    checkId('Actionable', id);
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    return inWriteTransaction(this.prisma, async (tx) => {
      await this.transitionIn(tx, id, to, expectedVersion, actor, noteText);
      return (await this.load(tx, id))!;
    });
  }

  /**
   * A status move and a patch in one transaction, against one version read (what a page's form
   * sends): either both land, or neither does. The status moves first, so a closing note is the
   * reason, and the patch applies to the version the move made.
   */
  async edit(
    id: string,
    expectedVersion: number,
    change: { status?: ActionableStatus | null; patch: ActionablePatch },
    actor: Actor,
    note?: string | null,
  ): Promise<TrackedActionableRecord> {
    checkId('Actionable', id);
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    const checked = checkActionablePatch(change.patch, await this.trackersOf({ actionables: { some: { id } } }));
    return inWriteTransaction(this.prisma, async (tx) => {
      await this.lockIncidentOf(tx, id);
      let version = expectedVersion;
      const current = await this.loadForWrite(tx, id, expectedVersion);
      if (change.status && change.status !== current.status) version = await this.transitionIn(tx, id, change.status, version, actor, noteText);
      await this.updateIn(tx, id, version, checked, actor, change.status && change.status !== current.status ? null : noteText, '');
      return (await this.load(tx, id))!;
    });
  }

  /** The actionable `key` of incident `slug` with everything a form shows, or null. */
  async findByKey(slug: string, key: string): Promise<(TrackedActionableRecord & { snapshot: { [key: string]: AuditValue } }) | null> {
    const row = await this.prisma.actionable.findFirst({ where: { key, incident: { slug } }, include: WITH_CHILDREN });
    return row ? { ...row, snapshot: actionableSnapshot(row) } : null;
  }

  /** Returns the version after the patch. */
  private async updateIn(tx: Tx, id: string, expectedVersion: number, checked: CheckedActionablePatch, actor: Actor, noteText: string | null, prefix: string): Promise<number> {
    // Unknown factors are reported before a stale version: re-reading would not fix them.
    const current = await this.loadForWrite(tx, id);
    const factorIds = checked.addresses ? await this.factorIds(tx, current.incidentId, checked.addresses, `${prefix}addresses`) : null;
    if (current.version !== expectedVersion) throw this.conflictFor(current, expectedVersion);
    const changes = this.diff(current, checked, await this.ownerIds(tx, checked, prefix));
    if (changes.length === 0) return current.version;
    const scalars = Object.fromEntries(
      changes.filter((c) => c.column !== undefined).map((c) => [c.column!, c.value]),
    ) as Prisma.ActionableUpdateManyMutationInput;
    const now = new Date();
    await this.claim(tx, current, expectedVersion, { ...scalars, updatedAt: now });
    if (checked.references && changes.some((c) => c.field === 'references')) {
      await tx.externalReference.deleteMany({ where: { actionableId: id } });
      await this.writeReferences(tx, id, checked.references);
    }
    if (factorIds && changes.some((c) => c.field === 'addresses')) {
      await tx.actionableFactor.deleteMany({ where: { actionableId: id } });
      await tx.actionableFactor.createMany({ data: factorIds.map((factorId) => ({ actionableId: id, factorId })) });
    }
    if (changes.some((c) => INDEXED_FIELDS.has(c.field))) await refreshSearchDocuments(tx, [current.incidentId]);
    await appendAuditEvents(
      tx,
      actor,
      now,
      noteText,
      changes.map((c) => this.event(current, 'update', c.field, c.from, c.to)),
    );
    return current.version + 1;
  }

  /** Returns the version after the move. */
  private async transitionIn(tx: Tx, id: string, to: ActionableStatus, expectedVersion: number, actor: Actor, noteText: string | null): Promise<number> {
    const current = await this.loadForWrite(tx, id, expectedVersion);
    checkTransition(current.status, to, noteText);
    const now = new Date();
    const closing = CLOSED_STATUSES.includes(to);
    await this.claim(tx, current, expectedVersion, {
      status: to,
      closedAt: closing ? now : null,
      closedBy: closing ? actor.name : null,
      wontDoReason: to === 'wont_do' ? noteText : null,
      updatedAt: now,
    });
    await appendAuditEvents(tx, actor, now, noteText, [this.event(current, 'update', 'status', current.status, to)]);
    return current.version + 1;
  }

  /** Admin only (the API enforces the role). The audit trail keeps the last values. */
  async delete(id: string, expectedVersion: number, actor: Actor, note?: string | null): Promise<string> {
    checkId('Actionable', id);
    checkExpectedVersion(expectedVersion);
    const noteText = checkNote(note);
    return inWriteTransaction(this.prisma, async (tx) => {
      await this.lockIncidentOf(tx, id);
      const current = await this.loadForWrite(tx, id, expectedVersion);
      const deleted = await tx.actionable.deleteMany({ where: { id, version: expectedVersion } });
      if (deleted.count !== 1) await this.raiseConflict(tx, id, expectedVersion);
      await refreshSearchDocuments(tx, [current.incidentId]);
      await appendAuditEvents(tx, actor, new Date(), noteText, [
        { ...this.event(current, 'delete', null, actionableSnapshot(current), null), version: current.version },
      ]);
      return id;
    });
  }

  /**
   * Locks the incident of an actionable before the actionable itself, the order incident edits
   * and deletions take them in, so a write that refreshes the incident's search document
   * cannot deadlock with them. An unknown id locks nothing (the write then says NOT_FOUND).
   */
  private async lockIncidentOf(tx: Tx, actionableId: string): Promise<void> {
    await tx.$queryRaw`SELECT i."id" FROM "Incident" i JOIN "Actionable" a ON a."incidentId" = i."id"
      WHERE a."id" = ${actionableId}::uuid FOR NO KEY UPDATE OF i`;
  }

  private async load(tx: Tx, id: string): Promise<LoadedActionable | null> {
    return tx.actionable.findUnique({ where: { id }, include: WITH_CHILDREN });
  }

  /** The row as the caller must have read it: NOT_FOUND, or CONFLICT with the current values. */
  private async loadForWrite(tx: Tx, id: string, expectedVersion?: number): Promise<LoadedActionable> {
    const current = await this.load(tx, id);
    if (!current) throw AppError.notFound('Actionable', id, 'id');
    if (expectedVersion !== undefined && current.version !== expectedVersion) throw this.conflictFor(current, expectedVersion);
    return current;
  }

  /**
   * The optimistic-concurrency check, in SQL: the UPDATE only matches the version the caller
   * read. A concurrent writer holding the row makes this wait, then match nothing.
   */
  private async claim(tx: Tx, current: LoadedActionable, expectedVersion: number, data: Prisma.ActionableUpdateManyMutationInput): Promise<void> {
    const updated = await tx.actionable.updateMany({
      where: { id: current.id, version: expectedVersion },
      data: { ...data, version: { increment: 1 } },
    });
    if (updated.count !== 1) await this.raiseConflict(tx, current.id, expectedVersion);
  }

  private async raiseConflict(tx: Tx, id: string, expectedVersion: number): Promise<never> {
    const now = await this.load(tx, id);
    if (!now) throw AppError.notFound('Actionable', id, 'id');
    throw this.conflictFor(now, expectedVersion);
  }

  private conflictFor(current: LoadedActionable, expectedVersion: number): AppError {
    return AppError.staleVersion('Actionable', current.id, expectedVersion, current.version, {
      id: current.id,
      ...actionableSnapshot(current),
      updatedAt: current.updatedAt.toISOString(),
    });
  }

  private event(current: LoadedActionable, action: AuditDraft['action'], field: string | null, from: unknown, to: unknown): AuditDraft {
    return {
      entity: 'actionable',
      entityKey: current.key,
      action,
      field,
      from: diffValue(from),
      to: diffValue(to),
      incidentId: current.incidentId,
      actionableId: current.id,
      version: current.version + 1,
    };
  }

  /**
   * The owner columns a patch sets: one owner (free text, account or team) and the other two
   * cleared. Names are resolved here, inside the write's transaction; an unknown or disabled
   * account, or an unknown team, is BAD_USER_INPUT naming the field.
   */
  private async ownerIds(tx: Tx, patch: CheckedActionablePatch, prefix: string): Promise<OwnerColumns> {
    if (patch.ownerAccount !== undefined) {
      if (patch.ownerAccount === null) return { owner: null, ownerAccountId: null, ownerTeamId: null };
      const account = await tx.account.findUnique({ where: { name: patch.ownerAccount }, select: { id: true, disabledAt: true } });
      if (!account) throw AppError.badField(`${prefix}ownerAccount`, `there is no account named "${patch.ownerAccount}"`);
      if (account.disabledAt) throw AppError.badField(`${prefix}ownerAccount`, `the account "${patch.ownerAccount}" is disabled`);
      return { owner: null, ownerAccountId: account.id, ownerTeamId: null, ownerName: patch.ownerAccount };
    }
    if (patch.ownerTeam !== undefined) {
      if (patch.ownerTeam === null) return { owner: null, ownerAccountId: null, ownerTeamId: null };
      const team = await tx.team.findFirst({ where: { name: { equals: patch.ownerTeam, mode: 'insensitive' } }, select: { id: true, name: true } });
      if (!team) throw AppError.badField(`${prefix}ownerTeam`, `there is no team named "${patch.ownerTeam}"`);
      return { owner: null, ownerAccountId: null, ownerTeamId: team.id, ownerName: team.name };
    }
    if (patch.owner !== undefined) return { owner: patch.owner, ownerAccountId: null, ownerTeamId: null };
    return {};
  }

  private diff(current: LoadedActionable, patch: CheckedActionablePatch, owners: OwnerColumns) {
    type Change = { field: string; column?: string; value?: unknown; from: unknown; to: unknown };
    const changes: Change[] = [];
    const scalar = (field: keyof CheckedActionablePatch & keyof LoadedActionable, from: unknown, to: unknown, value: unknown) => {
      if (patch[field] !== undefined && !sameValue(from, to)) changes.push({ field, column: field, value, from, to });
    };
    scalar('title', current.title, patch.title, patch.title);
    scalar('description', current.description, patch.description, patch.description);
    // Each owner column that changes is one audited field; names, not ids, in the trail.
    if (owners.owner !== undefined && !sameValue(current.owner, owners.owner)) changes.push({ field: 'owner', column: 'owner', value: owners.owner, from: current.owner, to: owners.owner });
    if (owners.ownerAccountId !== undefined && current.ownerAccountId !== owners.ownerAccountId) {
      changes.push({ field: 'ownerAccount', column: 'ownerAccountId', value: owners.ownerAccountId, from: current.ownerAccount?.name ?? null, to: owners.ownerAccountId ? owners.ownerName : null });
    }
    if (owners.ownerTeamId !== undefined && current.ownerTeamId !== owners.ownerTeamId) {
      changes.push({ field: 'ownerTeam', column: 'ownerTeamId', value: owners.ownerTeamId, from: current.ownerTeam?.name ?? null, to: owners.ownerTeamId ? owners.ownerName : null });
    }
    scalar('dueDate', formatCalendarDate(current.dueDate), formatCalendarDate(patch.dueDate ?? null), patch.dueDate);
    scalar('priority', current.priority, patch.priority, patch.priority);
    if (patch.addresses) {
      const from = addressKeys(current);
      const same = from.length === patch.addresses.length && patch.addresses.every((k) => from.includes(k));
      if (!same) changes.push({ field: 'addresses', from, to: patch.addresses });
    }
    if (patch.references) {
      const from = current.references.map((r) => ({ kind: r.kind, ref: r.ref, url: r.url }));
      if (!sameValue(from, patch.references)) {
        changes.push({ field: 'references', from: from.map((r) => r.ref), to: patch.references.map((r) => r.ref) });
      }
    }
    return changes;
  }

  private async factorIds(tx: Tx, incidentId: string, keys: string[], field: string): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await tx.causalFactor.findMany({ where: { incidentId, key: { in: keys } }, select: { id: true, key: true } });
    const unknown = keys.map((k, i) => ({ k, i })).filter(({ k }) => !rows.some((r) => r.key === k));
    if (unknown.length > 0) {
      throw AppError.badInput(unknown.map(({ k, i }) => ({ field: `${field}[${i}]`, reason: `the incident has no causal factor "${k}"` })));
    }
    return keys.map((k) => rows.find((r) => r.key === k)!.id);
  }

  private async freeKey(tx: Tx, incidentId: string, base: string): Promise<string> {
    const taken = new Set(
      (await tx.actionable.findMany({ where: { incidentId, key: { startsWith: base } }, select: { key: true } })).map((r) => r.key),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  private async writeReferences(tx: Tx, actionableId: string, refs: ExternalReferenceDocument[]): Promise<void> {
    if (refs.length === 0) return;
    await tx.externalReference.createMany({ data: refs.map((r, position) => ({ actionableId, position, kind: r.kind, ref: r.ref, url: r.url })) });
  }
}
