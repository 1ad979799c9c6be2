import { createHash } from 'node:crypto';
import type { PrismaService } from '@hindsight/db';
import { runCli } from './support/cli';
import { gid } from './support/global-ids';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

describe('npm run token: create, list and revoke API tokens', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('creates a token, shows it once, and stores only its hash', async () => {
    const out = await runCli('token', ['create', '--name', 'ci-bot', '--role', 'editor'], t.db.url);
    expect(out.code).toBe(0);
    const match = /^token: (hs_[A-Za-z0-9_-]{43})$/m.exec(out.stdout);
    expect(match).not.toBeNull();
    token = match![1]!;
    const row = await prisma.apiToken.findUniqueOrThrow({ where: { name: 'ci-bot' } });
    expect(row).toMatchObject({ role: 'editor', tokenHash: createHash('sha256').update(token).digest('hex'), revokedAt: null, lastUsedAt: null });
    expect(row.createdBy).toMatch(/^cli:/);
    // Nothing stored anywhere holds the token itself.
    const [{ found }] = await prisma.$queryRaw<{ found: bigint }[]>`
      SELECT (SELECT count(*) FROM "ApiToken" t WHERE t::text LIKE ${`%${token}%`})
           + (SELECT count(*) FROM "AuditEvent" e WHERE e::text LIKE ${`%${token}%`}) AS found`;
    expect(Number(found)).toBe(0);
    const event = await prisma.auditEvent.findFirstOrThrow({ where: { entity: 'api_token', entityKey: 'ci-bot', action: 'create' } });
    expect(event.actor).toMatch(/^cli:/);
  });

  it('lets the new token write, and lists it by prefix without revealing it', async () => {
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'fix-mcrib-control-loop' } });
    const res = await t.gql<{ transitionActionable: { actionable: { status: string; history: { nodes: { actor: string }[] } } } }>(
      `mutation { transitionActionable(input: { id: "${gid('Actionable', item.id)}", to: IN_PROGRESS, expectedVersion: ${item.version} }) { actionable { status history { nodes { actor } } } } }`,
      {},
      { Authorization: `Bearer ${token}` },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.transitionActionable.actionable.history.nodes.map((h) => h.actor)).toEqual(['ci-bot']);
    const list = await runCli('token', ['list'], t.db.url);
    expect(list.code).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.includes('ci-bot'))!;
    expect(line).toContain('editor');
    expect(line).toContain(`${token.slice(0, 9)}…`);
    expect(list.stdout).not.toContain(token);
    expect(line).not.toMatch(/\t-\t(active)$/);
  });

  it('refuses a duplicate name and an unknown role without creating anything', async () => {
    const duplicate = await runCli('token', ['create', '--name', 'ci-bot', '--role', 'viewer'], t.db.url);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const badRole = await runCli('token', ['create', '--name', 'other', '--role', 'owner'], t.db.url);
    expect(badRole.code).toBe(2);
    expect(await prisma.apiToken.count()).toBe(1);
  });

  it('revokes a token by name, after which the API refuses it', async () => {
    const out = await runCli('token', ['revoke', 'ci-bot', '--note', 'rotated'], t.db.url);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/revoked/);
    const res = await t.gql(`{ patterns { nodes { key } } }`, {}, { Authorization: `Bearer ${token}` });
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await prisma.auditEvent.findFirst({ where: { entity: 'api_token', entityKey: 'ci-bot', field: 'revokedAt' } })).toMatchObject({ note: 'rotated' });
  });
});
