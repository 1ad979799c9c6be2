import { Client } from 'pg';
import { loadSyntheticCorpus, syntheticIncident, writeIncidentDocument } from '@hindsight/incidents';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const SEED = 7;
const COUNT = 40;

/**
 * Every stored row of the knowledge-base tables, with database-chosen ids and timestamps
 * replaced by the natural keys they stand for, in a fixed order.
 */
const DUMPS: Record<string, string> = {
  Incident: `SELECT to_jsonb(i) - 'id' - 'createdAt' - 'updatedAt' - 'searchDocument' || jsonb_build_object('searchDocument', i."searchDocument"::text) AS row
    FROM "Incident" i ORDER BY i.slug`,
  TimelineEvent: `SELECT to_jsonb(e) - 'id' - 'incidentId' || jsonb_build_object('incident', i.slug) AS row
    FROM "TimelineEvent" e JOIN "Incident" i ON i.id = e."incidentId" ORDER BY i.slug, e.key`,
  CausalFactor: `SELECT to_jsonb(f) - 'id' - 'incidentId' || jsonb_build_object('incident', i.slug) AS row
    FROM "CausalFactor" f JOIN "Incident" i ON i.id = f."incidentId" ORDER BY i.slug, f.key`,
  CausalLink: `SELECT jsonb_build_object('incident', i.slug, 'from', a.key, 'to', b.key, 'kind', l.kind) AS row
    FROM "CausalLink" l JOIN "Incident" i ON i.id = l."incidentId" JOIN "CausalFactor" a ON a.id = l."fromId" JOIN "CausalFactor" b ON b.id = l."toId"
    ORDER BY i.slug, a.key, b.key, l.kind`,
  Actionable: `SELECT to_jsonb(a) - 'id' - 'incidentId' - 'createdAt' - 'updatedAt' || jsonb_build_object('incident', i.slug) AS row
    FROM "Actionable" a JOIN "Incident" i ON i.id = a."incidentId" ORDER BY i.slug, a.key`,
  ExternalReference: `SELECT to_jsonb(r) - 'id' - 'actionableId' || jsonb_build_object('incident', i.slug, 'actionable', a.key) AS row
    FROM "ExternalReference" r JOIN "Actionable" a ON a.id = r."actionableId" JOIN "Incident" i ON i.id = a."incidentId" ORDER BY i.slug, a.key, r.position`,
  ActionableFactor: `SELECT jsonb_build_object('incident', i.slug, 'actionable', a.key, 'factor', f.key) AS row
    FROM "ActionableFactor" x JOIN "Actionable" a ON a.id = x."actionableId" JOIN "CausalFactor" f ON f.id = x."factorId" JOIN "Incident" i ON i.id = a."incidentId"
    ORDER BY i.slug, a.key, f.key`,
  IncidentPattern: `SELECT jsonb_build_object('incident', i.slug, 'pattern', p.key) AS row
    FROM "IncidentPattern" x JOIN "Incident" i ON i.id = x."incidentId" JOIN "Pattern" p ON p.id = x."patternId" ORDER BY i.slug, p.key`,
  SearchWord: `SELECT jsonb_build_object('incident', i.slug, 'word', w.word) AS row
    FROM "SearchWord" w JOIN "Incident" i ON i.id = w."incidentId" ORDER BY i.slug, w.word`,
};

async function dump(url: string): Promise<Record<string, unknown[]>> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, unknown[]> = {};
    for (const [table, sql] of Object.entries(DUMPS)) out[table] = (await c.query<{ row: unknown }>(sql)).rows.map((r) => r.row);
    return out;
  } finally {
    await c.end();
  }
}

describe('npm run synth', () => {
  let bulk: TestDatabase;
  let normal: TestDatabase;
  beforeAll(async () => {
    [bulk, normal] = await Promise.all([createTestDatabase({ seed: true }), createTestDatabase({ seed: true })]);
  });
  afterAll(async () => {
    await Promise.all([bulk?.drop(), normal?.drop()]);
  });

  it('is reproducible: the same seed and number give the same document, another seed another', () => {
    const keys = ['retry-amplification', 'feedback-loop', 'missing-timeout'];
    expect(syntheticIncident(SEED, 12, keys)).toEqual(syntheticIncident(SEED, 12, keys));
    expect(syntheticIncident(SEED, 12, keys).doc.title).not.toEqual(syntheticIncident(SEED + 1, 12, keys).doc.title);
  });

  it('draws postmortem-sized documents in several languages', () => {
    const docs = Array.from({ length: 300 }, (_, n) => syntheticIncident(SEED, n, ['retry-amplification', 'feedback-loop', 'missing-timeout', 'cache-dependency']).doc);
    const range = (values: number[]) => [Math.min(...values), Math.max(...values)];
    expect(range(docs.map((d) => d.timeline.length))).toEqual([5, 30]);
    expect(range(docs.map((d) => d.causalFactors.length))).toEqual([3, 15]);
    expect(range(docs.map((d) => d.actionables.length))).toEqual([2, 12]);
    const words = docs.map((d) => d.narrative.split(/\s+/).length);
    expect(Math.min(...words)).toBeGreaterThanOrEqual(100);
    expect(words.reduce((a, b) => a + b, 0) / words.length).toBeGreaterThan(200);
    expect(new Set(docs.map((d) => d.source.language)).size).toBeGreaterThanOrEqual(6);
  });

  it('draws metadata in realistic shares, and the source text in its own language for non-English sources', () => {
    const docs = Array.from({ length: 1000 }, (_, n) => syntheticIncident(SEED, n, ['retry-amplification', 'feedback-loop']).doc);
    const share = (pick: (d: (typeof docs)[number]) => boolean) => docs.filter(pick).length / docs.length;
    expect(share((d) => d.severity != null)).toBeGreaterThan(0.65);
    expect(share((d) => d.severity != null)).toBeLessThan(0.85);
    // Less severe levels more often: SEV4 about four times as often as SEV1.
    const sev1 = share((d) => d.severity === 'SEV1');
    const sev4 = share((d) => d.severity === 'SEV4');
    expect(sev1).toBeGreaterThan(0.03);
    expect(sev4).toBeGreaterThan(2 * sev1);
    expect(new Set(docs.map((d) => d.severity ?? null))).toEqual(new Set([null, 'SEV1', 'SEV2', 'SEV3', 'SEV4']));
    expect(share((d) => d.nearMiss === true)).toBeGreaterThan(0.01);
    expect(share((d) => d.nearMiss === true)).toBeLessThan(0.1);
    // A near miss affected no customer.
    expect(docs.filter((d) => d.nearMiss).every((d) => d.customerImpact?.minutes === 0)).toBe(true);
    expect(share((d) => d.customerImpact != null && d.customerImpact.minutes > 0)).toBeGreaterThan(0.35);
    expect(share((d) => (d.tags ?? []).length > 0)).toBeGreaterThan(0.6);
    // Every non-English source keeps its text in its language, and no English one has any.
    const foreign = docs.filter((d) => d.source.language !== 'en');
    expect(foreign.length).toBeGreaterThan(100);
    expect(foreign.every((d) => typeof d.source.originalText === 'string' && d.source.originalText.length > 20)).toBe(true);
    expect(docs.filter((d) => d.source.language === 'en').every((d) => d.source.originalText == null)).toBe(true);
    const vi = foreign.find((d) => d.source.language === 'vi')!;
    expect(vi.source.originalText).toMatch(/Báo cáo sự cố/);
    const ja = foreign.find((d) => d.source.language === 'ja')!;
    expect(ja.source.originalText).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    // On another scale, the levels come from it.
    const custom = syntheticIncident(SEED, 3, ['feedback-loop'], { severityLevels: ['critical', 'major', 'minor'] }).doc;
    expect(Array.from({ length: 200 }, (_, n) => syntheticIncident(SEED, n, ['feedback-loop'], { severityLevels: ['critical', 'major', 'minor'] }).doc.severity ?? null).every((s) => s === null || ['critical', 'major', 'minor'].includes(s))).toBe(true);
    expect(custom.title).toBe(syntheticIncident(SEED, 3, ['feedback-loop']).doc.title);
  });

  it('stores exactly the rows the normal write path stores for the same documents', async () => {
    const p1 = testPrisma(bulk.url);
    const p2 = testPrisma(normal.url);
    try {
      const result = await loadSyntheticCorpus(p1, { incidents: COUNT, seed: SEED, batchSize: 15 });
      expect(result).toEqual({ stored: COUNT, skipped: 0 });

      const keys = (await p2.pattern.findMany({ select: { key: true }, orderBy: { key: 'asc' } })).map((p) => p.key);
      for (let n = 0; n < COUNT; n++) {
        const { doc } = syntheticIncident(SEED, n, keys);
        await p2.$transaction((tx) => writeIncidentDocument(tx, doc, { status: 'published' }), { timeout: 60_000 });
      }

      const [a, b] = await Promise.all([dump(bulk.url), dump(normal.url)]);
      for (const table of Object.keys(DUMPS)) {
        expect({ table, rows: a[table] }).toEqual({ table, rows: b[table] });
      }
      expect(a.Incident).toHaveLength(COUNT + 4);
      // The metadata columns are among those compared, and the corpus fills them.
      const synthetic = (a.Incident as Record<string, unknown>[]).filter((row) => String(row.slug).startsWith('synth-'));
      expect(synthetic.filter((row) => row.severity !== null).length).toBeGreaterThan(COUNT / 2);
      expect(synthetic.filter((row) => (row.tags as string[]).length > 0).length).toBeGreaterThan(COUNT / 2);
      expect(synthetic.filter((row) => row.customerImpactMinutes !== null).length).toBeGreaterThan(COUNT / 4);
      expect(synthetic.filter((row) => row.sourceOriginalText !== null).length).toBeGreaterThan(0);
      expect(synthetic.filter((row) => row.nearMiss === true).length).toBeGreaterThan(0);
      expect(a.TimelineEvent!.length).toBeGreaterThanOrEqual(COUNT * 5);
      expect(a.SearchWord!.length).toBeGreaterThan(COUNT * 50);

      // A second run with the same arguments finds everything present and stores nothing.
      expect(await loadSyntheticCorpus(p1, { incidents: COUNT, seed: SEED, batchSize: 15 })).toEqual({ stored: 0, skipped: COUNT });
    } finally {
      await Promise.all([p1.onModuleDestroy(), p2.onModuleDestroy()]);
    }
  }, 300_000);
});
