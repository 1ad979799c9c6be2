import path from 'node:path';
import request from 'supertest';
import { PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles } from '@hindsight/incidents';
import { elements, sectionById, textOf } from './support/html-inspect';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const SEEDS = readSeedFiles(path.join(projectRoot(), 'seeds'));
const ALL_ACTIONABLES = SEEDS.incidents.flatMap((i) => i.actionables.map((a) => ({ ...a, slug: i.slug })));

/** Slugs of the incidents listed on a page, in order. */
function listedIncidents(html: string): string[] {
  return elements(html)
    .filter((e) => e.tag === 'a' && /^\/incidents\/[a-z0-9-]+$/.test(e.attrs.href ?? ''))
    .map((e) => e.attrs.href!.slice('/incidents/'.length))
    .filter((slug, i, all) => all.indexOf(slug) === i);
}

/** `slug#actionable-key` of the follow-ups listed on a page, in order. */
function listedActionables(html: string): string[] {
  return elements(html)
    .filter((e) => e.tag === 'a' && /^\/incidents\/[a-z0-9-]+#actionable-/.test(e.attrs.href ?? ''))
    .map((e) => e.attrs.href!.slice('/incidents/'.length).replace('#actionable-', '#'));
}

function link(html: string, rel: string): string | undefined {
  return elements(html).find((e) => e.tag === 'a' && e.attrs.rel === rel)?.attrs.href;
}

/** Every form control has a label pointing at it. */
function unlabelledControls(html: string): string[] {
  const all = elements(html);
  const labelled = new Set(all.filter((e) => e.tag === 'label').map((e) => e.attrs.for));
  return all
    .filter((e) => (e.tag === 'input' && e.attrs.type !== 'hidden') || e.tag === 'select' || e.tag === 'textarea')
    .filter((e) => !e.attrs.id || !labelled.has(e.attrs.id))
    .map((e) => e.attrs.name ?? e.tag);
}

describe('list pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string) => request(t.app.getHttpServer()).get(url);

  it('sends pages and assets with an ETag, and answers 304 when it still matches', async () => {
    for (const url of ['/incidents', '/patterns', '/assets/pages.css']) {
      const first = await get(url);
      expect({ url, status: first.status, cacheControl: first.headers['cache-control'] }).toEqual({ url, status: 200, cacheControl: 'no-cache' });
      const tag = first.headers.etag as string;
      expect({ url, tag }).toEqual({ url, tag: expect.stringMatching(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/) });
      const again = await get(url).set('If-None-Match', tag);
      expect({ url, status: again.status, body: again.text ?? '' }).toEqual({ url, status: 304, body: '' });
      const other = await get(url).set('If-None-Match', 'W/"0-other"');
      expect({ url, status: other.status }).toEqual({ url, status: 200 });
    }
  });

  describe('incidents', () => {
    it('lists every incident, newest first, on / and /incidents alike', async () => {
      const home = await get('/');
      const list = await get('/incidents');
      expect(home.status).toBe(200);
      expect(listedIncidents(home.text)).toEqual([
        'slack-cache-metastability-2022',
        'changeprop-feedback-loop-2016',
        'stackegg-haproxy-session-cap-2015',
        'apache-outbound-calls-without-timeouts-2011',
      ]);
      expect(listedIncidents(list.text)).toEqual(listedIncidents(home.text));
      expect(textOf(list.text)).toContain('4 incidents match.');
      // Apache's start is its post's date, known to the day only.
      expect(textOf(list.text)).toContain('2011-01-23');
      expect(unlabelledControls(list.text)).toEqual([]);
      expect(list.headers['content-security-policy']).toContain("script-src 'self'");
    });

    it.each([
      ['q=MAXCLIENTS', ['apache-outbound-calls-without-timeouts-2011']],
      ['q=m%C3%A9tastable', ['slack-cache-metastability-2022']],
      ['pattern=retry-amplification', ['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']],
      ['pattern=missing-timeout&pattern=connection-cap', ['stackegg-haproxy-session-cap-2015', 'apache-outbound-calls-without-timeouts-2011']],
      ['organization=slack', ['slack-cache-metastability-2022']],
      ['year=2016', ['changeprop-feedback-loop-2016']],
      ['year=2015&organization=Stack+Exchange', ['stackegg-haproxy-session-cap-2015']],
      ['order=title', ['apache-outbound-calls-without-timeouts-2011', 'changeprop-feedback-loop-2016', 'slack-cache-metastability-2022', 'stackegg-haproxy-session-cap-2015']],
    ])('filters with ?%s', async (query, expected) => {
      const res = await get(`/incidents?${query}`);
      expect(res.status).toBe(200);
      expect(listedIncidents(res.text)).toEqual(expected);
    });

    it('lists a search by best match unless another order is chosen, from a link or from the form', async () => {
      // A query whose relevance order differs from the newest-first order, found among a few words of the seeds.
      type L = { incidents: { nodes: { slug: string }[] } };
      let chosen: { q: string; relevance: string[]; newest: string[] } | undefined;
      for (const q of ['cache', 'retry', 'timeout', 'session', 'queue', 'load']) {
        const relevance = (await t.gql<L>(`query($q: String!) { incidents(first: 20, filter: { text: $q }) { nodes { slug } } }`, { q })).data.incidents.nodes.map((n) => n.slug);
        const newest = (await t.gql<L>(`query($q: String!) { incidents(first: 20, orderBy: STARTED_AT_DESC, filter: { text: $q }) { nodes { slug } } }`, { q })).data.incidents.nodes.map((n) => n.slug);
        if (relevance.length > 1 && relevance.join() !== newest.join()) {
          chosen = { q, relevance, newest };
          break;
        }
      }
      expect(chosen).toBeDefined();
      const { q, relevance, newest } = chosen!;
      const searched = (await get(`/incidents?q=${q}`)).text;
      expect(listedIncidents(searched)).toEqual(relevance);
      // Fewer matches than best match ranks: nothing to warn about.
      expect(textOf(searched)).not.toContain('Best match ranks the first');
      expect(listedIncidents((await get(`/incidents?q=${q}&order=newest`)).text)).toEqual(newest);
      // Words typed into the form of the unsearched list: the form sends its order as it shows it,
      // which is the default (no order chosen), so the search is ranked too.
      const unsearched = (await get('/incidents')).text;
      const orderSelect = unsearched.slice(unsearched.indexOf('name="order"'));
      expect(orderSelect).toMatch(/^[^>]*>\s*<option value="" selected>Best match for a search, newest first otherwise<\/option>/);
      expect(listedIncidents((await get(`/incidents?q=${q}&pattern=&organization=&order=`)).text)).toEqual(relevance);
      // Best match without words is not refused: the list is newest first.
      const plain = await get('/incidents?order=relevance');
      expect(plain.status).toBe(200);
      expect(textOf(plain.text)).not.toContain('Choose one of the listed orders');
      expect(listedIncidents(plain.text)).toEqual(listedIncidents(unsearched));
    });

    it('counts a plain filter\'s results by every facet, each value a link that narrows the list', async () => {
      const res = await get('/incidents?pattern=retry-amplification');
      expect(listedIncidents(res.text)).toEqual(['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']);
      const facets = sectionById(res.text, 'facets');
      const headings = [...facets.matchAll(/<h2>([^<]+)<\/h2>/g)].map((m) => m[1]);
      expect(headings).toEqual(['Pattern', 'Organization', 'Component', 'Year', 'Follow-ups by status', 'Severity', 'Near miss', 'Tag']);
      const links = elements(facets).filter((e) => e.tag === 'a').map((e) => e.attrs.href!);
      // Every link but a pattern's keeps the filter and adds one value; following one narrows the list to it.
      expect(links.filter((href) => !/^\/incidents\?pattern=[a-z-]+$/.test(href)).every((href) => href.startsWith('/incidents?pattern=retry-amplification&'))).toBe(true);
      const slack = links.find((href) => href.includes('organization=Slack'))!;
      expect(listedIncidents((await get(slack)).text)).toEqual(['slack-cache-metastability-2022']);
      const year = links.find((href) => href.includes('year=2016'))!;
      expect(listedIncidents((await get(year)).text)).toEqual(['changeprop-feedback-loop-2016']);
      const notNearMiss = links.find((href) => href.includes('nearmiss='))!;
      expect(notNearMiss).toBe('/incidents?pattern=retry-amplification&nearmiss=no');
      expect(listedIncidents((await get(notNearMiss)).text)).toEqual(['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']);
      // Follow-up statuses count the follow-ups of these incidents; each narrows the list to the
      // incidents with at least one follow-up in that status.
      const statuses = textOf(facets.slice(facets.indexOf('Follow-ups by status'), facets.indexOf('<h2>Severity')));
      expect(statuses).toContain('a status narrows to incidents with one in it');
      const followUps = ALL_ACTIONABLES.filter((a) => a.slug === 'slack-cache-metastability-2022' || a.slug === 'changeprop-feedback-loop-2016');
      const counted = [...statuses.matchAll(/(Open|In progress|Done|Won’t do) (\d+)/g)].reduce((n, m) => n + Number(m[2]), 0);
      expect(counted).toBe(followUps.length);
      const statusLinks = links.filter((href) => href.includes('followups='));
      expect(statusLinks.length).toBeGreaterThan(0);
      for (const href of statusLinks) {
        const status = /followups=([a-z_]+)/.exec(href)![1];
        const withOne = ['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016'].filter((slug) => followUps.some((a) => a.slug === slug && a.status === status));
        expect({ status, listed: listedIncidents((await get(href)).text) }).toEqual({ status, listed: withOne });
      }
      // A severity the records do not state is a count, not a link.
      expect(textOf(facets)).toContain('not stated 2');
      expect(links.some((href) => href.includes('severity='))).toBe(false);
    });

    it('counts the whole list by facet too, and says the counts may be a minute old', async () => {
      const res = await get('/incidents');
      const facets = sectionById(res.text, 'facets');
      expect(textOf(facets)).toContain('Counts over all published incidents, recounted in the background about once a minute, so they may lag the list a little.');
      const years = elements(facets).filter((e) => e.tag === 'a' && /[?&]year=\d{4}$/.test(e.attrs.href ?? ''));
      expect(years.length).toBeGreaterThanOrEqual(3);
      expect(textOf(sectionById((await get('/incidents?year=2016')).text, 'facets'))).not.toContain('recounted');
    });

    it('filters by follow-up status, and refuses a status it does not know', async () => {
      for (const status of ['open', 'in_progress', 'done', 'wont_do']) {
        const withOne = [...new Set(ALL_ACTIONABLES.filter((a) => a.status === status).map((a) => a.slug))].sort();
        const listed = listedIncidents((await get(`/incidents?followups=${status}`)).text);
        expect({ status, listed: [...listed].sort() }).toEqual({ status, listed: withOne });
      }
      // A follow-up filter alone is a filter: its facets count its own results, not the whole list.
      const open = await get('/incidents?followups=open');
      expect(textOf(sectionById(open.text, 'facets'))).not.toContain('recounted');
      const refused = await get('/incidents?followups=later');
      expect(refused.status).toBe(400);
      expect(textOf(sectionById(refused.text, 'field-followups-error'))).toBe('Choose one of the listed follow-up statuses, or any.');
    });

    it('filters near misses, and refuses a value that is neither yes nor no', async () => {
      const yes = await get('/incidents?nearmiss=yes');
      expect(listedIncidents(yes.text)).toEqual([]);
      expect(yes.text).not.toContain('id="facets"');
      const refused = await get('/incidents?nearmiss=maybe');
      expect(refused.status).toBe(400);
      expect(textOf(sectionById(refused.text, 'field-nearmiss-error'))).toBe('Choose near misses only, incidents that affected someone, or either.');
    });

    it('keeps the filters in the form and offers to clear them', async () => {
      const res = await get('/incidents?q=cache&pattern=cache-dependency&year=2022');
      const fields = Object.fromEntries(elements(res.text).filter((e) => e.tag === 'input').map((e) => [e.attrs.name, e.attrs.value]));
      expect(fields).toMatchObject({ q: 'cache', year: '2022' });
      expect(elements(res.text).find((e) => e.tag === 'option' && 'selected' in e.attrs && e.attrs.value === 'cache-dependency')).toBeDefined();
      expect(textOf(res.text)).toContain('Clear filters');
    });

    it('says so when nothing matches', async () => {
      const res = await get('/incidents?year=2012');
      expect(res.status).toBe(200);
      expect(listedIncidents(res.text)).toEqual([]);
      expect(textOf(res.text)).toContain('No incident matches these filters.');
    });

    it('shows a refused value next to its field, not an error page', async () => {
      const res = await get('/incidents?year=20x&q=slack');
      expect(res.status).toBe(400);
      const year = elements(res.text).find((e) => e.tag === 'input' && e.attrs.name === 'year')!;
      expect(year.attrs['aria-invalid']).toBe('true');
      expect(year.attrs['aria-describedby']).toBe('field-year-error');
      expect(year.attrs.value).toBe('20x');
      expect(textOf(sectionById(res.text, 'field-year-error'))).toBe('Enter a four-digit year, such as 2016.');
      // The error sits right after its field, inside the same field group.
      const group = res.text.slice(res.text.lastIndexOf('<div class="field', res.text.indexOf('id="field-year"')), res.text.indexOf('id="field-year-error"'));
      expect(group).toContain('for="field-year"');
      expect(listedIncidents(res.text)).toEqual([]);
    });

    it('pages forward with keyset cursors and back to the first page', async () => {
      const first = await get('/incidents?first=3');
      expect(listedIncidents(first.text)).toHaveLength(3);
      expect(textOf(first.text)).toContain('4 incidents match.');
      const next = link(first.text, 'next')!;
      expect(next).toMatch(/^\/incidents\?first=3&after=[A-Za-z0-9_-]+$/);
      const second = await get(next);
      expect(second.status).toBe(200);
      expect(listedIncidents(second.text)).toEqual(['apache-outbound-calls-without-timeouts-2011']);
      expect(link(second.text, 'next')).toBeUndefined();
      expect(elements(second.text).find((e) => e.tag === 'a' && textOf(second.text.slice(e.at, second.text.indexOf('</a>', e.at))) === 'First page')?.attrs.href).toBe('/incidents?first=3');
      // Filters ride along with the cursor.
      const filtered = await get('/incidents?pattern=retry-amplification&first=1');
      expect(link(filtered.text, 'next')).toMatch(/^\/incidents\?pattern=retry-amplification&first=1&after=/);
    });

    it('explains a stale or mangled page link instead of failing', async () => {
      const res = await get('/incidents?after=not-a-cursor');
      expect(res.status).toBe(400);
      expect(textOf(res.text)).toContain('That page link is no longer valid');
      const wrongOrder = link((await get('/incidents?first=1')).text, 'next')!.replace('first=1', 'first=1&order=title');
      expect((await get(wrongOrder)).status).toBe(400);
    });

    it('stays within the GraphQL query budget, whatever the page size', async () => {
      const prisma = t.app.get(PrismaService);
      const count = async (run: () => Promise<unknown>) => {
        const before = prisma.statementCount;
        await run();
        return prisma.statementCount - before;
      };
      const one = await count(() => get('/incidents?first=1').expect(200));
      const four = await count(() => get('/incidents?first=4').expect(200));
      expect(four).toBe(one);
      const graphql = await count(() =>
        t.gql(`{ patterns { nodes { key name incidentCount } } incidents(first: 4) { totalCount pageInfo { hasNextPage endCursor } nodes { slug title organization summary started { at precision } patterns { key name } } } }`),
      );
      expect(four).toBeLessThanOrEqual(graphql);
    });
  });

  describe('follow-ups', () => {
    it('lists open and in-progress follow-ups across incidents by default, each linking to its anchor', async () => {
      const res = await get('/actionables');
      expect(res.status).toBe(200);
      const unresolved = ALL_ACTIONABLES.filter((a) => a.status === 'open' || a.status === 'in_progress');
      expect(textOf(res.text)).toContain(`${unresolved.length} follow-ups match.`);
      const all = await get('/actionables?first=100');
      expect(new Set(listedActionables(all.text))).toEqual(new Set(unresolved.map((a) => `${a.slug}#${a.key}`)));
      expect(textOf(res.text)).toContain('Open follow-ups');
      expect(unlabelledControls(res.text)).toEqual([]);
      const bound = elements(res.text).find((e) => e.tag === 'a' && e.attrs.href === 'https://phabricator.wikimedia.org/T134456');
      expect(bound?.attrs.rel).toBe('noopener noreferrer');
    });

    it.each([
      ['status=done', (a: (typeof ALL_ACTIONABLES)[number]) => a.status === 'done'],
      ['status=wont_do', (a: (typeof ALL_ACTIONABLES)[number]) => a.status === 'wont_do'],
      ['owner=restbase', (a: (typeof ALL_ACTIONABLES)[number]) => a.owner === 'RESTBase' && (a.status === 'open' || a.status === 'in_progress')],
      ['owner=RESTBase&status=any', (a: (typeof ALL_ACTIONABLES)[number]) => a.owner === 'RESTBase'],
    ])('filters with ?%s', async (query, expected) => {
      const res = await get(`/actionables?${query}&first=100`);
      expect(res.status).toBe(200);
      expect(new Set(listedActionables(res.text))).toEqual(new Set(ALL_ACTIONABLES.filter(expected).map((a) => `${a.slug}#${a.key}`)));
    });

    it('finds overdue follow-ups and marks them, here and on the incident page', async () => {
      expect(textOf((await get('/actionables?overdue=yes')).text)).toContain('No follow-up matches these filters.');
      const prisma = testPrisma(t.db.url);
      try {
        await prisma.actionable.updateMany({ where: { key: 'changeprop-safer-retry-policy' }, data: { dueDate: new Date('2016-06-01T00:00:00Z') } });
      } finally {
        await prisma.onModuleDestroy();
      }
      const res = await get('/actionables?overdue=yes');
      expect(listedActionables(res.text)).toEqual(['changeprop-feedback-loop-2016#changeprop-safer-retry-policy']);
      expect(textOf(res.text)).toContain('Due 2016-06-01 Overdue');
      const checkbox = elements(res.text).find((e) => e.tag === 'input' && e.attrs.name === 'overdue')!;
      expect('checked' in checkbox.attrs).toBe(true);
      const page = await get('/incidents/changeprop-feedback-loop-2016');
      expect(textOf(sectionById(page.text, 'actionable-changeprop-safer-retry-policy'))).toContain('Due 2016-06-01 Overdue');
    });

    it('shows an unknown status next to its field', async () => {
      const res = await get('/actionables?status=closed');
      expect(res.status).toBe(400);
      expect(textOf(sectionById(res.text, 'field-status-error'))).toBe('Choose one of the listed statuses.');
    });

    it('pages forward and stays within the GraphQL query budget', async () => {
      const first = await get('/actionables?status=any&first=5');
      expect(listedActionables(first.text)).toHaveLength(5);
      const second = await get(link(first.text, 'next')!);
      expect(listedActionables(second.text)).toHaveLength(5);
      expect(listedActionables(second.text).some((a) => listedActionables(first.text).includes(a))).toBe(false);

      const prisma = t.app.get(PrismaService);
      const before = prisma.statementCount;
      await get('/actionables?status=any&first=30').expect(200);
      const page = prisma.statementCount - before;
      const mid = prisma.statementCount;
      await t.gql(`{ actionables(first: 30) { totalCount pageInfo { hasNextPage endCursor } nodes { key title status owner ownedBy { kind name } dueDate overdue incident { slug title } references { kind ref url } } } }`);
      expect(page).toBeLessThanOrEqual(prisma.statementCount - mid);
    });
  });

  describe('patterns', () => {
    it('indexes every pattern with its incident count', async () => {
      const res = await get('/patterns');
      expect(res.status).toBe(200);
      const links = elements(res.text).filter((e) => e.tag === 'a' && e.attrs.href?.startsWith('/patterns/')).map((e) => e.attrs.href);
      expect(links).toEqual(expect.arrayContaining(SEEDS.patterns.map((p) => `/patterns/${p.key}`)));
      expect(textOf(res.text)).toContain('Retry amplification 2 incidents');
    });

    it('shows what a pattern is and every incident showing it, with a runbook link', async () => {
      const res = await get('/patterns/retry-amplification');
      expect(res.status).toBe(200);
      const text = textOf(res.text);
      expect(text).toContain('Retry amplification');
      expect(text).toContain(SEEDS.patterns.find((p) => p.key === 'retry-amplification')!.description);
      expect(text).toContain('The 2 incidents showing it');
      expect(listedIncidents(res.text)).toEqual(['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']);
      const host = res.request.url.replace(/\/patterns\/.*$/, '');
      expect(textOf(sectionById(res.text, 'snippet-pattern'))).toBe(`[Incidents showing retry amplification](${host}/patterns/retry-amplification)`);
    });

    it('answers an unknown pattern with a 404 page', async () => {
      const res = await get('/patterns/no-such-pattern');
      expect(res.status).toBe(404);
      expect(textOf(res.text)).toContain('Pattern "no-such-pattern" does not exist.');
    });
  });
});

describe('incident list counts past the list count limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Two, so the four shipped incidents are more than the limit.
    t = await startTestApp({ env: { LIST_COUNT_LIMIT: '2' } });
  });
  afterAll(async () => {
    await t.close();
  });
  const get = (url: string) => request(t.app.getHttpServer()).get(url);
  const organizationCounts = (html: string) =>
    [...sectionById(html, 'facets').matchAll(/<div class="facet facet-organization">.*?<\/div>/gs)].flatMap((m) => [...m[0].matchAll(/<span class="count">(\d+)<\/span>/g)].map((c) => Number(c[1])));

  it('says "more than" and that the facets are partial, for a filter and for a search', async () => {
    // Every shipped incident affected someone: four matches of a plain filter.
    const filtered = (await get('/incidents?nearmiss=no')).text;
    expect(textOf(filtered)).toContain('More than 2 incidents match.');
    expect(textOf(filtered)).toContain('Counts over the first 2 matching incidents found, not all of them');
    expect(organizationCounts(filtered).reduce((a, b) => a + b, 0)).toBe(2);
    // A word at least three incidents hold, found through GraphQL, whose count stays exact.
    type C = { incidents: { totalCount: number } };
    let word: string | undefined;
    for (const q of ['cache', 'retry', 'timeout', 'requests', 'server', 'load', 'traffic']) {
      if ((await t.gql<C>(`query($q: String!) { incidents(filter: { text: $q }) { totalCount } }`, { q })).data.incidents.totalCount >= 3) {
        word = q;
        break;
      }
    }
    expect(word).toBeDefined();
    const searched = (await get(`/incidents?q=${word}`)).text;
    expect(textOf(searched)).toContain('More than 2 incidents match.');
    // Ranked, with more matches than it counted: the page cannot tell that best match covers them all.
    expect(textOf(searched)).toContain('Best match ranks the first 300 matches found, and its pages end there');
    expect(textOf((await get(`/incidents?q=${word}&order=newest`)).text)).not.toContain('Best match ranks the first');
    expect(organizationCounts(searched).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('counts exactly below the limit, and the unfiltered list always', async () => {
    const one = (await get('/incidents?q=MAXCLIENTS')).text;
    expect(textOf(one)).toContain('1 incident matches.');
    expect(textOf(one)).not.toContain('Counts over the first');
    const all = (await get('/incidents')).text;
    expect(textOf(all)).toContain('4 incidents match.');
    expect(textOf(all)).not.toContain('Counts over the first');
  });
});
