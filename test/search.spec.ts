import { Prisma, PrismaService } from '@hindsight/db';
import { buildTextSearch, MAX_UNKNOWN_WORDS, searchMatch } from '@hindsight/incidents';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';

type Found = { incidents: { totalCount: number; edges: { cursor: string }[]; nodes: { slug: string }[]; pageInfo: { endCursor: string | null } } };
const SEARCH = `query S($filter: IncidentFilterInput, $first: Int, $after: String, $orderBy: IncidentOrder) {
  incidents(filter: $filter, first: $first, after: $after, orderBy: $orderBy) { totalCount edges { cursor } nodes { slug } pageInfo { endCursor } }
}`;

describe('full-text search over the seeded incidents', () => {
  let t: TestApp;
  let editor: Record<string, string>;
  let admin: Record<string, string>;
  const find = async (text: string) => {
    const res = await t.gql<Found>(SEARCH, { filter: { text } });
    expect(res.errors).toBeUndefined();
    return res.data.incidents.nodes.map((n) => n.slug);
  };
  beforeAll(async () => {
    t = await startTestApp();
    const tokens = await issueTokens(t);
    editor = tokens.as('editor');
    admin = tokens.as('admin');
  });
  afterAll(async () => {
    await t.close();
  });

  it('forgives typos in long words by trigram similarity', async () => {
    expect(await find('Parsiod')).toContain('changeprop-feedback-loop-2016');
    expect(await find('memcahced')).toEqual(['slack-cache-metastability-2022']);
    const widened = await t.gql<{ incidents: { searchWidened: { word: string; alternatives: string[] }[] } }>(`{ incidents(filter: { text: "Parsiod retry" }) { searchWidened { word alternatives } } }`);
    expect(widened.data.incidents.searchWidened).toEqual([{ word: 'parsiod', alternatives: expect.arrayContaining(['parsoid']) }]);
  });

  it('forgives two neighbouring letters swapped in a short word, which shares too few trigrams with it', async () => {
    const wedged = await find('wedged');
    expect(wedged.length).toBeGreaterThan(0);
    expect(await find('wegded')).toEqual(wedged);
    expect(await find('mcirb')).toEqual(['slack-cache-metastability-2022']);
    const widened = await t.gql<{ incidents: { searchWidened: { word: string; alternatives: string[] }[] } }>(`{ incidents(filter: { text: "gihtub" }) { searchWidened { word alternatives } } }`);
    expect(widened.data.incidents.searchWidened).toEqual([{ word: 'gihtub', alternatives: expect.arrayContaining(['github']) }]);
  });

  it('looks up at most MAX_UNKNOWN_WORDS unknown words of one query, the first ones', async () => {
    const typos = ['memcahced', 'parsiod', 'wegded', 'mcirb', 'gihtub', 'haporxy', 'sesison', 'timeuot', 'rertied', 'stakcegg'];
    expect(typos.length).toBeGreaterThan(MAX_UNKNOWN_WORDS);
    type Widened = { incidents: { searchWidened: { word: string }[] } };
    // Each is widened on its own...
    for (const typo of typos) {
      const one = await t.gql<Widened>(`query($q: String!) { incidents(filter: { text: $q }) { searchWidened { word } } }`, { q: typo });
      expect(one.data.incidents.searchWidened.map((w) => w.word)).toEqual([typo]);
    }
    // ...but in one query only the first ones are, in the query's order; the rest match as written.
    const all = await t.gql<Widened>(`query($q: String!) { incidents(filter: { text: $q }) { searchWidened { word } } }`, { q: typos.join(' or ') });
    expect(all.data.incidents.searchWidened.map((w) => w.word)).toEqual(typos.slice(0, MAX_UNKNOWN_WORDS));
  });

  it('refuses a search text over the limit before looking anything up', async () => {
    const prisma = t.app.get(PrismaService);
    const before = prisma.statementCount;
    const res = await t.gql(SEARCH, { filter: { text: Array.from({ length: 60 }, (_, i) => `wrd${i}x`).join(' ') } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('filter.text');
    // Not one statement: the unknown words were not looked up in the lexicon first.
    expect(prisma.statementCount - before).toBe(0);
  });

  it('stems English words: "retry" and "retries" find the same incidents', async () => {
    const retry = await find('retry');
    expect(retry.length).toBeGreaterThanOrEqual(2);
    expect([...(await find('retries'))].sort()).toEqual([...retry].sort());
  });

  it('matches words in any order, phrases only when quoted, exclusions and or', async () => {
    expect(await find('haproxy session')).toContain('stackegg-haproxy-session-cap-2015');
    expect(await find('session haproxy')).toContain('stackegg-haproxy-session-cap-2015');
    expect((await find('retry cache')).length).toBeGreaterThan(0);
    expect(await find('"StackEgg game"')).toEqual(['stackegg-haproxy-session-cap-2015']);
    expect(await find('"game StackEgg"')).toEqual([]);
    expect(await find('memcached -memcached')).toEqual([]);
    const either = await find('memcached or haproxy');
    expect(either).toEqual(expect.arrayContaining(['slack-cache-metastability-2022', 'stackegg-haproxy-session-cap-2015']));
  });

  it('matches whole words, not parts of words: "Ori" does not find "origin"', async () => {
    const ori = await find('Ori');
    const origin = await find('origin');
    expect(origin.length).toBeGreaterThan(0);
    expect(ori.length).toBeLessThan(3);
    for (const slug of ori) expect(await find('"Ori"')).toContain(slug);
  });

  it('searches references, pattern names and source titles', async () => {
    expect(await find('pull/604')).toEqual(['changeprop-feedback-loop-2016']);
    expect(await find('"retry amplification"')).toEqual(expect.arrayContaining(['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']));
    const detail = await t.gql<{ incident: { source: { title: string } } }>(`{ incident(slug: "stackegg-haproxy-session-cap-2015") { source { title } } }`);
    expect(await find(`"${detail.data.incident.source.title}"`)).toContain('stackegg-haproxy-session-cap-2015');
  });

  it('orders results by relevance: a title match ranks above a narrative mention', async () => {
    const res = await t.gql<{ incidents: { nodes: { slug: string; title: string }[] } }>(`{ incidents(filter: { text: "haproxy" }) { nodes { slug title } } }`);
    expect(res.data.incidents.nodes[0]!.title.toLowerCase()).toContain('haproxy');
  });

  it('pages through relevance order with cursors tied to the search, and refuses a foreign cursor', async () => {
    const all = await find('the');
    expect(all.length).toBeGreaterThan(2);
    const first = await t.gql<Found>(SEARCH, { filter: { text: 'the' }, first: 2 });
    const rest = await t.gql<Found>(SEARCH, { filter: { text: 'the' }, first: 100, after: first.data.incidents.pageInfo.endCursor });
    expect([...first.data.incidents.nodes, ...rest.data.incidents.nodes].map((n) => n.slug)).toEqual(all);
    const cursor = first.data.incidents.pageInfo.endCursor;
    for (const other of [{ filter: { text: 'cache' } }, { filter: { text: 'the' }, orderBy: 'TITLE_ASC' }]) {
      const refused = await t.gql(SEARCH, { ...other, after: cursor });
      expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(refused.errors?.[0]?.message).toMatch(/after/);
    }
    const noText = await t.gql(SEARCH, { orderBy: 'RELEVANCE' });
    expect(noText.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(noText.errors?.[0]?.message).toMatch(/orderBy/);
  });

  it('filters organizations and components by a case-insensitive part of the name', async () => {
    const by = async (filter: Record<string, string>) => (await t.gql<Found>(SEARCH, { filter })).data.incidents.nodes.map((n) => n.slug);
    expect(await by({ organization: 'Wikimedia' })).toContain('changeprop-feedback-loop-2016');
    expect(await by({ component: 'Apache' })).toContain('apache-outbound-calls-without-timeouts-2011');
    expect(await by({ organization: '%' })).toEqual([]);
  });

  it('finds a word right after an edit, in the same write', async () => {
    expect(await find('xylophonist')).toEqual([]);
    const res = await t.gql<{ updateIncident: { incident: { version: number } } }>(
      `mutation { updateIncident(input: { slug: "stackegg-haproxy-session-cap-2015", expectedVersion: 1, patch: { title: "StackEgg xylophonist outage" } }) { incident { version } } }`,
      {},
      editor,
    );
    expect(res.errors).toBeUndefined();
    expect(await find('xylophonists')).toEqual(['stackegg-haproxy-session-cap-2015']);
    expect(await find('StackEgg')).toContain('stackegg-haproxy-session-cap-2015');
  });

  it("finds a follow-up's words right after it is created, edited and deleted, and the incident's own version stays", async () => {
    const apache = 'apache-outbound-calls-without-timeouts-2011';
    const incident = async () =>
      (await t.gql<{ incident: { version: number; updatedAt: string } }>(`{ incident(slug: "${apache}") { version updatedAt } }`)).data.incident;
    const before = await incident();
    expect(await find('zeppelin')).not.toContain(apache);
    expect(await find('pull/9131')).not.toContain(apache);

    type A = { id: string; version: number };
    const created = await t.gql<{ createActionable: { actionable: A } }>(
      `mutation($input: CreateActionableInput!) { createActionable(input: $input) { actionable { id version } } }`,
      { input: { incident: apache, title: 'Put the zeppelin gateway behind a timeout', description: 'Measure the marmoset queue first.', references: ['https://github.com/acme/gateway/pull/9131'] } },
      editor,
    );
    expect(created.errors).toBeUndefined();
    expect(await find('zeppelin')).toEqual([apache]);
    expect(await find('marmosets')).toEqual([apache]);
    expect(await find('pull/9131')).toEqual([apache]);

    const { id, version } = created.data.createActionable.actionable;
    const updated = await t.gql<{ updateActionable: { actionable: A } }>(
      `mutation($input: UpdateActionableInput!) { updateActionable(input: $input) { actionable { id version } } }`,
      { input: { id, expectedVersion: version, patch: { title: 'Put the quokka gateway behind a timeout', references: [] } } },
      editor,
    );
    expect(updated.errors).toBeUndefined();
    expect(await find('quokka')).toEqual([apache]);
    expect(await find('zeppelin')).not.toContain(apache);
    expect(await find('pull/9131')).not.toContain(apache);
    // The description did not change and is still found.
    expect(await find('marmoset')).toEqual([apache]);

    const deleted = await t.gql(
      `mutation($input: DeleteActionableInput!) { deleteActionable(input: $input) { deletedActionableId } }`,
      { input: { id, expectedVersion: updated.data.updateActionable.actionable.version } },
      admin,
    );
    expect(deleted.errors).toBeUndefined();
    expect(await find('quokka')).not.toContain(apache);
    expect(await find('marmoset')).not.toContain(apache);
    // Follow-up work has its own version: the incident record itself did not change.
    expect(await incident()).toEqual(before);
  });

  it('keeps every follow-up edit in the search when several land on one incident at once', async () => {
    const apache = 'apache-outbound-calls-without-timeouts-2011';
    type A = { id: string; version: number };
    const words = ['aardvark', 'bandicoot', 'capybara', 'dugong', 'echidna', 'fossa'];
    const created: A[] = [];
    for (const w of words) {
      const res = await t.gql<{ createActionable: { actionable: A } }>(
        `mutation($input: CreateActionableInput!) { createActionable(input: $input) { actionable { id version } } }`,
        { input: { incident: apache, title: `Follow-up ${created.length + 1}` } },
        editor,
      );
      expect(res.errors).toBeUndefined();
      created.push(res.data.createActionable.actionable);
    }
    const edits = await Promise.all(
      created.map((a, i) =>
        t.gql(`mutation($input: UpdateActionableInput!) { updateActionable(input: $input) { actionable { version } } }`, { input: { id: a.id, expectedVersion: a.version, patch: { title: `Ask the ${words[i]} team` } } }, editor),
      ),
    );
    for (const e of edits) expect(e.errors).toBeUndefined();
    for (const w of words) expect({ w, found: await find(w) }).toEqual({ w, found: [apache] });
  });

  it('keeps a follow-up edit in the search when an incident edit lands at the same moment', async () => {
    const slack = 'slack-cache-metastability-2022';
    const created = await t.gql<{ createActionable: { actionable: { id: string; version: number } } }>(
      `mutation($input: CreateActionableInput!) { createActionable(input: $input) { actionable { id version } } }`,
      { input: { incident: slack, title: 'Review the cache tier' } },
      editor,
    );
    expect(created.errors).toBeUndefined();
    let { id, version } = created.data.createActionable.actionable;
    const rounds: [string, string][] = [['gazelle', 'hyrax'], ['ibex', 'jackal'], ['kinkajou', 'lemming'], ['margay', 'numbat']];
    for (const [incidentWord, followUpWord] of rounds) {
      const { version: incidentVersion } = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${slack}") { version } }`)).data.incident;
      const [edit, followUp] = await Promise.all([
        t.gql(`mutation($input: UpdateIncidentInput!) { updateIncident(input: $input) { incident { version } } }`, { input: { slug: slack, expectedVersion: incidentVersion, patch: { impact: `Seen by the ${incidentWord} team.` } } }, editor),
        t.gql<{ updateActionable: { actionable: { version: number } } }>(
          `mutation($input: UpdateActionableInput!) { updateActionable(input: $input) { actionable { version } } }`,
          { input: { id, expectedVersion: version, patch: { title: `Ask the ${followUpWord} team` } } },
          editor,
        ),
      ]);
      expect(edit.errors).toBeUndefined();
      expect(followUp.errors).toBeUndefined();
      version = followUp.data.updateActionable.actionable.version;
      expect(await find(incidentWord)).toEqual([slack]);
      expect({ followUpWord, found: await find(followUpWord) }).toEqual({ followUpWord, found: [slack] });
    }
  });

  it('finds a causal factor by its title right after the factor is written', async () => {
    const changeprop = 'changeprop-feedback-loop-2016';
    const { version } = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${changeprop}") { version } }`)).data.incident;
    expect(await find('wombat')).not.toContain(changeprop);
    const res = await t.gql(
      `mutation($input: UpsertCausalFactorInput!) { upsertCausalFactor(input: $input) { incident { version } } }`,
      { input: { slug: changeprop, expectedVersion: version, factor: { key: 'wombat-factor', title: 'Wombat dispatcher saturation', role: 'CONDITION', component: null, text: 'A queue grew.' } } },
      editor,
    );
    expect(res.errors).toBeUndefined();
    expect(await find('wombat')).toEqual([changeprop]);
  });

  it('finds a phrase through its word pairs exactly as before: only adjacent, in either reading, across a stopword, right after the edit', async () => {
    const prisma = t.app.get(PrismaService);
    const slug = 'apache-outbound-calls-without-timeouts-2011';
    const { version, summary } = (await t.gql<{ incident: { version: number; summary: string } }>(`{ incident(slug: "${slug}") { version summary } }`)).data.incident;
    const edit = await t.gql(
      `mutation($input: UpdateIncidentInput!) { updateIncident(input: $input) { incident { version } } }`,
      { input: { slug, expectedVersion: version, patch: { summary: `${summary} The zebrafish quokkas outage before narwhal migrations.` } } },
      editor,
    );
    expect(edit.errors).toBeUndefined();
    const phrases: [string, boolean][] = [
      ['"zebrafish quokkas"', true],
      // english only: "quokka" is the stem of "quokkas", the simple reading keeps the plural.
      ['"zebrafish quokka outages"', true],
      ['"quokkas zebrafish"', false],
      ['"zebrafish outage"', false],
      // A stopword inside: english reads `outag <2> narwhal`, which any word between satisfies.
      ['"outage before narwhal"', true],
      ['"outage after narwhal migration"', true],
      ['"outage narwhal"', false],
    ];
    for (const [phrase, found] of phrases) {
      if (found) expect(await find(phrase)).toEqual([slug]);
      else expect(await find(phrase)).not.toContain(slug);
      // The pairs condition holds for every incident the phrase matches, and the index gives it.
      const search = await buildTextSearch(prisma, phrase);
      expect(search.pairs).not.toBeNull();
      const [row] = await prisma.$queryRaw<{ matched: number; paired: number }[]>`
        SELECT count(*)::int AS matched, count(*) FILTER (WHERE search_pairs("searchDocument") @@ ${search.pairs}::tsquery)::int AS paired
        FROM "Incident" WHERE "searchDocument" @@ ${search.tsquery}`;
      expect(row!.paired).toBe(row!.matched);
    }
    // The app's match reads the pairs index alone (with the document's index beside it, the
    // planner ANDs both and recomputes every candidate's pairs to recheck them). Sequential
    // scans are off: a handful of incidents are read faster without any index.
    const search = await buildTextSearch(prisma, '"zebrafish quokkas"');
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<{ 'QUERY PLAN': string }[]>(Prisma.sql`EXPLAIN SELECT count(*) FROM "Incident" m WHERE ${searchMatch('m', search, search.tsquery)}`);
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('"Incident_searchPairs_idx"');
    expect(text).not.toContain('"Incident_searchDocument_idx"');
  });

  it('keeps pairs at the 16383-position cap consistent with the phrase check, which reads the same capped positions', async () => {
    const prisma = t.app.get(PrismaService);
    // "alpha" stands at 16382; "beta" and "gamma" both pass the cap and are stored at 16383.
    const [row] = await prisma.$queryRaw<{ ab: boolean; abPair: boolean; bg: boolean; bgPair: boolean }[]>`
      WITH d AS (SELECT to_tsvector('simple', repeat('w ', 16381) || 'alpha beta gamma') AS v)
      SELECT v @@ 'alpha <-> beta'::tsquery AS ab, search_pairs(v) @@ '''alpha beta'''::tsquery AS "abPair",
             v @@ 'beta <-> gamma'::tsquery AS bg, search_pairs(v) @@ '''beta gamma'''::tsquery AS "bgPair" FROM d`;
    expect(row).toEqual({ ab: true, abPair: true, bg: false, bgPair: false });
  });

  it('accepts a narrative whose word pairs would not fit in a tsvector, and still finds its phrases', async () => {
    const slug = 'apache-outbound-calls-without-timeouts-2011';
    const { version } = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${slug}") { version } }`)).data.incident;
    // 13,000 distinct log-like words (200,000 characters, the narrative's limit): the document
    // holds them, but their pairs (two readings, words past position 16383 all paired with the
    // last ones before it) come to about 1.4 MB, over the 1 MB a tsvector may hold.
    const words = Array.from({ length: 13_400 }, (_v, i) => `replica${1_000_000 + i}`);
    const narrative = `Wombatquux zebrinella. ${words.join(' ')}`.slice(0, 200_000);
    const edit = await t.gql(
      `mutation($input: UpdateIncidentInput!) { updateIncident(input: $input) { incident { version } } }`,
      { input: { slug, expectedVersion: version, patch: { narrative } } },
      editor,
    );
    expect(edit.errors).toBeUndefined();
    expect(await find('"wombatquux zebrinella"')).toEqual([slug]);
    expect(await find('"replica1000001 replica1000002"')).toEqual([slug]);
  });

  // Last, so the check of the rank vector covers every kind of write the suite made above.
  it('ranks by title and summary: matches only further down tie and come by id, and a summary edit moves one up', async () => {
    const prisma = t.app.get(PrismaService);
    // A word two or more incidents hold only below title and summary, under every reading of the query.
    const reading = (w: string) => `(websearch_to_tsquery('english', '${w}') || websearch_to_tsquery('simple', '${w}'))`;
    const candidates = await prisma.$queryRaw<{ word: string }[]>`
      SELECT u.lexeme AS word FROM "Incident" i, unnest(ts_filter(i."searchDocument", '{d}')) u
      WHERE i."status" = 'published' AND u.lexeme ~ '^[a-z]{6,}$' GROUP BY u.lexeme HAVING count(*) >= 2 ORDER BY u.lexeme`;
    let word: string | null = null;
    let byId: string[] = [];
    for (const { word: w } of candidates) {
      const rows = await prisma.$queryRawUnsafe<{ slug: string; high: boolean }[]>(
        `SELECT "slug", ts_filter("searchDocument", '{a,b}') @@ ${reading(w)} AS high FROM "Incident"
         WHERE "status" = 'published' AND "searchDocument" @@ ${reading(w)} ORDER BY "id" DESC`,
      );
      if (rows.length >= 2 && rows.every((r) => !r.high)) {
        word = w;
        byId = rows.map((r) => r.slug);
        break;
      }
    }
    expect(word).not.toBeNull();
    expect(await find(word!)).toEqual(byId);

    const last = byId[byId.length - 1]!;
    const { version, summary } = (await t.gql<{ incident: { version: number; summary: string } }>(`{ incident(slug: "${last}") { version summary } }`)).data.incident;
    const edit = await t.gql(
      `mutation($input: UpdateIncidentInput!) { updateIncident(input: $input) { incident { version } } }`,
      { input: { slug: last, expectedVersion: version, patch: { summary: `${summary} See ${word}.` } } },
      editor,
    );
    expect(edit.errors).toBeUndefined();
    expect(await find(word!)).toEqual([last, ...byId.slice(0, -1)]);

    // Every incident's rank vector is its document's title and summary weights, after every write above.
    const [{ stale, ranked }] = await prisma.$queryRaw<{ stale: number; ranked: number }[]>`
      SELECT count(*) FILTER (WHERE "searchRank" IS DISTINCT FROM ts_filter("searchDocument", '{a,b}'))::int AS stale,
             count(*) FILTER (WHERE "searchRank" <> ''::tsvector)::int AS ranked FROM "Incident"`;
    expect(stale).toBe(0);
    expect(ranked).toBeGreaterThan(0);
  });
});
