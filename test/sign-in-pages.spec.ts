import request from 'supertest';
import type { PrismaService } from '@hindsight/db';
import { AccountsService, type Role } from '@hindsight/tracking';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { cookieHeader, cookiesOf, hidden } from './support/page-session';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const KEY = 'watch-datacenter-performance';
const EDIT = `/incidents/${STACKEGG}/actionables/${KEY}/edit`;
const PASSWORD = 'correct horse battery';
const ENV = { PASSWORD_HASH_ROUNDS: '4', RATE_LIMIT_SIGN_INS_PER_ACCOUNT: '6', RATE_LIMIT_SIGN_INS_PER_ADDRESS: '1000' };

describe('people sign in, and their role decides what the pages let them do', () => {
  let t: TestApp;
  let prisma: PrismaService;
  const sessions: Partial<Record<Role, string>> = {};
  let as: (role: Role) => Record<string, string>;

  async function signIn(name: string, password = PASSWORD, next = '/'): Promise<request.Response> {
    const form = await request(t.app.getHttpServer()).get('/sign-in');
    const formCookies = cookiesOf(form);
    return request(t.app.getHttpServer())
      .post('/sign-in')
      .set('Cookie', cookieHeader(formCookies))
      .type('form')
      .send({ _csrf: hidden(form.text, '_csrf'), name, password, next });
  }
  const sessionOf = (res: request.Response) => `hindsight_session=${cookiesOf(res).hindsight_session}`;
  const actionableRow = () => prisma.actionable.findFirstOrThrow({ where: { key: KEY, incident: { slug: STACKEGG } } });
  async function editForm(cookie: string) {
    const res = await request(t.app.getHttpServer()).get(EDIT).set('Cookie', cookie);
    return { res, csrf: hidden(res.text, '_csrf'), version: hidden(res.text, 'version') };
  }

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    prisma = testPrisma(t.db.url);
    ({ as } = await issueTokens(t));
    const accounts = new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 43200 });
    const actor = { name: 'test-setup', tokenId: null };
    for (const role of ['viewer', 'editor', 'admin'] as const) {
      await accounts.create(`${role}-person`, role, actor, PASSWORD);
      const res = await signIn(`${role}-person`);
      expect(res.status).toBe(303);
      sessions[role] = sessionOf(res);
    }
    await accounts.create('expiring-person', 'editor', actor, PASSWORD);
    await accounts.create('limited-person', 'editor', actor, PASSWORD);
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('sets an HttpOnly, SameSite=Lax session cookie and sends the person back where they were', async () => {
    const res = await signIn('viewer-person', PASSWORD, `/incidents/${STACKEGG}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/incidents/${STACKEGG}`);
    const set = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('hindsight_session='))!;
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Lax/i);
    expect(set).toMatch(/Max-Age=43200/);
    // Only a hash of the cookie is stored.
    const token = cookiesOf(res).hindsight_session!;
    expect(await prisma.accountSession.count({ where: { tokenHash: token } })).toBe(0);
  });

  it('refuses a wrong password, an unknown name and a form without its token, starting no session', async () => {
    const before = await prisma.accountSession.count();
    expect((await signIn('editor-person', 'wrong password here')).status).toBe(401);
    expect((await signIn('nobody-here')).status).toBe(401);
    const noToken = await request(t.app.getHttpServer()).post('/sign-in').type('form').send({ name: 'editor-person', password: PASSWORD });
    expect(noToken.status).toBe(403);
    expect(await prisma.accountSession.count()).toBe(before);
  });

  it('will not redirect anywhere but this site after sign-in', async () => {
    const res = await signIn('admin-person', PASSWORD, '//evil.example/x');
    expect(res.headers.location).toBe('/');
  });

  it('limits sign-in attempts per account name', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await signIn('limited-person', 'not the password')).status);
    expect(answers.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(answers.slice(6)).toEqual([429, 429]);
    // Even the right password waits out the window.
    expect((await signIn('limited-person')).status).toBe(429);
  });

  describe('editing a follow-up, per role', () => {
    it('anonymous: the form and the save both send the person to sign in, and nothing is written', async () => {
      const before = await tableHashes(t.db.url);
      const get = await request(t.app.getHttpServer()).get(EDIT);
      expect(get.status).toBe(303);
      expect(get.headers.location).toBe(`/sign-in?next=${encodeURIComponent(EDIT)}`);
      const post = await request(t.app.getHttpServer()).post(EDIT).type('form').send({ version: '1', status: 'in_progress', owner: 'x' });
      expect(post.status).toBe(303);
      expect(post.headers.location).toMatch(/^\/sign-in\?next=/);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('viewer: refused with 403, nothing written', async () => {
      const before = await tableHashes(t.db.url);
      expect((await request(t.app.getHttpServer()).get(EDIT).set('Cookie', sessions.viewer!)).status).toBe(403);
      const row = await actionableRow();
      const post = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.viewer!).type('form').send({ version: String(row.version), status: 'in_progress', owner: 'viewer' });
      expect(post.status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('editor: a missing or wrong CSRF token is refused and writes nothing', async () => {
      const { version, csrf } = await editForm(sessions.editor!);
      expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const before = await tableHashes(t.db.url);
      for (const token of [undefined, 'x'.repeat(43), '']) {
        const res = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.editor!).type('form').send({ ...(token === undefined ? {} : { _csrf: token }), version, status: 'in_progress', owner: 'Team A' });
        expect(res.status).toBe(403);
        expect(res.text).toContain('security token');
      }
      // Another session's token does not do either.
      const adminForm = await editForm(sessions.admin!);
      const crossed = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.editor!).type('form').send({ _csrf: adminForm.csrf, version, status: 'in_progress' });
      expect(crossed.status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('editor: moves the status and sets owner, due date, priority, references and a note, audited under the person', async () => {
      const { res, version, csrf } = await editForm(sessions.editor!);
      expect(res.status).toBe(200);
      const save = await request(t.app.getHttpServer())
        .post(EDIT)
        .set('Cookie', sessions.editor!)
        .type('form')
        .send({ _csrf: csrf, version, status: 'in_progress', owner: 'SRE team', dueDate: '2027-01-15', priority: 'p1', references: 'T123456\nOPS-42', note: 'Picked up at the weekly review' });
      expect(save.status).toBe(303);
      expect(save.headers.location).toBe(`/incidents/${STACKEGG}#actionable-${KEY}`);
      const row = await prisma.actionable.findFirstOrThrow({ where: { key: KEY }, include: { references: { orderBy: { position: 'asc' } } } });
      expect(row).toMatchObject({ status: 'in_progress', owner: 'SRE team', priority: 'p1', version: Number(version) + 2 });
      expect(row.dueDate?.toISOString().slice(0, 10)).toBe('2027-01-15');
      expect(row.references.map((r) => r.ref)).toEqual(['T123456', 'OPS-42']);
      const events = await prisma.auditEvent.findMany({ where: { actionableId: row.id }, orderBy: { id: 'asc' } });
      expect(events.map((e) => e.field)).toEqual(['status', 'owner', 'dueDate', 'priority', 'references']);
      expect(new Set(events.map((e) => e.actor))).toEqual(new Set(['editor-person']));
      expect(events[0]!.note).toBe('Picked up at the weekly review');
    });

    it('editor: a bad due date is shown under its field and nothing is written', async () => {
      const { version, csrf } = await editForm(sessions.editor!);
      const before = await tableHashes(t.db.url);
      const res = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, version, status: 'in_progress', owner: 'SRE team', dueDate: '2027-02-30', priority: 'p1', references: '' });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/field-error[^>]*>dueDate: /);
      expect(res.text).toContain('value="2027-02-30"');
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('a stale form shows the conflict and the stored values, and never overwrites', async () => {
      const stale = await editForm(sessions.editor!);
      const fresh = await editForm(sessions.admin!);
      const first = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.admin!).type('form').send({ _csrf: fresh.csrf, version: fresh.version, status: 'in_progress', owner: 'Admin owner', dueDate: '', priority: 'p0', references: '' });
      expect(first.status).toBe(303);
      const before = await tableHashes(t.db.url);
      const second = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.editor!).type('form').send({ _csrf: stale.csrf, version: stale.version, status: 'in_progress', owner: 'Stale owner', dueDate: '', priority: 'p3', references: '' });
      expect(second.status).toBe(409);
      expect(second.text).toContain('Someone changed this follow-up');
      expect(second.text).toContain('Admin owner');
      expect(second.text).toContain('Stale owner');
      // The form now carries the stored values and version, ready to re-apply.
      expect(hidden(second.text, 'version')).toBe(String(Number(stale.version) + 1));
      expect(await tableHashes(t.db.url)).toEqual(before);
      expect((await actionableRow()).owner).toBe('Admin owner');
    });

    it('admin: may edit too', async () => {
      const { version, csrf } = await editForm(sessions.admin!);
      const res = await request(t.app.getHttpServer()).post(EDIT).set('Cookie', sessions.admin!).type('form').send({ _csrf: csrf, version, status: 'done', owner: 'Admin owner', dueDate: '', priority: 'p0', references: '', note: 'Dashboards in place' });
      expect(res.status).toBe(303);
      expect(await actionableRow()).toMatchObject({ status: 'done', closedBy: 'admin-person' });
    });
  });

  describe('correcting an incident, per role', () => {
    const INCIDENT_EDIT = `/incidents/${STACKEGG}/edit`;
    const incidentForm = async (cookie: string) => {
      const res = await request(t.app.getHttpServer()).get(INCIDENT_EDIT).set('Cookie', cookie);
      return { res, csrf: hidden(res.text, '_csrf'), version: hidden(res.text, 'version'), title: /id="field-title"[^>]*value="([^"]*)"/.exec(res.text)?.[1] };
    };
    const send = (cookie: string, fields: Record<string, string>) => request(t.app.getHttpServer()).post(INCIDENT_EDIT).set('Cookie', cookie).type('form').send(fields);

    it('anonymous and viewers are refused, and nothing is written', async () => {
      const before = await tableHashes(t.db.url);
      expect((await request(t.app.getHttpServer()).get(INCIDENT_EDIT)).status).toBe(303);
      expect((await send('', { version: '1', title: 'x' })).status).toBe(303);
      expect((await request(t.app.getHttpServer()).get(INCIDENT_EDIT).set('Cookie', sessions.viewer!)).status).toBe(403);
      expect((await send(sessions.viewer!, { version: '1', title: 'x' })).status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('an editor corrects the title (audited); a stale form shows the conflict and writes nothing', async () => {
      const stale = await incidentForm(sessions.editor!);
      const fresh = await incidentForm(sessions.admin!);
      expect(stale.res.status).toBe(200);
      const first = await send(sessions.admin!, { _csrf: fresh.csrf!, version: fresh.version!, title: 'StackEgg: HAProxy session cap reached', note: 'Clearer title' });
      expect(first.status).toBe(303);
      const row = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
      expect(row).toMatchObject({ title: 'StackEgg: HAProxy session cap reached', version: Number(fresh.version) + 1 });
      const event = await prisma.auditEvent.findFirstOrThrow({ where: { incidentId: row.id, field: 'title' }, orderBy: { id: 'desc' } });
      expect(event).toMatchObject({ actor: 'admin-person', note: 'Clearer title' });

      const before = await tableHashes(t.db.url);
      const second = await send(sessions.editor!, { _csrf: stale.csrf!, version: stale.version!, title: 'A stale title' });
      expect(second.status).toBe(409);
      expect(second.text).toContain('Someone changed this incident');
      expect(second.text).toContain('A stale title');
      expect(hidden(second.text, 'version')).toBe(String(row.version));
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('an empty title is refused under its field', async () => {
      const { csrf, version } = await incidentForm(sessions.editor!);
      const before = await tableHashes(t.db.url);
      const res = await send(sessions.editor!, { _csrf: csrf!, version: version!, title: '' });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/field-error[^>]*>patch\.title: /);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });
  });

  describe('timeline events, factors and links on the page', () => {
    const PARTS = `/incidents/${STACKEGG}/parts`;
    const partsPage = async (cookie: string) => {
      const res = await request(t.app.getHttpServer()).get(PARTS).set('Cookie', cookie);
      return { res, csrf: hidden(res.text, '_csrf')!, version: hidden(res.text, 'version')! };
    };
    const post = (cookie: string, fields: Record<string, string>) => request(t.app.getHttpServer()).post(PARTS).set('Cookie', cookie).type('form').send(fields);

    it('refuses anonymous readers, viewers and a missing token, writing nothing', async () => {
      const before = await tableHashes(t.db.url);
      expect((await request(t.app.getHttpServer()).get(PARTS)).status).toBe(303);
      expect((await request(t.app.getHttpServer()).get(PARTS).set('Cookie', sessions.viewer!)).status).toBe(403);
      const { version } = await partsPage(sessions.editor!);
      const fields = { version, part: 'event', op: 'save', key: 'page-added', kind: 'observation', text: 'x', precision: 'none' };
      expect((await post('', fields)).status).toBe(303);
      expect((await post(sessions.viewer!, fields)).status).toBe(403);
      expect((await post(sessions.editor!, fields)).status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('adds an event, a factor and a link, removes the link, and refuses a stale page', async () => {
      let page = await partsPage(sessions.editor!);
      const stale = page;
      const added = await post(sessions.editor!, { _csrf: page.csrf, version: page.version, part: 'event', op: 'save', key: 'page-added', asWritten: '11:02', at: '2015-03-31T11:02:00Z', precision: 'minute', kind: 'observation', text: 'Someone noticed from the page' });
      expect([added.status, added.headers.location]).toEqual([303, PARTS]);
      page = await partsPage(sessions.editor!);
      expect(page.res.text).toContain('Someone noticed from the page');
      expect(await post(sessions.editor!, { _csrf: page.csrf, version: page.version, part: 'factor', op: 'save', key: 'page-factor', role: 'condition', component: 'haproxy', text: 'A factor added on the page' })).toMatchObject({ status: 303 });
      page = await partsPage(sessions.editor!);
      const from = 'page-factor';
      const row = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG }, include: { factors: { orderBy: { position: "asc" } } } });
      const to = row.factors.find((f) => f.key !== from)!.key;
      expect(await post(sessions.editor!, { _csrf: page.csrf, version: page.version, part: 'link', op: 'save', from, to, kind: 'amplifies' })).toMatchObject({ status: 303 });
      expect(await prisma.causalLink.count({ where: { incidentId: row.id, from: { key: from } } })).toBe(1);
      page = await partsPage(sessions.editor!);
      expect(await post(sessions.editor!, { _csrf: page.csrf, version: page.version, part: 'link', op: 'delete', from, to, kind: 'amplifies' })).toMatchObject({ status: 303 });
      expect(await prisma.causalLink.count({ where: { incidentId: row.id, from: { key: from } } })).toBe(0);
      const events = await prisma.auditEvent.findMany({ where: { incidentId: row.id, actor: 'editor-person', entity: { in: ['timeline_event', 'causal_factor', 'causal_link'] } } });
      expect(events.map((e) => `${e.entity}:${e.action}`).sort()).toEqual(['causal_factor:create', 'causal_link:create', 'causal_link:delete', 'timeline_event:create']);

      const before = await tableHashes(t.db.url);
      const refused = await post(sessions.editor!, { _csrf: stale.csrf, version: stale.version, part: 'event', op: 'delete', key: 'page-added' });
      expect(refused.status).toBe(409);
      expect(refused.text).toContain('Nothing you sent was saved');
      expect(refused.text).toContain('Someone noticed from the page');
      const bad = await post(sessions.editor!, { _csrf: page.csrf, version: String(Number(page.version) + 1), part: 'event', op: 'save', key: 'Bad Key', kind: 'observation', text: 'x', precision: 'none' });
      expect(bad.status).toBe(400);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });
  });

  describe('the same principal for GraphQL', () => {
    const mutation = 'mutation($id: ID!, $v: Int!) { updateActionable(input: { id: $id, expectedVersion: $v, patch: { owner: "via graphql" } }) { actionable { owner version } } }';

    it('a session reads, and writes only with its synchroniser token in x-csrf-token', async () => {
      const me = await t.gql<{ incident: { slug: string } }>(`{ incident(slug: "${STACKEGG}") { slug } }`, {}, { Cookie: sessions.editor! });
      expect(me.data.incident.slug).toBe(STACKEGG);
      const row = await actionableRow();
      const before = await tableHashes(t.db.url);
      const without = await t.gql(mutation, { id: gid('Actionable', row.id), v: row.version }, { Cookie: sessions.editor! });
      expect(without.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'CSRF_TOKEN_MISMATCH' });
      const viewerForm = await request(t.app.getHttpServer()).get('/sign-in').set('Cookie', sessions.viewer!);
      const viewerCsrf = hidden(viewerForm.text, '_csrf')!;
      const viewer = await t.gql(mutation, { id: gid('Actionable', row.id), v: row.version }, { Cookie: sessions.viewer!, 'x-csrf-token': viewerCsrf });
      expect(viewer.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', requiredRole: 'editor', role: 'viewer' });
      expect(await tableHashes(t.db.url)).toEqual(before);
      const { csrf } = await editForm(sessions.editor!);
      const ok = await t.gql<{ updateActionable: { actionable: { owner: string } } }>(mutation, { id: gid('Actionable', row.id), v: row.version }, { Cookie: sessions.editor!, 'x-csrf-token': csrf! });
      expect(ok.errors).toBeUndefined();
      expect(ok.data.updateActionable.actionable.owner).toBe('via graphql');
    });

    it('editors and admins open a draft with incident(slug); viewers and anonymous readers do not see it', async () => {
      const document = '# Cache node swap left the pool cold\n\n## Summary\nA cache node was replaced at peak and the new one started empty.\n\n## Timeline (UTC)\n- 10:00 Node replaced\n- 10:05 Hit ratio fell\n';
      const imported = await t.gql<{ importPostmortem: { incident: { slug: string; status: string } } }>(
        'mutation($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug status } } }',
        { input: { document } },
        as('editor'),
      );
      expect(imported.errors).toBeUndefined();
      const { slug, status } = imported.data.importPostmortem.incident;
      expect(status).toBe('DRAFT');
      const read = 'query($slug: String!) { incident(slug: $slug) { slug status timeline { asWritten } } }';
      for (const headers of [as('editor'), as('admin'), { Cookie: sessions.editor! }]) {
        const res = await t.gql<{ incident: { slug: string; status: string; timeline: unknown[] } }>(read, { slug }, headers);
        expect(res.errors).toBeUndefined();
        expect(res.data.incident).toMatchObject({ slug, status: 'DRAFT' });
        expect(res.data.incident.timeline).toHaveLength(2);
      }
      for (const headers of [{}, as('viewer'), { Cookie: sessions.viewer! }]) {
        expect((await t.gql(read, { slug }, headers)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      }

      // The review page and its publish form: editors only, with the session's token.
      const server = t.app.getHttpServer();
      const version = String((await prisma.incident.findUniqueOrThrow({ where: { slug } })).version);
      const before = await tableHashes(t.db.url);
      expect((await request(server).get(`/drafts/${slug}`)).status).toBe(303);
      expect((await request(server).get(`/drafts/${slug}`).set('Cookie', sessions.viewer!)).status).toBe(403);
      expect((await request(server).post(`/drafts/${slug}/publish`).type('form').send({ version })).status).toBe(303);
      expect((await request(server).post(`/drafts/${slug}/publish`).set('Cookie', sessions.viewer!).type('form').send({ version })).status).toBe(403);
      const review = await request(server).get(`/drafts/${slug}`).set('Cookie', sessions.editor!);
      expect(review.status).toBe(200);
      expect((await request(server).post(`/drafts/${slug}/publish`).set('Cookie', sessions.editor!).type('form').send({ version })).status).toBe(403);
      const stale = await request(server).post(`/drafts/${slug}/publish`).set('Cookie', sessions.editor!).type('form').send({ _csrf: hidden(review.text, '_csrf'), version: String(Number(version) + 5) });
      expect(stale.status).toBe(409);
      expect(stale.text).toContain('nothing was published');
      expect(await tableHashes(t.db.url)).toEqual(before);
      const published = await request(server).post(`/drafts/${slug}/publish`).set('Cookie', sessions.admin!).type('form').send({ _csrf: hidden((await request(server).get(`/drafts/${slug}`).set('Cookie', sessions.admin!)).text, '_csrf'), version });
      expect([published.status, published.headers.location]).toEqual([303, `/incidents/${slug}`]);
      expect((await prisma.incident.findUniqueOrThrow({ where: { slug } })).status).toBe('published');
    });

    it('admins manage accounts over the API; others are refused', async () => {
      const create = 'mutation($input: CreateAccountInput!) { createAccount(input: $input) { account { id name role disabledAt } password } }';
      const before = await tableHashes(t.db.url);
      const refused = await t.gql(create, { input: { name: 'new-person', role: 'EDITOR' } }, as('editor'));
      expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(await tableHashes(t.db.url)).toEqual(before);
      const made = await t.gql<{ createAccount: { account: { id: string; name: string; role: string }; password: string } }>(create, { input: { name: 'new-person', role: 'EDITOR' } }, as('admin'));
      expect(made.errors).toBeUndefined();
      expect(made.data.createAccount.account).toMatchObject({ name: 'new-person', role: 'EDITOR' });
      const signedIn = await signIn('new-person', made.data.createAccount.password);
      expect(signedIn.status).toBe(303);
      const cookie = sessionOf(signedIn);
      const disable = await t.gql('mutation { updateAccount(input: { account: "new-person", disabled: true }) { account { disabledAt } } }', {}, as('admin'));
      expect(disable.errors).toBeUndefined();
      // Disabling ends the sessions at once.
      const after = await request(t.app.getHttpServer()).get(EDIT).set('Cookie', cookie);
      expect(after.status).toBe(303);
      expect(after.headers.location).toContain('ended=1');
      const list = await t.gql<{ accounts: { totalCount: number; nodes: { name: string }[] } }>('{ accounts(first: 2) { totalCount nodes { name } } }', {}, as('admin'));
      expect(list.data.accounts.totalCount).toBe(6);
      expect(list.data.accounts.nodes.map((n) => n.name)).toEqual(['admin-person', 'editor-person']);
      // An account is named by its global id as well as by its name.
      const byId = await t.gql<{ updateAccount: { account: { name: string; disabledAt: string | null } } }>(
        'mutation($id: ID!) { updateAccount(input: { account: $id, disabled: false }) { account { name disabledAt } } }',
        { id: made.data.createAccount.account.id },
        as('admin'),
      );
      expect(byId.data.updateAccount.account).toEqual({ name: 'new-person', disabledAt: null });
    });
  });

  describe('session expiry and sign-out', () => {
    it('ends an idle session and one past its absolute expiry', async () => {
      const idle = sessionOf(await signIn('expiring-person'));
      expect((await request(t.app.getHttpServer()).get(EDIT).set('Cookie', idle)).status).toBe(200);
      await prisma.$executeRaw`UPDATE "AccountSession" SET "lastUsedAt" = now() - interval '2 hours' WHERE "accountId" = (SELECT "id" FROM "Account" WHERE "name" = 'expiring-person')`;
      const refused = await request(t.app.getHttpServer()).get(EDIT).set('Cookie', idle);
      expect(refused.status).toBe(303);
      expect(refused.headers.location).toBe(`/sign-in?next=${encodeURIComponent(EDIT)}&ended=1`);

      const old = sessionOf(await signIn('expiring-person'));
      await prisma.$executeRaw`UPDATE "AccountSession" SET "expiresAt" = now() - interval '1 second' WHERE "accountId" = (SELECT "id" FROM "Account" WHERE "name" = 'expiring-person')`;
      expect((await request(t.app.getHttpServer()).get(EDIT).set('Cookie', old)).headers.location).toContain('ended=1');
    });

    it('signing out ends the session at once, and needs the form token', async () => {
      const cookie = sessionOf(await signIn('expiring-person'));
      const page = await request(t.app.getHttpServer()).get('/sign-in').set('Cookie', cookie);
      expect(page.text).toContain('signed in as <strong>expiring-person</strong>');
      expect((await request(t.app.getHttpServer()).post('/sign-out').set('Cookie', cookie).type('form').send({})).status).toBe(403);
      const out = await request(t.app.getHttpServer()).post('/sign-out').set('Cookie', cookie).type('form').send({ _csrf: hidden(page.text, '_csrf') });
      expect(out.status).toBe(303);
      expect((await request(t.app.getHttpServer()).get(EDIT).set('Cookie', cookie)).headers.location).toContain('ended=1');
    });
  });
});

describe('PUBLIC_READ=false: every page needs a session', () => {
  let t: TestApp;
  let prisma: PrismaService;
  beforeAll(async () => {
    t = await startTestApp({ env: { ...ENV, PUBLIC_READ: 'false' } });
    prisma = testPrisma(t.db.url);
    await new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 43200 }).create('reader', 'viewer', { name: 'test-setup', tokenId: null }, PASSWORD);
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('sends a reader without a session to sign in, and shows the page once signed in', async () => {
    for (const path of ['/', '/incidents', `/incidents/${STACKEGG}`, '/actionables', '/patterns']) {
      const res = await request(t.app.getHttpServer()).get(path);
      expect([path, res.status, res.headers.location]).toEqual([path, 303, `/sign-in?next=${encodeURIComponent(path)}`]);
    }
    const form = await request(t.app.getHttpServer()).get('/sign-in');
    expect(form.status).toBe(200);
    const signedIn = await request(t.app.getHttpServer())
      .post('/sign-in')
      .set('Cookie', cookieHeader(cookiesOf(form)))
      .type('form')
      .send({ _csrf: hidden(form.text, '_csrf'), name: 'reader', password: PASSWORD, next: `/incidents/${STACKEGG}` });
    const cookie = `hindsight_session=${cookiesOf(signedIn).hindsight_session}`;
    const page = await request(t.app.getHttpServer()).get(`/incidents/${STACKEGG}`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    const gql = await t.gql<{ incident: { slug: string } }>(`{ incident(slug: "${STACKEGG}") { slug } }`, {}, { Cookie: cookie });
    expect(gql.data.incident.slug).toBe(STACKEGG);
  });
});
