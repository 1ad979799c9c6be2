import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { AppError, type IncidentDocument } from '@hindsight/domain';
import { Client } from 'pg';
import { loadIncidentSnapshot, readSeedFiles, writeIncident, writeIncidentDocument, writeIncidents } from '@hindsight/incidents';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

/**
 * The one writer of incident records (libs/incidents/src/incident-repository.ts), on a real
 * database: what it stores is what the document says, it returns the diff it applied, it touches
 * nothing when nothing changed, and a stale version writes nothing.
 */
describe('the incident repository', () => {
  let db: TestDatabase;
  let prisma: ReturnType<typeof testPrisma>;
  let doc: IncidentDocument;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
    const stackegg = readSeedFiles(path.join(projectRoot(), 'seeds')).incidents.find((d) => d.slug.startsWith('stackegg'))!;
    doc = { ...structuredClone(stackegg), slug: 'repository-test', title: 'Repository test' };
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const stored = (slug: string) => prisma.$transaction((tx) => loadIncidentSnapshot(tx, { slug }));

  it('creates a new incident by diffing it against the empty record, and reads back the same document', async () => {
    const written = await prisma.$transaction((tx) => writeIncidentDocument(tx, doc, { status: 'draft' }));
    expect(written).toMatchObject({ created: true, changed: true, version: 1 });
    expect(written.diff.timeline.created).toHaveLength(doc.timeline.length);
    expect(written.diff.actionables.created.map((c) => c.item.key)).toEqual(doc.actionables.map((a) => a.key));
    const back = (await stored(doc.slug))!;
    expect(back.status).toBe('draft');
    expect(back.doc.timeline).toEqual(doc.timeline.map((e) => ({ ...e, at: e.at && new Date(e.at).toISOString() })));
    expect(back.doc.causalFactors).toEqual(doc.causalFactors);
    expect(back.doc.actionables.map((a) => a.references)).toEqual(doc.actionables.map((a) => a.references));
  });

  it('writes nothing when nothing changed: same version, same timestamps', async () => {
    const before = await prisma.incident.findUniqueOrThrow({ where: { slug: doc.slug } });
    const written = await prisma.$transaction((tx) => writeIncidentDocument(tx, doc, { status: 'draft' }));
    expect(written).toMatchObject({ created: false, changed: false, version: before.version });
    const after = await prisma.incident.findUniqueOrThrow({ where: { slug: doc.slug } });
    expect(after.updatedAt).toEqual(before.updatedAt);
  });

  it('applies an edit as a diff: moved, changed and removed children, a follow-up version bumped, and returns that diff', async () => {
    const edited = structuredClone(doc);
    const [first, second, ...rest] = edited.timeline;
    edited.timeline = [second!, ...rest.slice(1)];
    edited.timeline[0] = { ...edited.timeline[0]!, text: 'Reworded.' };
    edited.actionables[0] = { ...edited.actionables[0]!, title: 'A new title' };
    const beforeRows = await prisma.actionable.findMany({ where: { incident: { slug: doc.slug } }, orderBy: { position: 'asc' } });
    const written = await prisma.$transaction((tx) => writeIncidentDocument(tx, edited, { status: 'draft' }));
    expect(written).toMatchObject({ created: false, changed: true, version: 2 });
    expect(written.diff.timeline.deleted.map((e) => e.key)).toEqual([first!.key, rest[0]!.key]);
    expect(written.diff.timeline.updated.map((u) => [u.item.key, u.position, u.fields.map((f) => f.field)])).toEqual([[second!.key, 0, ['text']]]);
    expect(written.diff.actionables.updated.map((u) => u.fields)).toEqual([[{ field: 'title', from: doc.actionables[0]!.title, to: 'A new title' }]]);
    const back = (await stored(doc.slug))!;
    expect(back.doc.timeline.map((e) => e.key)).toEqual(edited.timeline.map((e) => e.key));
    expect(back.doc.timeline[0]!.text).toBe('Reworded.');
    const rows = await prisma.actionable.findMany({ where: { incident: { slug: doc.slug } }, orderBy: { position: 'asc' } });
    expect(rows.map((r) => r.version)).toEqual(beforeRows.map((r, i) => (i === 0 ? r.version + 1 : r.version)));
  });

  it('writes an edited incident row once: its columns, its version and its search document in one statement', async () => {
    // Every version of the row outside a HOT update computes the phrase pairs index's entries
    // (search_pairs over the whole document) again, so each extra write of the row costs an edit.
    const edited = structuredClone((await stored(doc.slug))!.doc);
    edited.summary = `${edited.summary} Edited once more.`;
    const updates = await prisma.$transaction(async (tx) => {
      const count = async () =>
        Number((await tx.$queryRaw<{ n: bigint }[]>`SELECT pg_stat_get_xact_tuples_updated('"Incident"'::regclass) AS n`)[0]!.n);
      const before = await count();
      await writeIncidentDocument(tx, edited, { status: 'draft' });
      return (await count()) - before;
    });
    expect(updates).toBe(1);
    const found = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "Incident" WHERE slug = ${doc.slug} AND "searchDocument" @@ to_tsquery('simple', 'edited & once & more')`;
    expect(Number(found[0]!.n)).toBe(1);
  });

  it("keeps an incident's word list (typo matching) exact through edits, writing only the words that changed", async () => {
    const words = async () =>
      new Map(
        (
          await prisma.$queryRaw<{ word: string; xmin: string }[]>`SELECT w."word", w.xmin::text AS xmin FROM "SearchWord" w
            JOIN "Incident" i ON i."id" = w."incidentId" WHERE i."slug" = ${doc.slug}`
        ).map((r) => [r.word, r.xmin]),
      );
    const edit = async (summary: string) => {
      const current = (await stored(doc.slug))!;
      await prisma.$transaction((tx) => writeIncidentDocument(tx, { ...current.doc, summary }, { status: current.status }));
    };
    const original = (await stored(doc.slug))!.doc.summary;
    const before = await words();
    await edit(`${original} Zanzibarite quartz.`);
    const added = await words();
    expect(added.has('zanzibarite')).toBe(true);
    // Words the edit left alone keep the row version they had.
    const kept = [...before.keys()].filter((w) => added.has(w));
    expect(kept.length).toBeGreaterThan(50);
    expect(kept.filter((w) => added.get(w) !== before.get(w))).toEqual([]);
    await edit(original);
    const removed = await words();
    expect(removed.has('zanzibarite')).toBe(false);
    expect([...removed.keys()].sort()).toEqual([...before.keys()].sort());
  });

  it('refuses a stale version with CONFLICT and writes nothing of it', async () => {
    const before = (await stored(doc.slug))!;
    const edited = structuredClone(before.doc);
    edited.title = 'Lost update';
    const error = await prisma
      .$transaction((tx) => writeIncident(tx, { before, after: { doc: edited, status: 'draft' }, expectedVersion: before.row.version - 1 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CONFLICT', details: { expectedVersion: before.row.version - 1, currentVersion: before.row.version } });

    // A concurrent writer that claimed the version first: the second claim finds it gone.
    await prisma.incident.update({ where: { id: before.row.id }, data: { version: { increment: 1 } } });
    const raced = await prisma.$transaction((tx) => writeIncident(tx, { before, after: { doc: edited, status: 'draft' } })).catch((e: unknown) => e);
    expect(raced).toMatchObject({ code: 'CONFLICT', details: { currentVersion: before.row.version + 1 } });
    expect((await prisma.incident.findUniqueOrThrow({ where: { id: before.row.id } })).title).toBe('Repository test');
  });

  it('makes the second of two edits from the same version wait for the first, then answers it CONFLICT', async () => {
    const before = (await stored(doc.slug))!;
    const edit = (title: string) => ({ before, after: { doc: { ...structuredClone(before.doc), title }, status: 'draft' as const } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const firstClaimed = new Promise<void>((resolve) => (claimed = resolve));
    const first = prisma.$transaction(async (tx) => {
      await writeIncident(tx, edit('First writer'));
      claimed();
      await held;
    });
    await Promise.race([firstClaimed, first]);
    const second = prisma.$transaction((tx) => writeIncident(tx, edit('Second writer'))).catch((e: unknown) => e);
    // The second writer's claim is queued on the first one's row lock before the first commits.
    await untilSomeoneWaitsOnALock();
    release();
    await first;
    expect(await second).toMatchObject({ code: 'CONFLICT', details: { expectedVersion: before.row.version, currentVersion: before.row.version + 1 } });
    const row = await prisma.incident.findUniqueOrThrow({ where: { id: before.row.id } });
    expect([row.title, row.version]).toEqual(['First writer', before.row.version + 1]);
  });

  it('renames without deadlocking against a writer that holds a key-share lock on the incident and then locks it', async () => {
    // A row inserted with a foreign key to the incident holds a key-share lock on it; a rename
    // changes a key column and needs the strongest row lock, which the claim takes up front.
    const before = (await stored(doc.slug))!;
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM "Incident" WHERE "id" = $1 FOR KEY SHARE', [before.row.id]);
      const renamed = { ...structuredClone(before.doc), slug: 'repository-test-renamed' };
      const rename = prisma.$transaction((tx) => writeIncident(tx, { before, after: { doc: renamed, status: 'draft' } })).catch((e: unknown) => e);
      await untilSomeoneWaitsOnALock();
      // What refreshSearchDocuments does before it rewrites a search document.
      await other.query('SELECT 1 FROM "Incident" WHERE "id" = $1 FOR NO KEY UPDATE', [before.row.id]);
      await other.query('COMMIT');
      expect(await rename).toMatchObject({ changed: true, version: before.row.version + 1 });
    } finally {
      await other.end();
    }
    const row = await prisma.incident.findUniqueOrThrow({ where: { id: before.row.id } });
    expect(row.slug).toBe('repository-test-renamed');
  });

  it('refuses a batch that changes one incident twice, naming the field, and writes nothing of it', async () => {
    await prisma.$transaction((tx) => writeIncidentDocument(tx, { ...structuredClone(doc), slug: 'repository-batch-test' }, { status: 'draft' }));
    const before = (await stored('repository-batch-test'))!;
    const change = (title: string) => ({ before, after: { doc: { ...structuredClone(before.doc), title }, status: 'draft' as const } });
    const error = await prisma.$transaction((tx) => writeIncidents(tx, [change('One'), change('Two')])).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'changes' } });
    const row = await prisma.incident.findUniqueOrThrow({ where: { id: before.row.id } });
    expect([row.title, row.version]).toEqual([before.doc.title, before.row.version]);
  });

  /** Resolves once another session of this database waits on a lock (bounded: fails after 30 s of polling). */
  async function untilSomeoneWaitsOnALock(): Promise<void> {
    for (let polls = 0; polls < 1500; polls++) {
      const waiting = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
      if (Number(waiting[0]!.n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no session ever waited on a lock');
  }
});
