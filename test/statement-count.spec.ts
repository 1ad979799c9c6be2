import { Client } from 'pg';
import { PrismaService } from '@hindsight/db';
import { startTestApp, type TestApp } from './support/test-app';

const EVERYTHING = `query All($after: String) {
  incidents(first: 100, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      slug patterns { key }
      timeline { key asWritten text }
      causalFactors { key leadsTo { kind to { key } } followsFrom { from { key } } }
      causalLinks { kind from { key } to { key } }
      actionables { key status references { ref url } addresses { key } incident { slug } }
    }
  }
}`;

/** Copies every seeded incident with all its children `times` times, in SQL, fast. */
async function cloneIncidents(url: string, times: number): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(`CREATE TEMP TABLE inc_map AS
      SELECT i.id AS old_id, gen_random_uuid() AS new_id, n FROM "Incident" i CROSS JOIN generate_series(1, $1) n`, [times]);
    await c.query(`INSERT INTO "Incident" (id, slug, title, organization, components, summary, narrative, impact, "sourceTitle", "sourceUrl", "sourceLanguage", "startedAt", "startedPrecision")
      SELECT m.new_id, i.slug || '-copy-' || m.n, i.title, i.organization, i.components, i.summary, i.narrative, i.impact, i."sourceTitle", i."sourceUrl", i."sourceLanguage", i."startedAt" - make_interval(days => m.n), i."startedPrecision"
      FROM inc_map m JOIN "Incident" i ON i.id = m.old_id`);
    await c.query(`INSERT INTO "TimelineEvent" ("incidentId", key, position, at, precision, "asWritten", kind, text)
      SELECT m.new_id, e.key, e.position, e.at, e.precision, e."asWritten", e.kind, e.text FROM inc_map m JOIN "TimelineEvent" e ON e."incidentId" = m.old_id`);
    await c.query(`CREATE TEMP TABLE factor_map AS SELECT f.id AS old_id, gen_random_uuid() AS new_id, m.new_id AS incident_id, m.n
      FROM inc_map m JOIN "CausalFactor" f ON f."incidentId" = m.old_id`);
    await c.query(`INSERT INTO "CausalFactor" (id, "incidentId", key, position, role, component, text)
      SELECT fm.new_id, fm.incident_id, f.key, f.position, f.role, f.component, f.text FROM factor_map fm JOIN "CausalFactor" f ON f.id = fm.old_id`);
    await c.query(`INSERT INTO "CausalLink" ("incidentId", "fromId", "toId", kind)
      SELECT a.incident_id, a.new_id, b.new_id, l.kind FROM "CausalLink" l
      JOIN factor_map a ON a.old_id = l."fromId" JOIN factor_map b ON b.old_id = l."toId" AND b.n = a.n`);
    await c.query(`CREATE TEMP TABLE act_map AS SELECT a.id AS old_id, gen_random_uuid() AS new_id, m.new_id AS incident_id, m.n
      FROM inc_map m JOIN "Actionable" a ON a."incidentId" = m.old_id`);
    await c.query(`INSERT INTO "Actionable" (id, "incidentId", key, position, title, description, owner, status)
      SELECT am.new_id, am.incident_id, a.key, a.position, a.title, a.description, a.owner, a.status FROM act_map am JOIN "Actionable" a ON a.id = am.old_id`);
    await c.query(`INSERT INTO "ExternalReference" ("actionableId", position, kind, ref, url)
      SELECT am.new_id, r.position, r.kind, r.ref, r.url FROM act_map am JOIN "ExternalReference" r ON r."actionableId" = am.old_id`);
    await c.query(`INSERT INTO "ActionableFactor" ("actionableId", "factorId")
      SELECT am.new_id, fm.new_id FROM "ActionableFactor" af JOIN act_map am ON am.old_id = af."actionableId"
      JOIN factor_map fm ON fm.old_id = af."factorId" AND fm.n = am.n`);
    await c.query(`INSERT INTO "IncidentPattern" ("incidentId", "patternId")
      SELECT m.new_id, ip."patternId" FROM inc_map m JOIN "IncidentPattern" ip ON ip."incidentId" = m.old_id`);
    await c.query('COMMIT');
  } finally {
    await c.end();
  }
}

describe('nested fields are batched', () => {
  let t: TestApp;
  beforeAll(async () => {
    // What this suite asserts is a count of statements, never their speed: on a loaded machine a
    // page of 100 incidents may take longer than the production statement timeout, so give it
    // minutes.
    t = await startTestApp({ env: { DB_STATEMENT_TIMEOUT_MS: '300000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function countStatements(after?: string) {
    const prisma = t.app.get(PrismaService);
    const before = prisma.statementCount;
    const res = await t.gql<{ incidents: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { timeline: unknown[] }[] } }>(EVERYTHING, { after });
    expect(res.errors).toBeUndefined();
    return { statements: prisma.statementCount - before, page: res.data.incidents };
  }

  it('runs the same number of SQL statements for 4 incidents as for 400', async () => {
    const small = await countStatements();
    expect(small.page.nodes).toHaveLength(4);
    expect(small.statements).toBeGreaterThan(0);

    await cloneIncidents(t.db.url, 99);
    let after: string | undefined;
    let pages = 0;
    let incidents = 0;
    do {
      const big = await countStatements(after);
      expect(big.page.totalCount).toBe(400);
      // Every page of up to 100 incidents with every nested field costs exactly what 4 did.
      expect(big.statements).toBe(small.statements);
      incidents += big.page.nodes.length;
      after = big.page.pageInfo.hasNextPage ? big.page.pageInfo.endCursor : undefined;
      pages++;
    } while (after);
    expect(incidents).toBe(400);
    expect(pages).toBe(4);
    // Counts, not speed: on a loaded machine copying and reading 400 incidents may take minutes.
  }, 900_000);
});
