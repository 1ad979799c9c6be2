import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { ImportError, importCli } from '@hindsight/postmortem-parser';
import { DraftsService } from '@hindsight/drafts';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const ACTOR = { name: 'importer-test', tokenId: null };
const fixture = (name: string) => fs.readFileSync(path.join(projectRoot(), 'libs', 'postmortem-parser', 'test', 'fixtures', 'seed-sources', name), 'utf8');

describe('importing postmortems as drafts', () => {
  let db: TestDatabase;
  let prisma: ReturnType<typeof testPrisma>;
  let imports: DraftsService;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
    imports = new DraftsService(prisma, { maxBytes: 64 * 1024, trackers: {} });
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  it('creates a draft that readers do not see, with its report stored', async () => {
    const outcome = await imports.importDocument({ document: fixture('changeprop-feedback-loop-2016.md'), sourceUrl: 'https://wiki.example.org/Incident/ChangeProp', actor: ACTOR });
    expect(outcome.created).toBe(true);
    expect(outcome.incident.status).toBe('draft');
    // The curated seed owns the natural slug; the draft gets a free one beside it.
    expect(outcome.incident.slug).not.toBe('changeprop-feedback-loop-2016');
    const timeline = await prisma.timelineEvent.count({ where: { incidentId: outcome.incident.id } });
    expect(timeline).toBe(outcome.report.counts.timeline);
    expect(timeline).toBeGreaterThan(5);
    const stored = await prisma.importedDocument.findUniqueOrThrow({ where: { incidentId: outcome.incident.id } });
    expect(stored.contentHash).toBe(outcome.report.contentHash);
    expect(await prisma.incident.count({ where: { status: 'published' } })).toBe(4);
  });

  it('updates the same draft when the same document is imported again', async () => {
    const document = fixture('stackegg-haproxy-session-cap-2015.txt');
    const first = await imports.importDocument({ document, actor: ACTOR });
    const again = await imports.importDocument({ document: `${document}\n`, actor: ACTOR });
    expect(again.created).toBe(false);
    expect(again.incident.id).toBe(first.incident.id);
    expect(await prisma.importedDocument.count({ where: { contentHash: first.report.contentHash } })).toBe(1);
  });

  it('never overwrites a published incident', async () => {
    const document = fixture('apache-outbound-calls-without-timeouts-2011.txt');
    const draft = await imports.importDocument({ document, actor: ACTOR });
    const published = await imports.publish(draft.incident.slug, draft.incident.version, ACTOR);
    expect(published.status).toBe('published');
    const error = await imports.importDocument({ document, actor: ACTOR }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('CONFLICT');
    const after = await prisma.incident.findUniqueOrThrow({ where: { id: draft.incident.id } });
    expect(after.version).toBe(published.version);
  });

  it('publishes only at the expected version', async () => {
    const draft = await imports.importDocument({ document: fixture('slack-cache-metastability-2022.txt'), actor: ACTOR });
    await expect(imports.publish(draft.incident.slug, draft.incident.version + 7, ACTOR)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await prisma.incident.findUniqueOrThrow({ where: { id: draft.incident.id } })).status).toBe('draft');
  });

  it.each([
    ['an empty document', '   \n\n', 'EMPTY_DOCUMENT', /empty|white space/i],
    ['binary data', 'PK\u0000\u0003\u0004binary', 'BINARY_DATA', /binary/i],
    ['a document over the size limit', `# Big\n\n${'x'.repeat(70 * 1024)}`, 'TOO_LARGE', /limit|large/i],
  ])('refuses %s with a clear error and writes nothing', async (_name, document, code, message) => {
    const before = await prisma.incident.count();
    const error = await imports.importDocument({ document, actor: ACTOR }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).code).toBe(code);
    expect((error as ImportError).message).toMatch(message);
    expect(await prisma.incident.count()).toBe(before);
  });
});

describe('importPostmortem and publishIncident over GraphQL', () => {
  let t: TestApp;
  let as: (role: 'viewer' | 'editor' | 'admin') => Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    as = (await issueTokens(t)).as;
  });
  afterAll(async () => {
    await t.close();
  });

  const IMPORT = `mutation I($input: ImportPostmortemInput!) {
    importPostmortem(input: $input) {
      created
      incident { slug status version timeline { asWritten precision } actionables { status references { ref } } }
      report { format language warnings { code } unusedLines { line text } sections { kind confidence } }
    }
  }`;
  const document = `---
title: Queue consumer stalls on poison message
date: 2024-03-02
organization: Example Corp
---
# Queue consumer stalls on poison message

## Summary
A malformed message made every consumer crash and retry it forever.

## Timeline (UTC)
- 09:12 Deploy of the new message schema
- 09:20 Consumer lag alert fires
- ~09:45 Poison message moved to a dead-letter queue

## Action items
- [x] Add a dead-letter queue after five attempts (OPS-412)
- [ ] Alert on consumer restarts
`;

  it('refuses anonymous callers and viewers, leaving no draft behind', async () => {
    const anonymous = await t.gql(IMPORT, { input: { document } });
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const viewer = await t.gql(IMPORT, { input: { document } }, as('viewer'));
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const drafts = await t.gql<{ draftIncidents: { nodes: unknown[] } }>(`{ draftIncidents { nodes { incident { slug } } } }`, {}, as('editor'));
    expect(drafts.data.draftIncidents.nodes).toEqual([]);
  });

  it('lets an editor import, review and publish a draft', async () => {
    type Out = { importPostmortem: { created: boolean; incident: { slug: string; status: string; version: number; timeline: { asWritten: string; precision: string }[]; actionables: { status: string; references: { ref: string }[] }[] }; report: { format: string; warnings: { code: string }[]; sections: { kind: string }[] } } };
    const res = await t.gql<Out>(IMPORT, { input: { document, sourceUrl: 'https://wiki.example.com/pm/42' } }, as('editor'));
    expect(res.errors).toBeUndefined();
    const { incident, report, created } = res.data.importPostmortem;
    expect(created).toBe(true);
    expect(incident.status).toBe('DRAFT');
    expect(report.format).toBe('MARKDOWN');
    // Section kinds are the SectionKind enum, as every closed set of values is.
    expect(report.sections.map((x) => x.kind)).toEqual(expect.arrayContaining(['SUMMARY', 'TIMELINE', 'ACTIONABLES']));
    expect(incident.timeline.map((e) => e.asWritten)).toEqual(['09:12', '09:20', '~09:45']);
    expect(incident.timeline[2]!.precision).toBe('APPROXIMATE');
    expect(incident.actionables.map((a) => a.status)).toEqual(['DONE', 'OPEN']);
    expect(incident.actionables[0]!.references.map((r) => r.ref)).toEqual(['OPS-412']);

    const hidden = await t.gql(`query Q($slug: String!) { incident(slug: $slug) { slug } }`, { slug: incident.slug });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const review = await t.gql<{ draftIncidents: { nodes: { incident: { slug: string } }[] } }>(`{ draftIncidents { nodes { incident { slug } report { contentHash } } } }`, {}, as('editor'));
    expect(review.data.draftIncidents.nodes.map((d) => d.incident.slug)).toEqual([incident.slug]);

    const PUBLISH = `mutation P($slug: String!, $v: Int!) { publishIncident(input: { slug: $slug, expectedVersion: $v }) { incident { slug status version } } }`;
    const viewerPublish = await t.gql(PUBLISH, { slug: incident.slug, v: incident.version }, as('viewer'));
    expect(viewerPublish.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const stale = await t.gql(PUBLISH, { slug: incident.slug, v: incident.version + 1 }, as('editor'));
    expect(stale.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const published = await t.gql<{ publishIncident: { incident: { status: string } } }>(PUBLISH, { slug: incident.slug, v: incident.version }, as('editor'));
    expect(published.data.publishIncident.incident.status).toBe('PUBLISHED');
    const visible = await t.gql<{ incident: { slug: string } }>(`query Q($slug: String!) { incident(slug: $slug) { slug } }`, { slug: incident.slug });
    expect(visible.data.incident.slug).toBe(incident.slug);

    const again = await t.gql(IMPORT, { input: { document, sourceUrl: 'https://wiki.example.com/pm/42' } }, as('editor'));
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('keeps an organization and a component the document does not state empty, and flags them', async () => {
    const unstated = document.replace('organization: Example Corp\n', '').replace('## Action items', '## Root cause\n- A malformed message had no schema check.\n\n## Action items');
    type Out = { importPostmortem: { incident: { slug: string; organization: string | null; causalFactors: { component: string | null }[] }; report: { warnings: { code: string }[] } } };
    const res = await t.gql<Out>(
      `mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug organization causalFactors { component } } report { warnings { code } } } }`,
      { input: { document: unstated, sourceUrl: 'https://wiki.example.com/pm/unstated' } },
      as('editor'),
    );
    expect(res.errors).toBeUndefined();
    const { incident, report } = res.data.importPostmortem;
    expect(incident.organization).toBeNull();
    expect(incident.causalFactors.map((f) => f.component)).toEqual([null]);
    expect(report.warnings.map((w) => w.code)).toContain('ORGANIZATION_UNKNOWN');
    const stored = testPrisma(t.db.url);
    try {
      expect((await stored.incident.findUniqueOrThrow({ where: { slug: incident.slug } })).organization).toBeNull();
    } finally {
      await stored.onModuleDestroy();
    }
  });

  it('gives the same draft for the same document from the command line as over GraphQL', async () => {
    // A document whose draft depends on the store's options: pattern suggestions are kept only
    // when the taxonomy knows them, and bare "#12" references need the configured trackers.
    const doc = `# Retry storm empties the connection pool

## Summary
Clients retried every failed call at once, so each failure caused more load than the last one.

## Timeline (UTC)
- 2024-05-06 10:02 Retries start to pile up after a slow deploy
- 10:15 Connection pool exhausted on every API node
- 10:40 Retries capped with jitter, load back to normal

## Action items
- [x] Add jitter and a retry budget to the client (#12)
- [ ] Alert on pool exhaustion
`;
    const SHAPE = `{ slug title patterns { key } timeline { at precision kind text } actionables { title status references { ref url } } }`;
    const overGraphql = await t.gql<{ importPostmortem: { incident: Record<string, unknown> } }>(
      `mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident ${SHAPE} } }`,
      { input: { document: doc } },
      as('editor'),
    );
    expect(overGraphql.errors).toBeUndefined();

    const imports = t.app.get(DraftsService);
    const saved: string[] = [];
    const code = await importCli(['retry-storm.md'], {
      readFile: async () => doc,
      stdout: () => undefined,
      stderr: (text) => saved.push(text),
      baseOptions: await imports.parseOptions(),
      async saveDraft(result) {
        const outcome = await imports.saveDraft(result, { sourceUrl: null, actor: ACTOR });
        saved.push(outcome.created ? 'created' : 'updated');
        return 'saved';
      },
    });
    expect([code, saved]).toEqual([0, ['updated']]);
    const drafts = await t.gql<{ draftIncidents: { nodes: { incident: Record<string, unknown> }[] } }>(`{ draftIncidents(first: 100) { nodes { incident ${SHAPE} } } }`, {}, as('editor'));
    const fromCli = drafts.data.draftIncidents.nodes.find((d) => d.incident.slug === overGraphql.data.importPostmortem.incident.slug);
    expect(fromCli?.incident).toEqual(overGraphql.data.importPostmortem.incident);
    expect(overGraphql.data.importPostmortem.incident.patterns).not.toEqual([]);
  });
});
