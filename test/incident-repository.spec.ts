import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { AppError, type IncidentDocument } from '@hindsight/domain';
import { loadIncidentSnapshot, readSeedFiles, writeIncident, writeIncidentDocument } from '@hindsight/incidents';
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
});
