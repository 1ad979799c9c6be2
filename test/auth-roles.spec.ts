import { Controller, Get, Global, Module, Post, Req, type DynamicModule, type INestApplication } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Request } from 'express';
import request from 'supertest';
import fs from 'node:fs';
import path from 'node:path';
import { PrismaService, projectRoot } from '@hindsight/db';
import { AccountsService, ApiTokensService, RunbooksService, TeamsService, type Role } from '@hindsight/tracking';
import { AuthModule } from '../apps/api/src/auth/auth.module';
import { principalOf } from '../apps/api/src/auth/request-principal';
import { Public, RequireRole } from '../apps/api/src/auth/roles.decorator';
import { AppErrorFilter } from '../apps/api/src/common/app-error.filter';
import { loadConfig } from '../apps/api/src/config/app-config';
import { APP_CONFIG } from '../apps/api/src/config/app-config.token';
import { gid } from './support/global-ids';
import { issueTokens, type RoleTokens } from './support/api-tokens';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const SLACK = 'slack-cache-metastability-2022';
/** Mutations that only compute (and cache) an answer: allowed like queries. */
const READ_OPERATIONS = ['runModel', 'runModelEnsemble', 'runModelSweep', 'findModelBoundary'];
const seedModelSpec = (slug: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'models', `${slug}.model.json`), 'utf8')) as Record<string, unknown>;
const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const ROLES_BELOW: Record<Role, (Role | null)[]> = { viewer: [null], editor: [null, 'viewer'], admin: [null, 'viewer', 'editor'] };

/** Every row of every table the API can write, hashed: equal before and after means no trace. */
async function dataFingerprint(prisma: PrismaService): Promise<Record<string, string>> {
  const tables = ['Incident', 'IncidentSlugAlias', 'TimelineEvent', 'CausalFactor', 'CausalLink', 'Actionable', 'ExternalReference', 'ActionableFactor', 'IncidentPattern', 'AuditEvent', 'ApiToken', 'Account', 'AccountSession', 'Team', 'TeamMember', 'Runbook', 'RunbookCitation'];
  const out: Record<string, string> = {};
  for (const table of tables) {
    const [row] = await prisma.$queryRawUnsafe<{ digest: string | null }[]>(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${table}" t`);
    out[table] = row?.digest ?? 'empty';
  }
  return out;
}

interface MutationCase {
  mutation: string;
  role: Role;
  query: string;
  /** Arguments that would succeed for the required role, computed from the data at call time. */
  variables: () => Promise<Record<string, unknown>>;
}

describe('roles: who may run which mutation', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let tokens: RoleTokens;
  let as: (role: Role) => Record<string, string>;

  const incidentVersion = async (slug: string) => (await prisma.incident.findUniqueOrThrow({ where: { slug } })).version;
  const actionable = async (key: string) => prisma.actionable.findFirstOrThrow({ where: { key }, select: { id: true, version: true } });
  const spareCitation = async () => {
    const a = await actionable('fix-mcrib-control-loop');
    const { citation } = await new RunbooksService(prisma).cite({ url: 'https://wiki.example.com/runbooks/spare', title: 'Spare runbook', target: { kind: 'actionable', id: a.id } }, { name: 'test-setup', tokenId: null });
    return citation.id;
  };

  // In the order the "allowed" pass runs them, so each finds the data it needs.
  const CASES: MutationCase[] = [
    {
      mutation: 'createActionable',
      role: 'editor',
      query: `mutation($i: CreateActionableInput!) { createActionable(input: $i) { actionable { id } } }`,
      variables: async () => ({ i: { incident: SLACK, title: 'Role test item' } }),
    },
    {
      mutation: 'updateActionable',
      role: 'editor',
      query: `mutation($id: ID!, $v: Int!) { updateActionable(input: { id: $id, expectedVersion: $v, patch: { owner: "someone" } }) { actionable { id } } }`,
      variables: async () => {
        const a = await actionable('fix-mcrib-control-loop');
        return { id: gid('Actionable', a.id), v: a.version };
      },
    },
    {
      mutation: 'transitionActionable',
      role: 'editor',
      query: `mutation($id: ID!, $v: Int!) { transitionActionable(input: { id: $id, to: IN_PROGRESS, expectedVersion: $v }) { actionable { id } } }`,
      variables: async () => {
        const a = await actionable('fix-mcrib-control-loop');
        return { id: gid('Actionable', a.id), v: a.version };
      },
    },
    {
      mutation: 'deleteActionable',
      role: 'admin',
      query: `mutation($id: ID!, $v: Int!) { deleteActionable(input: { id: $id, expectedVersion: $v }) { deletedActionableId } }`,
      variables: async () => {
        const a = await actionable('audit-scatter-queries-behind-caches');
        return { id: gid('Actionable', a.id), v: a.version };
      },
    },
    {
      mutation: 'createIncident',
      role: 'editor',
      query: `mutation($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`,
      variables: async () => ({ i: { slug: 'role-test-incident', title: 'Role test', organization: 'Test', summary: 'Nothing happened.', source: { title: 'Test', language: 'en' } } }),
    },
    {
      mutation: 'publishIncident',
      role: 'editor',
      query: `mutation($v: Int!) { publishIncident(input: { slug: "role-test-incident", expectedVersion: $v }) { incident { status } } }`,
      variables: async () => ({ v: (await prisma.incident.findUnique({ where: { slug: 'role-test-incident' } }))?.version ?? 1 }),
    },
    {
      mutation: 'importPostmortem',
      role: 'editor',
      query: `mutation($i: ImportPostmortemInput!) { importPostmortem(input: $i) { created } }`,
      variables: async () => ({
        i: { document: '# Cache node restart empties the cache\n\n## Summary\nA restart emptied the cache and the database took the load.\n\n## Timeline (UTC)\n- 10:00 Restart\n- 10:05 Database alert\n', format: 'MARKDOWN' },
      }),
    },
    {
      mutation: 'updateIncident',
      role: 'editor',
      query: `mutation($v: Int!) { updateIncident(input: { slug: "${SLACK}", expectedVersion: $v, patch: { impact: "Rewritten by the role test." } }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'upsertTimelineEvent',
      role: 'editor',
      query: `mutation($v: Int!) { upsertTimelineEvent(input: { slug: "${SLACK}", expectedVersion: $v, event: { key: "role-test-event", kind: OBSERVATION, text: "Noted." } }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'deleteTimelineEvent',
      role: 'editor',
      query: `mutation($v: Int!) { deleteTimelineEvent(input: { slug: "${SLACK}", expectedVersion: $v, key: "replica-reads-enabled" }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'upsertCausalFactor',
      role: 'editor',
      query: `mutation($v: Int!) { upsertCausalFactor(input: { slug: "${SLACK}", expectedVersion: $v, factor: { key: "role-test-factor", role: CONDITION, component: "test", text: "A condition." } }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'upsertCausalLink',
      role: 'editor',
      query: `mutation($v: Int!) { upsertCausalLink(input: { slug: "${SLACK}", expectedVersion: $v, link: { from: "role-test-factor", to: "cache-hit-rate-drop", kind: CAUSES } }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'deleteCausalLink',
      role: 'editor',
      query: `mutation($v: Int!) { deleteCausalLink(input: { slug: "${SLACK}", expectedVersion: $v, link: { from: "role-test-factor", to: "cache-hit-rate-drop", kind: CAUSES } }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'deleteCausalFactor',
      role: 'editor',
      query: `mutation($v: Int!) { deleteCausalFactor(input: { slug: "${SLACK}", expectedVersion: $v, key: "role-test-factor" }) { incident { version } } }`,
      variables: async () => ({ v: await incidentVersion(SLACK) }),
    },
    {
      mutation: 'deleteIncident',
      role: 'admin',
      query: `mutation($v: Int!) { deleteIncident(input: { slug: "${STACKEGG}", expectedVersion: $v }) { deletedIncidentId } }`,
      variables: async () => ({ v: await incidentVersion(STACKEGG) }),
    },
    {
      mutation: 'createModelSpec',
      role: 'editor',
      query: `mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key version } } }`,
      variables: async () => ({ s: { ...seedModelSpec(STACKEGG), version: 'role-test' } }),
    },
    {
      mutation: 'attachModel',
      role: 'editor',
      query: `mutation { attachModel(input: { incident: "${SLACK}", model: "${STACKEGG}", version: "role-test" }) { model { key version } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'attachSuggestedModel',
      role: 'editor',
      query: `mutation { attachSuggestedModel(input: { incident: "${SLACK}", template: "capacity-loss" }) { specVersion { key version } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'citeInRunbook',
      role: 'editor',
      query: `mutation($t: ID!) { citeInRunbook(input: { url: "https://wiki.example.com/runbooks/role-test", title: "Role test runbook", target: $t }) { created } }`,
      variables: async () => ({ t: gid('Actionable', (await actionable('fix-mcrib-control-loop')).id) }),
    },
    {
      mutation: 'removeRunbookCitation',
      role: 'editor',
      query: `mutation($c: ID!) { removeRunbookCitation(input: { citationId: $c }) { removedCitationId } }`,
      variables: async () => {
        // The refusals run against a citation that exists; the allowed pass removes the one citeInRunbook made.
        const existing = await prisma.runbookCitation.findFirst({ select: { id: true } });
        return { c: gid('RunbookCitation', existing?.id ?? (await spareCitation())) };
      },
    },
    {
      mutation: 'createTeam',
      role: 'admin',
      query: `mutation { createTeam(input: { name: "Role test team" }) { team { name } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'addTeamMember',
      role: 'admin',
      query: `mutation { addTeamMember(input: { team: "Spare team", account: "spare-person" }) { team { version } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'removeTeamMember',
      role: 'admin',
      query: `mutation { removeTeamMember(input: { team: "Spare team", account: "spare-person" }) { team { version } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'deleteTeam',
      role: 'admin',
      query: `mutation { deleteTeam(input: { team: "Spare team" }) { deletedTeamId } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'revokeApiToken',
      role: 'admin',
      query: `mutation { revokeApiToken(input: { token: "spare-token" }) { apiToken { revokedAt } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'createAccount',
      role: 'admin',
      query: `mutation { createAccount(input: { name: "case-person", role: VIEWER }) { account { name } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'updateAccount',
      role: 'admin',
      query: `mutation { updateAccount(input: { account: "spare-person", role: EDITOR }) { account { role } } }`,
      variables: async () => ({}),
    },
    {
      mutation: 'resetAccountPassword',
      role: 'admin',
      query: `mutation { resetAccountPassword(input: { account: "spare-person" }) { account { name } } }`,
      variables: async () => ({}),
    },
  ];

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    ({ tokens, as } = await issueTokens(t));
    await new ApiTokensService(prisma).create('spare-token', 'viewer', { name: 'test-setup', tokenId: null });
    await new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 3600 }).create('spare-person', 'viewer', { name: 'test-setup', tokenId: null });
    await new TeamsService(prisma).create('Spare team', { name: 'test-setup', tokenId: null });
    await spareCitation();
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('covers every mutation of the schema', async () => {
    const res = await t.gql<{ __schema: { mutationType: { fields: { name: string }[] } } }>(`{ __schema { mutationType { fields { name } } } }`);
    const names = res.data.__schema.mutationType.fields.map((f) => f.name).sort();
    // A new mutation must get a row in CASES: which role it needs, and proof that lower ones are refused.
    expect(names).toEqual([...CASES.map((c) => c.mutation), ...READ_OPERATIONS].sort());
  });

  describe.each(CASES.map((c) => [c.mutation, c] as const))('%s', (_name, c) => {
    it.each(ROLES_BELOW[c.role].map((r) => [r ?? 'no token', r] as const))(`is refused with %s (needs ${c.role}) and leaves no trace`, async (_label, role) => {
      const before = await dataFingerprint(prisma);
      const res = await t.gql(c.query, await c.variables(), role ? as(role) : {});
      expect(res.errors?.[0]?.extensions?.code).toBe(role ? 'FORBIDDEN' : 'UNAUTHENTICATED');
      expect(res.errors?.[0]?.extensions?.requiredRole).toBe(c.role);
      expect(await dataFingerprint(prisma)).toEqual(before);
    });
  });

  it('runs every mutation for its required role (so the refusals above refused real writes)', async () => {
    for (const c of CASES) {
      const res = await t.gql(c.query, await c.variables(), as(c.role));
      expect({ mutation: c.mutation, errors: res.errors }).toEqual({ mutation: c.mutation, errors: undefined });
    }
  });

  it('lets anyone run a model while PUBLIC_READ is on, as it lets anyone read', async () => {
    await attachSeedModels(t.app);
    // (StackEgg itself is deleted by the admin pass above.)
    const res = await t.gql<{ runModel: { run: { status: string } } }>(`mutation { runModel(input: { incident: "apache-outbound-calls-without-timeouts-2011", scenario: "as-happened" }) { run { status } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.runModel.run.status).toBe('SUCCEEDED');
  });

  it('opens reads to anyone when PUBLIC_READ is on, but refuses a bad token even for a read', async () => {
    const open = await t.gql<{ patterns: { nodes: unknown[] } }>(`{ patterns { nodes { key } } }`);
    expect(open.errors).toBeUndefined();
    expect(open.data.patterns.nodes.length).toBeGreaterThan(0);
    for (const header of ['Bearer not-a-token', `Bearer hs_${'A'.repeat(43)}`, `Basic ${Buffer.from('a:b').toString('base64')}`, `Bearer ${tokens.viewer} extra`]) {
      const res = await t.gql(`{ patterns { nodes { key } } }`, {}, { Authorization: header });
      expect({ header, code: res.errors?.[0]?.extensions?.code }).toEqual({ header, code: 'UNAUTHENTICATED' });
    }
  });

  it('records when a token was last used, only for requests it was allowed to make', async () => {
    const lastUsed = async (name: string) => (await prisma.apiToken.findUniqueOrThrow({ where: { name } })).lastUsedAt;
    expect(await lastUsed('viewer-token')).toBeNull();
    await t.gql(`mutation { revokeApiToken(input: { token: "editor-token" }) { apiToken { id } } }`, {}, as('viewer'));
    expect(await lastUsed('viewer-token')).toBeNull();
    await t.gql(`{ patterns { nodes { key } } }`, {}, as('viewer'));
    expect(await lastUsed('viewer-token')).toBeInstanceOf(Date);
  });

  it('lets an admin list tokens without their secrets, and revoke one so that it stops working at once', async () => {
    const fields = await t.gql<{ __type: { fields: { name: string }[] } }>(`{ __type(name: "ApiToken") { fields { name } } }`);
    expect(fields.data.__type.fields.map((f) => f.name).sort()).toEqual(['createdAt', 'createdBy', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'role']);
    expect((await t.gql(`{ apiTokens { nodes { name } } }`, {}, as('editor'))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const list = await t.gql<{ apiTokens: { nodes: { name: string; role: string; prefix: string; revokedAt: string | null }[] } }>(`{ apiTokens { nodes { name role prefix revokedAt } } }`, {}, as('admin'));
    const editor = list.data.apiTokens.nodes.find((x) => x.name === 'editor-token')!;
    expect(editor).toMatchObject({ role: 'EDITOR', revokedAt: null });
    expect(tokens.editor.startsWith(editor.prefix)).toBe(true);
    expect(editor.prefix.length).toBeLessThan(12);

    expect((await t.gql(`{ patterns { nodes { key } } }`, {}, as('editor'))).errors).toBeUndefined();
    const revoked = await t.gql<{ revokeApiToken: { apiToken: { revokedAt: string } } }>(`mutation { revokeApiToken(input: { token: "editor-token", note: "laptop lost" }) { apiToken { revokedAt } } }`, {}, as('admin'));
    expect(revoked.data.revokeApiToken.apiToken.revokedAt).toEqual(expect.any(String));
    expect((await t.gql(`{ patterns { nodes { key } } }`, {}, as('editor'))).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { entity: 'api_token', entityKey: 'editor-token', field: 'revokedAt' } });
    expect(event).toMatchObject({ actor: 'admin-token', note: 'laptop lost' });
  });
});

describe('PUBLIC_READ=false: every request needs a token, except health and static assets', () => {
  let t: TestApp;
  let as: (role: Role) => Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp({ seed: false, env: { PUBLIC_READ: 'false' } });
    ({ as } = await issueTokens(t));
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses an anonymous query and answers a viewer', async () => {
    expect((await t.gql(`{ patterns { nodes { key } } }`)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const run = await t.gql(`mutation { runModel(input: { incident: "${STACKEGG}" }) { run { status } } }`);
    expect(run.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const res = await t.gql(`{ patterns { nodes { key } } actionableStats { total } }`, {}, as('viewer'));
    expect(res.errors).toBeUndefined();
  });

  it('keeps health, the explorer page and its assets open', async () => {
    const server = t.app.getHttpServer();
    expect((await request(server).get('/health')).status).toBe(200);
    expect((await request(server).get('/explorer/assets/graphiql.css')).status).toBe(200);
    expect((await request(server).get('/graphql').set('Accept', 'text/html')).status).toBe(200);
  });

  it('guards the read-only web pages the same way', async () => {
    const server = t.app.getHttpServer();
    // A browser without a session is sent to sign in, and back afterwards.
    const anonymous = await request(server).get('/actionables');
    expect([anonymous.status, anonymous.headers.location]).toEqual([303, '/sign-in?next=%2Factionables']);
    expect((await request(server).get('/actionables').set(as('viewer'))).status).toBe(200);
  });
});

@Controller('probe')
class ProbeController {
  @Get()
  read() {
    return { ok: true };
  }

  @Post()
  async write(@Req() req: Request) {
    return { by: (await principalOf(req))?.name ?? null };
  }

  @RequireRole('admin')
  @Get('admin')
  adminOnly() {
    return { ok: true };
  }

  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }
}

function probeCore(publicRead: boolean, prisma: PrismaService): DynamicModule {
  const config = loadConfig({ DATABASE_URL: 'postgresql://unused/probe', PUBLIC_READ: String(publicRead) });
  @Global()
  @Module({})
  class ProbeCoreModule {}
  return {
    module: ProbeCoreModule,
    providers: [
      { provide: APP_CONFIG, useValue: config },
      { provide: PrismaService, useValue: prisma },
    ],
    exports: [APP_CONFIG, PrismaService],
  };
}

describe('the guard on plain HTTP controllers', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  let tokens: Record<Role, string>;
  const apps: INestApplication[] = [];

  async function probeApp(publicRead: boolean) {
    const moduleRef = await Test.createTestingModule({
      imports: [probeCore(publicRead, prisma), AuthModule.forRoot({ publicControllers: [] })],
      controllers: [ProbeController],
      providers: [{ provide: APP_FILTER, useClass: AppErrorFilter }],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    apps.push(app);
    return app.getHttpServer();
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = testPrisma(db.url);
    const service = new ApiTokensService(prisma);
    tokens = {} as Record<Role, string>;
    for (const role of ['viewer', 'editor', 'admin'] as const) tokens[role] = (await service.create(role, role, { name: 'test-setup', tokenId: null })).token;
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const bearer = (role: Role) => ({ Authorization: `Bearer ${tokens[role]}` });

  it('treats GET as a read and other methods as writes, with the same codes as GraphQL', async () => {
    const server = await probeApp(true);
    expect((await request(server).get('/probe')).status).toBe(200);
    const anonymous = await request(server).post('/probe');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await request(server).post('/probe').set(bearer('viewer'))).status).toBe(403);
    const written = await request(server).post('/probe').set(bearer('editor'));
    expect(written.status).toBe(201);
    expect(written.body).toEqual({ by: 'editor' });
    expect((await request(server).get('/probe/admin').set(bearer('editor'))).status).toBe(403);
    expect((await request(server).get('/probe/admin').set(bearer('admin'))).status).toBe(200);
  });

  it('needs a viewer token for reads when PUBLIC_READ is off, except on routes marked public', async () => {
    const server = await probeApp(false);
    expect((await request(server).get('/probe')).status).toBe(401);
    expect((await request(server).get('/probe').set(bearer('viewer'))).status).toBe(200);
    expect((await request(server).get('/probe/open')).status).toBe(200);
  });
});
