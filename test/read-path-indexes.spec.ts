import { PrismaService } from '@hindsight/db';
import { IncidentsService, incidentTreeStatement, loadSyntheticCorpus, treeOf } from '@hindsight/incidents';
import { testPrisma, createTestDatabase, type TestDatabase } from './support/test-db';

/**
 * The expression indexes of migration 20261202060000_read_path_indexes exist and serve the
 * keyset pages the service actually sends: with sorting disabled, the plan of each page
 * statement reads an index in order and has no Sort node (an index that did not match the sort
 * expression would leave the Sort in place).
 */
describe('read-path indexes match the list orders', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
    await loadSyntheticCorpus(prisma, { incidents: 50, seed: 3, batchSize: 50 });
  }, 300_000);
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  async function pagePlans(run: (s: IncidentsService) => Promise<unknown>): Promise<string[]> {
    const sent: { text: string; values: unknown[] }[] = [];
    const pool = prisma.pool as unknown as { query: (...a: unknown[]) => Promise<unknown> };
    const original = pool.query.bind(prisma.pool);
    pool.query = (q: unknown, v?: unknown) => {
      const c = typeof q === 'string' ? { text: q, values: (v as unknown[]) ?? [] } : (q as { text: string; values?: unknown[] });
      if (/ORDER BY/.test(c.text) && /LIMIT/.test(c.text) && !/json_agg/.test(c.text)) sent.push({ text: c.text, values: c.values ?? [] });
      return original(q, v);
    };
    try {
      await run(new IncidentsService(prisma));
    } finally {
      pool.query = original;
    }
    const client = await prisma.pool.connect();
    try {
      await client.query('SET enable_sort = off');
      const plans = [];
      for (const s of sent) {
        const r = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${s.text}`, s.values.map((v) => (v instanceof Date ? v.toISOString() : v)));
        plans.push(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
      }
      await client.query('RESET enable_sort');
      return plans;
    } finally {
      client.release();
    }
  }

  it.each([
    ['STARTED_AT_DESC', 'Incident_published_started_idx'],
    ['STARTED_AT_ASC', 'Incident_published_started_idx'],
    ['TITLE_ASC', 'Incident_published_title_idx'],
    ['UPDATED_AT_DESC', 'Incident_updatedAt_id_idx'],
  ] as const)('incidents ordered by %s read %s in order', async (orderBy, index) => {
    const [plan] = await pagePlans((s) => s.listIncidents({}, { first: 5, orderBy }));
    expect(plan).toContain(`"${index}"`);
    expect(plan).not.toMatch(/\bSort\b/);
  });

  it.each([
    ['DUE_DATE_ASC', 'Actionable_due_idx'],
    ['UPDATED_AT_DESC', 'Actionable_updatedAt_id_idx'],
    ['CREATED_AT_ASC', 'Actionable_createdAt_id_idx'],
  ] as const)('actionables ordered by %s read %s in order', async (orderBy, index) => {
    const [plan] = await pagePlans((s) => s.listActionables({ status: ['open', 'in_progress'] }, { first: 5, orderBy }));
    expect(plan).toContain(`"${index}"`);
    expect(plan).not.toMatch(/\bSort\b/);
  });

  it('finds an incident by slug or old slug through their unique indexes, not a scan of every incident', async () => {
    const statement = incidentTreeStatement('slug', { narrative: true, timeline: true, actionables: true });
    const client = await prisma.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const r = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, ['synth-s3-7']);
      const plan = r.rows.map((x) => x['QUERY PLAN']).join('\n');
      expect(plan).toContain('"Incident_slug_key"');
      expect(plan).toContain('"IncidentSlugAlias_pkey"');
      await client.query('RESET enable_seqscan');
    } finally {
      client.release();
    }
    const [found] = (await prisma.pool.query(statement.text, ['synth-s3-7'])).rows;
    expect(treeOf(found)).toMatchObject({ slug: 'synth-s3-7' });
  });

  /**
   * Every statement `run` sends, through the pool or through a client it checks out (a search
   * runs in a transaction of its own), as `{ text, name? }`, in order.
   */
  async function sentBy(run: () => Promise<unknown>): Promise<{ text: string; name?: string }[]> {
    const sent: { text: string; name?: string }[] = [];
    const record = (q: unknown) => sent.push(typeof q === 'string' ? { text: q } : (q as { text: string; name?: string }));
    type Query = (...a: unknown[]) => Promise<unknown>;
    const pool = prisma.pool as unknown as { query: Query; connect: (cb?: unknown) => Promise<{ query: Query; release: (e?: unknown) => void }> };
    const query = pool.query.bind(prisma.pool);
    const connect = pool.connect.bind(prisma.pool);
    pool.query = (q: unknown, v?: unknown) => {
      record(q);
      return query(q, v);
    };
    // pool.query checks out its client with a callback; only the promise form is a caller's own.
    pool.connect = (cb?: unknown) =>
      cb
        ? connect(cb)
        : connect().then((client) => {
            const { query: own, release } = client;
            client.query = (q: unknown, v?: unknown) => {
              record(q);
              return own.call(client, q, v);
            };
            client.release = (e?: unknown) => {
              client.query = own;
              client.release = release;
              release.call(client, e);
            };
            return client;
          });
    try {
      await run();
    } finally {
      pool.query = query;
      pool.connect = connect;
    }
    return sent;
  }

  it('prepares a plain list page once per connection but plans a search page for its own text each time', async () => {
    const sent = await sentBy(async () => {
      const service = new IncidentsService(prisma);
      await service.listIncidents({}, { first: 5 }, { include: {} });
      const found = await service.listIncidents({ text: 'outage' }, { first: 5 }, { include: {} });
      expect(found.nodes.length).toBeGreaterThan(0);
      expect(await found.count()).toBeGreaterThan(0);
    });
    const pages = sent.filter((q) => /AS sort\b/.test(q.text));
    expect(pages).toHaveLength(2);
    expect(pages[0]!.name).toMatch(/^q_/);
    expect(pages[1]!.text).toContain('ts_rank');
    expect(pages[1]!.name).toBeUndefined();
    const count = sent.find((q) => /count\(\*\)/.test(q.text) && /@@/.test(q.text));
    expect(count?.name).toBeUndefined();
  });

  it("counts a search's matches through the search document's index, with sequential scans off for that statement alone", async () => {
    const service = new IncidentsService(prisma);
    let count = 0;
    const sent = await sentBy(async () => {
      const found = await service.listIncidents({ text: 'outage' }, { first: 5 }, { include: {} });
      count = await found.count();
    });
    const texts = sent.map((q) => q.text);
    const page = texts.findIndex((q) => /AS sort\b/.test(q));
    const counted = texts.findIndex((q) => /count\(\*\)/.test(q) && /@@/.test(q));
    // The page is left to the planner; the count goes through the index.
    expect(texts[page - 1]).not.toMatch(/enable_seqscan/);
    expect(texts[counted - 1]).toBe('BEGIN READ ONLY; SET LOCAL enable_seqscan = off');
    expect(texts[counted + 1]).toBe('COMMIT');
    const statement = sent[counted] as { text: string; values?: unknown[] };
    const client = await prisma.pool.connect();
    try {
      const run = async (sql: string) => (await client.query<Record<string, string>>(sql, statement.values ?? [])).rows;
      // Most of these incidents hold the word: left to itself, the planner reads the table through.
      const planOf = async () => (await run(`EXPLAIN ${statement.text}`)).map((x) => x['QUERY PLAN']).join('\n');
      expect(await planOf()).toMatch(/Seq Scan on "Incident"/);
      const [{ n: unforced }] = await run(statement.text);
      await client.query('BEGIN READ ONLY; SET LOCAL enable_seqscan = off');
      const searched = await planOf();
      await client.query('COMMIT');
      expect(searched).toContain('Bitmap Index Scan on "Incident_searchDocument_idx"');
      expect(searched).not.toMatch(/Seq Scan on "Incident"/);
      expect(count).toBe(Number(unforced));
      expect(count).toBeGreaterThan(25);
    } finally {
      client.release();
    }
  });

  it('finds an owner in any case through the lower(owner) index', async () => {
    const client = await prisma.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const r = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT 1 FROM "Actionable" a WHERE lower(a."owner") = lower($1)`, ['ALICE']);
      expect(r.rows.map((x) => x['QUERY PLAN']).join('\n')).toContain('"Actionable_owner_lower_idx"');
      await client.query('RESET enable_seqscan');
    } finally {
      client.release();
    }
  });
});
