import request from 'supertest';
import type { PrismaService } from '@hindsight/db';
import { AccountsService, type Role } from '@hindsight/tracking';
import { issueTokens } from './support/api-tokens';
import { runCli } from './support/cli';
import { gid } from './support/global-ids';
import { cookieHeader, cookiesOf, hidden } from './support/page-session';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const KEY = 'watch-datacenter-performance';
const EDIT = `/incidents/${STACKEGG}/actionables/${KEY}/edit`;
const PASSWORD = 'correct horse battery';
const ENV = { PASSWORD_HASH_ROUNDS: '4', RATE_LIMIT_SIGN_INS_PER_ACCOUNT: '100', RATE_LIMIT_SIGN_INS_PER_ADDRESS: '1000' };
const RUNBOOK = 'https://wiki.example.com/runbooks/keep-alive';

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'");

describe('teams, owners, the assigned-to-me board and runbook citations on the pages', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let as: (role: Role) => Record<string, string>;
  const sessions: Partial<Record<Role | 'sre', string>> = {};
  const http = () => request(t.app.getHttpServer());

  async function signIn(name: string): Promise<string> {
    const form = await http().get('/sign-in');
    const res = await http().post('/sign-in').set('Cookie', cookieHeader(cookiesOf(form))).type('form').send({ _csrf: hidden(form.text, '_csrf'), name, password: PASSWORD, next: '/' });
    expect(res.status).toBe(303);
    return `hindsight_session=${cookiesOf(res).hindsight_session}`;
  }
  async function formOf(url: string, cookie: string) {
    const res = await http().get(url).set('Cookie', cookie);
    return { res, csrf: hidden(res.text, '_csrf')!, version: hidden(res.text, 'version') };
  }
  const row = () => prisma.actionable.findFirstOrThrow({ where: { key: KEY, incident: { slug: STACKEGG } } });

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    prisma = testPrisma(t.db.url);
    ({ as } = await issueTokens(t));
    const accounts = new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 43200 });
    const actor = { name: 'test-setup', tokenId: null };
    for (const role of ['viewer', 'editor', 'admin'] as const) {
      await accounts.create(`${role}-person`, role, actor, PASSWORD);
      sessions[role] = await signIn(`${role}-person`);
    }
    await accounts.create('sre-person', 'viewer', actor, PASSWORD);
    sessions.sre = await signIn('sre-person');
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('npm run team: creates a team, adds and lists members, audited under the operator', async () => {
    expect((await runCli('team', ['create', 'SRE'], t.db.url)).code).toBe(0);
    const added = await runCli('team', ['add', 'sre', 'sre-person'], t.db.url);
    expect(added.stdout).toContain('Team "SRE" members: sre-person.');
    expect((await runCli('team', ['list'], t.db.url)).stdout).toContain('SRE\tsre-person');
    const refused = await runCli('team', ['add', 'SRE', 'nobody'], t.db.url);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Account "nobody" does not exist.');
    const events = await prisma.auditEvent.findMany({ where: { entity: 'team' }, orderBy: { id: 'asc' } });
    expect(events.map((e) => [e.action, e.field, e.to])).toEqual([
      ['create', null, { name: 'SRE' }],
      ['update', 'members', ['sre-person']],
    ]);
    expect(events[0]!.actor).toMatch(/^cli:/);
  });

  it('admins manage teams over GraphQL; editors are refused and nothing is written', async () => {
    const before = await tableHashes(t.db.url);
    const denied = await t.gql(`mutation { createTeam(input: { name: "Network" }) { team { name } } }`, {}, as('editor'));
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await tableHashes(t.db.url)).toEqual(before);
    const created = await t.gql<{ createTeam: { team: { id: string; name: string } } }>(`mutation { createTeam(input: { name: "Network" }) { team { id name } } }`, {}, as('admin'));
    expect(created.errors).toBeUndefined();
    const dup = await t.gql(`mutation { createTeam(input: { name: "network" }) { team { name } } }`, {}, as('admin'));
    expect(dup.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const member = await t.gql<{ addTeamMember: { team: { version: number; members: { nodes: { name: string }[] } } } }>(
      `mutation { addTeamMember(input: { team: "Network", account: "editor-person" }) { team { version members { nodes { name } } } } }`,
      {},
      as('admin'),
    );
    expect(member.data.addTeamMember.team).toEqual({ version: 2, members: { nodes: [{ name: 'editor-person' }] } });
    const list = await t.gql<{ teams: { totalCount: number; nodes: { name: string }[] } }>(`{ teams { totalCount nodes { name } } }`, {}, as('viewer'));
    expect(list.data.teams.nodes.map((n) => n.name)).toEqual(['Network', 'SRE']);
    const node = await t.gql<{ node: { name: string } }>(`query($id: ID!) { node(id: $id) { ... on Team { name } } }`, { id: created.data.createTeam.team.id });
    expect(node.data.node.name).toBe('Network');
  });

  it('an actionable is owned by an account or a team; the owner filter finds all three kinds by part of the name, any case', async () => {
    const a = await row();
    const set = (patch: Record<string, unknown>, version: number) =>
      t.gql<{ updateActionable: { actionable: { version: number; owner: string | null; ownedBy: { kind: string; name: string; teamId: string | null } | null } } }>(
        `mutation($i: UpdateActionableInput!) { updateActionable(input: $i) { actionable { version owner ownedBy { kind name teamId } } } }`,
        { i: { id: gid('Actionable', a.id), expectedVersion: version, patch } },
        as('editor'),
      );
    const both = await set({ ownerAccount: 'sre-person', ownerTeam: 'SRE' }, a.version);
    expect(both.errors?.[0]?.extensions?.problems).toEqual([{ field: 'input.patch.ownerTeam', reason: expect.stringContaining('a follow-up has one owner') }]);
    const unknown = await set({ ownerTeam: 'Nobody' }, a.version);
    expect(unknown.errors?.[0]?.extensions?.problems).toEqual([{ field: 'input.patch.ownerTeam', reason: 'there is no team named "Nobody"' }]);
    const team = await set({ ownerTeam: 'sre' }, a.version);
    expect(team.errors).toBeUndefined();
    const sre = await prisma.team.findUniqueOrThrow({ where: { name: 'SRE' } });
    expect(team.data.updateActionable.actionable).toEqual({ version: a.version + 1, owner: null, ownedBy: { kind: 'TEAM', name: 'SRE', teamId: gid('Team', sre.id) } });
    const owners = async (owner: string) =>
      (await t.gql<{ actionables: { nodes: { key: string }[] } }>(`query($o: String!) { actionables(filter: { owner: $o, status: [OPEN, IN_PROGRESS, DONE, WONT_DO] }, first: 100) { nodes { key } } }`, { o: owner })).data.actionables.nodes.map((n) => n.key);
    expect(await owners('sR')).toContain(KEY);
    // A free-text owner (ChangeProp's imported "RESTBase") is still found by part of its name.
    expect(await owners('restb')).toContain('restbase-generic-event-loop-prevention');
    const created = await t.gql<{ createActionable: { actionable: { owner: string | null; ownedBy: { kind: string; name: string } } } }>(
      `mutation { createActionable(input: { incident: "${STACKEGG}", title: "Review the session cap alert", ownerTeam: "network" }) { actionable { owner ownedBy { kind name } } } }`,
      {},
      as('editor'),
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createActionable.actionable).toEqual({ owner: null, ownedBy: { kind: 'TEAM', name: 'Network' } });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { actionableId: a.id, field: 'ownerTeam' } });
    expect([audit.from, audit.to]).toEqual([null, 'SRE']);
  });

  it('deleting a team clears the owner of what it owned, each follow-up with a new version and an audit event', async () => {
    const made = await t.gql(`mutation { createTeam(input: { name: "Short-lived" }) { team { name } } }`, {}, as('admin'));
    expect(made.errors).toBeUndefined();
    const owned = await t.gql<{ createActionable: { actionable: { id: string; version: number } } }>(
      `mutation { createActionable(input: { incident: "${STACKEGG}", title: "Owned by a team that goes away", ownerTeam: "short-lived" }) { actionable { id version } } }`,
      {},
      as('editor'),
    );
    expect(owned.errors).toBeUndefined();
    const { id, version } = owned.data.createActionable.actionable;
    const gone = await t.gql(`mutation { deleteTeam(input: { team: "Short-lived" }) { deletedTeamId } }`, {}, as('admin'));
    expect(gone.errors).toBeUndefined();
    const after = await t.gql<{ node: { version: number; ownedBy: unknown } }>(`query($id: ID!) { node(id: $id) { ... on Actionable { version ownedBy { kind name } } } }`, { id });
    expect(after.data.node).toEqual({ version: version + 1, ownedBy: null });
    const local = await prisma.actionable.findFirstOrThrow({ where: { title: 'Owned by a team that goes away' } });
    const audit = await prisma.auditEvent.findMany({ where: { actionableId: local.id, field: 'ownerTeam' } });
    expect(audit.map((e) => [e.from, e.to, e.version])).toEqual([['Short-lived', null, version + 1]]);
  });

  it('two teams whose names differ only in case cannot both be created, even at once', async () => {
    const results = await Promise.all(['Pager', 'pager', 'PAGER'].map((name) => t.gql(`mutation($n: String!) { createTeam(input: { name: $n }) { team { name } } }`, { n: name }, as('admin'))));
    expect(results.filter((r) => !r.errors)).toHaveLength(1);
    expect(results.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(2);
    expect(await prisma.team.count({ where: { name: { equals: 'pager', mode: 'insensitive' } } })).toBe(1);
  });

  it('"assigned to me" lists what the person or their teams own, as a GraphQL filter and a page', async () => {
    const other = await prisma.actionable.findFirstOrThrow({ where: { key: 'measure-keep-alive-effect-via-client-timings' } });
    await t.gql(`mutation($i: UpdateActionableInput!) { updateActionable(input: $i) { actionable { id } } }`, { i: { id: gid('Actionable', other.id), expectedVersion: other.version, patch: { ownerAccount: 'viewer-person' } } }, as('editor'));
    const mine = async (cookie: string) => {
      const me = await formOf('/actionables', cookie);
      const res = await http().post('/graphql').set('Cookie', cookie).set('x-csrf-token', hidden(me.res.text, '_csrf') ?? '').send({ query: `{ actionables(filter: { assignedToMe: true }) { nodes { key } } }` });
      return res.body as { data?: { actionables: { nodes: { key: string }[] } }; errors?: { extensions: { code: string } }[] };
    };
    expect((await mine(sessions.sre!)).data?.actionables.nodes.map((n) => n.key)).toEqual([KEY]);
    expect((await mine(sessions.viewer!)).data?.actionables.nodes.map((n) => n.key)).toEqual(['measure-keep-alive-effect-via-client-timings']);
    const token = await t.gql(`{ actionables(filter: { assignedToMe: true }) { nodes { key } } }`, {}, as('viewer'));
    expect(token.errors?.[0]?.extensions?.problems).toEqual([{ field: 'filter.assignedToMe', reason: expect.stringContaining('signed-in person') }]);

    const page = await http().get('/actionables/mine').set('Cookie', sessions.sre!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Assigned to me');
    expect(page.text).toContain(`#actionable-${KEY}`);
    expect(page.text).not.toContain('#actionable-measure-keep-alive-effect-via-client-timings');
    expect(decode(page.text)).toContain('or by the team SRE');
    const anonymous = await http().get('/actionables/mine');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/sign-in?next=%2Factionables%2Fmine');
  });

  it('the follow-up form offers accounts and teams, keeps an imported owner, and saves the choice', async () => {
    const { res, csrf, version } = await formOf(EDIT, sessions.editor!);
    expect(res.text).toContain('<option value="team:SRE" selected>SRE (team)</option>');
    expect(res.text).toContain('<option value="account:sre-person">sre-person</option>');
    const save = await http().post(EDIT).set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, version, status: 'in_progress', owner: 'account:sre-person', dueDate: '', priority: '', references: '', note: '' });
    expect(save.status).toBe(303);
    const saved = await prisma.actionable.findFirstOrThrow({ where: { key: KEY }, include: { ownerAccount: true } });
    expect([saved.ownerAccount?.name, saved.ownerTeamId, saved.owner]).toEqual(['sre-person', null, null]);
    const imported = await formOf(`/incidents/changeprop-feedback-loop-2016/actionables/restbase-generic-event-loop-prevention/edit`, sessions.editor!);
    expect(imported.res.text).toContain('<option value="text:RESTBase" selected>RESTBase (as written)</option>');
    const incident = await http().get(`/incidents/${STACKEGG}`);
    expect(incident.text).toMatch(/<dt>Owner<\/dt><dd>sre-person<\/dd>/);
  });

  describe('runbook citation forms, per role', () => {
    const CITE = `/runbooks/cite?kind=actionable&incident=${STACKEGG}&key=${KEY}`;

    it('anonymous and viewers are refused the form and the writes, and nothing is written', async () => {
      const before = await tableHashes(t.db.url);
      expect((await http().get(CITE)).status).toBe(303);
      expect((await http().post('/runbooks/cite').type('form').send({ kind: 'actionable', incident: STACKEGG, key: KEY, url: RUNBOOK, title: 'x' })).status).toBe(303);
      expect((await http().get(CITE).set('Cookie', sessions.viewer!)).status).toBe(403);
      const viewerForm = await formOf('/actionables', sessions.viewer!);
      const post = await http().post('/runbooks/cite').set('Cookie', sessions.viewer!).type('form').send({ _csrf: hidden(viewerForm.res.text, '_csrf'), kind: 'actionable', incident: STACKEGG, key: KEY, url: RUNBOOK, title: 'x' });
      expect(post.status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(before);
    });

    it('an editor registers a citation (CSRF token required), sees it on the page, and removes it; a viewer cannot remove it', async () => {
      const { res, csrf } = await formOf(CITE, sessions.editor!);
      expect(res.status).toBe(200);
      const before = await tableHashes(t.db.url);
      const noToken = await http().post('/runbooks/cite').set('Cookie', sessions.editor!).type('form').send({ kind: 'actionable', incident: STACKEGG, key: KEY, url: RUNBOOK, title: 'Keep-alive runbook' });
      expect(noToken.status).toBe(403);
      const bad = await http().post('/runbooks/cite').set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, kind: 'actionable', incident: STACKEGG, key: KEY, url: 'not a url', title: 'Keep-alive runbook' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('is not an http(s) address');
      expect(await tableHashes(t.db.url)).toEqual(before);
      const ok = await http().post('/runbooks/cite').set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, kind: 'actionable', incident: STACKEGG, key: KEY, url: RUNBOOK, title: 'Keep-alive runbook' });
      expect(ok.status).toBe(303);
      expect(ok.headers.location).toBe(`/runbooks/cite?kind=actionable&incident=${STACKEGG}&key=${KEY}`);
      const page = await http().get(`/incidents/${STACKEGG}`);
      expect(page.text).toContain(`<a href="${RUNBOOK}" rel="noopener noreferrer">Keep-alive runbook</a>`);
      const citation = await prisma.runbookCitation.findFirstOrThrow();
      expect(citation.citedBy).toBe('editor-person');

      const viewerForm = await formOf('/actionables', sessions.viewer!);
      const beforeRemove = await tableHashes(t.db.url);
      expect((await http().post(`/runbooks/citations/${citation.id}/remove`).set('Cookie', sessions.viewer!).type('form').send({ _csrf: hidden(viewerForm.res.text, '_csrf') })).status).toBe(403);
      expect(await tableHashes(t.db.url)).toEqual(beforeRemove);
      const removed = await http().post(`/runbooks/citations/${citation.id}/remove`).set('Cookie', sessions.admin!).type('form').send({ _csrf: (await formOf(CITE, sessions.admin!)).csrf });
      expect(removed.status).toBe(303);
      expect(await prisma.runbookCitation.count()).toBe(0);
      // Cite it again for the notice below.
      await http().post('/runbooks/cite').set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, kind: 'actionable', incident: STACKEGG, key: KEY, url: RUNBOOK, title: 'Keep-alive runbook' });
    });

    it('closing a cited follow-up on its form leads to a notice naming the runbook', async () => {
      const { csrf, version } = await formOf(EDIT, sessions.editor!);
      const save = await http().post(EDIT).set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, version, status: 'done', owner: 'account:sre-person', dueDate: '', priority: '', references: '', note: 'dashboards in place' });
      expect(save.status).toBe(303);
      expect(save.headers.location).toMatch(/^\/runbooks\/notice\?/);
      const notice = await http().get(save.headers.location!).set('Cookie', sessions.editor!);
      expect(notice.status).toBe(200);
      expect(decode(notice.text)).toContain('was closed; one runbook cites it and may need an update: “Keep-alive runbook”');
      expect(notice.text).toContain(`href="/incidents/${STACKEGG}#actionable-${KEY}"`);
    });

    it('cites a pattern and an incident from their pages, and lists them there', async () => {
      const pattern = await prisma.pattern.findFirstOrThrow({ where: { incidents: { some: { incident: { slug: STACKEGG } } } } });
      const { csrf } = await formOf(`/runbooks/cite?kind=pattern&incident=&key=${pattern.key}`, sessions.editor!);
      for (const [kind, key] of [['pattern', pattern.key], ['incident', '']] as const) {
        const res = await http().post('/runbooks/cite').set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, kind, incident: kind === 'incident' ? STACKEGG : '', key, url: 'https://wiki.example.com/runbooks/lb', title: 'Load balancer runbook' });
        expect(res.status).toBe(303);
      }
      expect((await http().get(`/patterns/${pattern.key}`)).text).toContain('Load balancer runbook');
      expect((await http().get(`/incidents/${STACKEGG}`)).text).toMatch(/id="runbooks"[\s\S]*Load balancer runbook/);
    });
  });

  it("the incident export names each follow-up's owner", async () => {
    const res = await http().get(`/incidents/${STACKEGG}.json`);
    const item = (res.body as { actionables: { key: string; owner: string | null; ownedBy: unknown }[] }).actionables.find((a) => a.key === KEY)!;
    expect(item).toMatchObject({ owner: null, ownedBy: { kind: 'ACCOUNT', name: 'sre-person' } });
    const md = await http().get(`/incidents/${STACKEGG}.md`);
    expect(md.text).toMatch(/Keep watching data-center performance\]\([^)]*\): Done, owner sre-person/);
  });

  it('retitling a cited incident or causal factor on its page leads to a notice naming the runbooks', async () => {
    const edit = `/incidents/${STACKEGG}/edit`;
    const { csrf, version } = await formOf(edit, sessions.editor!);
    const save = await http().post(edit).set('Cookie', sessions.editor!).type('form').send({ _csrf: csrf, version, title: 'StackEgg overloads HAProxy (2015)' });
    expect(save.status).toBe(303);
    expect(save.headers.location).toMatch(/^\/runbooks\/notice\?kind=incident/);
    const notice = await http().get(save.headers.location!);
    expect(decode(notice.text)).toContain('The incident “StackEgg overloads HAProxy (2015)” has a new title; one runbook cites it and may need an update: “Load balancer runbook”.');

    const factor = await prisma.causalFactor.findFirstOrThrow({ where: { incident: { slug: STACKEGG } }, orderBy: { position: 'asc' } });
    await t.gql(`mutation($i: CiteInRunbookInput!) { citeInRunbook(input: $i) { created } }`, { i: { url: RUNBOOK, title: 'Keep-alive runbook', target: gid('CausalFactor', factor.id) } }, as('editor'));
    const parts = await formOf(`/incidents/${STACKEGG}/parts`, sessions.editor!);
    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    const changed = await http()
      .post(`/incidents/${STACKEGG}/parts`)
      .set('Cookie', sessions.editor!)
      .type('form')
      .send({ _csrf: parts.csrf, version: String(incident.version), part: 'factor', key: factor.key, title: 'A new title for the factor', role: factor.role, component: factor.component ?? '', text: factor.text });
    expect(changed.status).toBe(303);
    expect(changed.headers.location).toMatch(/^\/runbooks\/notice\?kind=causal_factor/);
    expect(decode((await http().get(changed.headers.location!)).text)).toContain('has a new title; one runbook cites it and may need an update: “Keep-alive runbook”.');
    expect((await prisma.causalFactor.findUniqueOrThrow({ where: { id: factor.id } })).title).toBe('A new title for the factor');
    // A change that leaves the title alone (here the text and component) goes straight back.
    const parts2 = await formOf(`/incidents/${STACKEGG}/parts`, sessions.editor!);
    const same = await http()
      .post(`/incidents/${STACKEGG}/parts`)
      .set('Cookie', sessions.editor!)
      .type('form')
      .send({ _csrf: parts2.csrf, version: String(incident.version + 1), part: 'factor', key: factor.key, title: 'A new title for the factor', role: factor.role, component: 'haproxy', text: `${factor.text} (reworded)` });
    expect(same.headers.location).toBe(`/incidents/${STACKEGG}/parts`);
  });
});
