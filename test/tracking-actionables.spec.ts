import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { PrismaService } from '@hindsight/db';
import { gid, rid } from './support/global-ids';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type GqlResponse, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const SLACK = 'slack-cache-metastability-2022';

const FIELDS = `id key title description owner status dueDate priority version closedAt closedBy wontDoReason allowedTransitions
  references { kind ref url } addresses { key }`;

type Actionable = {
  id: string;
  key: string;
  title: string;
  description: string;
  owner: string | null;
  status: string;
  dueDate: string | null;
  priority: string | null;
  version: number;
  closedAt: string | null;
  closedBy: string | null;
  wontDoReason: string | null;
  allowedTransitions: string[];
  references: { kind: string; ref: string; url: string | null }[];
  addresses: { key: string }[];
};

type HistoryEvent = { actor: string; entity: string; entityKey: string; action: string; field: string | null; from: string | null; to: string | null; note: string | null; version: number | null };

const CREATE = `mutation C($input: CreateActionableInput!) { createActionable(input: $input) { actionable { ${FIELDS} } } }`;
const UPDATE = `mutation U($id: ID!, $v: Int!, $patch: ActionablePatchInput!, $note: String) { updateActionable(input: { id: $id, expectedVersion: $v, patch: $patch, note: $note }) { actionable { ${FIELDS} } } }`;
const TRANSITION = `mutation T($id: ID!, $to: ActionableStatus!, $v: Int!, $note: String) { transitionActionable(input: { id: $id, to: $to, expectedVersion: $v, note: $note }) { actionable { ${FIELDS} } } }`;
const HISTORY = `query H($slug: String!) { incident(slug: $slug) { actionables { key history(last: 100) { nodes { actor entity entityKey action field from to note version } } } } }`;

describe('actionable tracking: workflow, edits, references, audit trail, concurrency', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let editor: Record<string, string>;
  let admin: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ env: { TRACKER_JIRA_URL: 'https://jira.example.com/' } });
    // Listening once lets many requests share the server (supertest would otherwise bind per request).
    await t.app.listen(0, '127.0.0.1');
    prisma = testPrisma(t.db.url);
    const auth = await issueTokens(t);
    editor = auth.as('editor');
    admin = auth.as('admin');
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  async function create(title: string, extra: Record<string, unknown> = {}): Promise<Actionable> {
    const res = await t.gql<{ createActionable: { actionable: Actionable } }>(CREATE, { input: { incident: SLACK, title, ...extra } }, editor);
    expect(res.errors).toBeUndefined();
    return res.data.createActionable.actionable;
  }

  async function history(key: string): Promise<HistoryEvent[]> {
    const res = await t.gql<{ incident: { actionables: { key: string; history: { nodes: HistoryEvent[] } }[] } }>(HISTORY, { slug: SLACK });
    expect(res.errors).toBeUndefined();
    return res.data.incident.actionables.find((a) => a.key === key)!.history.nodes;
  }

  /** Everything a failed write must leave as it was. */
  async function fingerprint(id: string) {
    const row = await prisma.actionable.findUnique({ where: { id: rid(id) }, include: { references: true, addresses: true } });
    const events = await prisma.auditEvent.count({ where: { actionableId: rid(id) } });
    return { row, events };
  }

  it('creates an open actionable with a key from its title, addressed factors and canonical references', async () => {
    const a = await create('Alert on cache hit rate!', {
      description: 'Page the owning team when the hit rate drops.',
      owner: 'cache-team',
      dueDate: '2026-12-15',
      priority: 'P1',
      addresses: ['cache-hit-rate-drop'],
      references: ['T200001', 'https://github.com/slack/mcrib/issues/42'],
    });
    expect(a).toMatchObject({
      key: 'alert-on-cache-hit-rate',
      status: 'OPEN',
      version: 1,
      owner: 'cache-team',
      dueDate: '2026-12-15',
      priority: 'P1',
      closedAt: null,
      allowedTransitions: ['IN_PROGRESS', 'WONT_DO'],
      addresses: [{ key: 'cache-hit-rate-drop' }],
    });
    expect(a.references).toEqual([
      // Slack has no Phabricator configured: the task is recognised but not linked to Wikimedia's.
      { kind: 'PHABRICATOR', ref: 'T200001', url: null },
      { kind: 'GITHUB_ISSUE', ref: 'https://github.com/slack/mcrib/issues/42', url: 'https://github.com/slack/mcrib/issues/42' },
    ]);
    const again = await create('Alert on cache hit rate!');
    expect(again.key).toBe('alert-on-cache-hit-rate-2');
    const events = await history(a.key);
    expect(events).toEqual([expect.objectContaining({ actor: 'editor-token', entity: 'ACTIONABLE', action: 'CREATE', field: null, from: null, version: 1 })]);
    expect(JSON.parse(events[0]!.to!)).toMatchObject({ title: 'Alert on cache hit rate!', status: 'open', references: ['T200001', 'https://github.com/slack/mcrib/issues/42'] });
  });

  it('walks the workflow open → in_progress → done → open → in_progress → wont_do, recording who, when and why', async () => {
    const a = await create('Runbook for metastable overload');
    const step = async (to: string, v: number, note?: string) => {
      const res = await t.gql<{ transitionActionable: { actionable: Actionable } }>(TRANSITION, { id: a.id, to, v, note }, editor);
      expect(res.errors).toBeUndefined();
      return res.data.transitionActionable.actionable;
    };
    expect(await step('IN_PROGRESS', 1)).toMatchObject({ status: 'IN_PROGRESS', version: 2, allowedTransitions: ['DONE', 'WONT_DO'] });
    const done = await step('DONE', 2, 'runbook merged');
    expect(done).toMatchObject({ status: 'DONE', version: 3, closedBy: 'editor-token', wontDoReason: null, allowedTransitions: ['OPEN'] });
    expect(Number.isNaN(Date.parse(done.closedAt!))).toBe(false);
    const reopened = await step('OPEN', 3, 'runbook misses the throttle step');
    expect(reopened).toMatchObject({ status: 'OPEN', version: 4, closedAt: null, closedBy: null });
    await step('IN_PROGRESS', 4);
    const wontDo = await step('WONT_DO', 5, 'superseded by the load-shedding project');
    expect(wontDo).toMatchObject({ status: 'WONT_DO', version: 6, closedBy: 'editor-token', wontDoReason: 'superseded by the load-shedding project' });

    const events = (await history(a.key)).filter((e) => e.field === 'status');
    expect(events.map((e) => [e.from, e.to, e.note, e.version])).toEqual([
      ['open', 'in_progress', null, 2],
      ['in_progress', 'done', 'runbook merged', 3],
      ['done', 'open', 'runbook misses the throttle step', 4],
      ['open', 'in_progress', null, 5],
      ['in_progress', 'wont_do', 'superseded by the load-shedding project', 6],
    ]);
    expect(events.every((e) => e.actor === 'editor-token')).toBe(true);
  });

  it('names the allowed transitions when refusing one', async () => {
    const a = await create('Shard the membership table');
    const res = await t.gql(TRANSITION, { id: a.id, to: 'DONE', v: 1 }, editor);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', from: 'open', allowed: ['in_progress', 'wont_do'] });
    expect(res.errors?.[0]?.message).toMatch(/from open it can move to in_progress or wont_do/);
  });

  it('declines an open item at triage straight to wont_do, only with a reason', async () => {
    const a = await create('Rewrite the scheduler in another language');
    const bare = await t.gql(TRANSITION, { id: a.id, to: 'WONT_DO', v: 1 }, editor);
    expect(bare.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.note' });
    const declined = await t.gql<{ transitionActionable: { actionable: Actionable } }>(TRANSITION, { id: a.id, to: 'WONT_DO', v: 1, note: 'out of proportion to the risk' }, editor);
    expect(declined.errors).toBeUndefined();
    expect(declined.data.transitionActionable.actionable).toMatchObject({ status: 'WONT_DO', version: 2, closedBy: 'editor-token', wontDoReason: 'out of proportion to the risk', allowedTransitions: ['OPEN'] });
    const events = (await history(a.key)).filter((e) => e.field === 'status');
    expect(events.map((e) => [e.from, e.to, e.note, e.version])).toEqual([['open', 'wont_do', 'out of proportion to the risk', 2]]);
  });

  it('records one audit event per changed field, and nothing for a patch that changes nothing', async () => {
    const a = await create('Cap scatter queries', { owner: 'vitess', references: ['T1'] });
    const patch = {
      title: 'Cap scatter queries per request',
      description: 'At most 4 shards per request.',
      owner: null,
      dueDate: '2027-01-31',
      priority: 'P0',
      addresses: ['gdm-scatter-query-every-shard', 'cache-hit-rate-drop'],
      references: ['T1', 'OPS-77', 'https://github.com/slack/vitess/pull/9/files'],
    };
    const res = await t.gql<{ updateActionable: { actionable: Actionable } }>(UPDATE, { id: a.id, v: 1, patch, note: 'from the review' }, editor);
    expect(res.errors).toBeUndefined();
    const updated = res.data.updateActionable.actionable;
    expect(updated).toMatchObject({ version: 2, owner: null, dueDate: '2027-01-31', priority: 'P0', title: patch.title });
    expect(updated.references).toEqual([
      { kind: 'PHABRICATOR', ref: 'T1', url: null },
      { kind: 'JIRA', ref: 'OPS-77', url: 'https://jira.example.com/browse/OPS-77' },
      { kind: 'GITHUB_PULL', ref: 'https://github.com/slack/vitess/pull/9/files', url: 'https://github.com/slack/vitess/pull/9' },
    ]);
    expect(updated.addresses.map((f) => f.key).sort()).toEqual(['cache-hit-rate-drop', 'gdm-scatter-query-every-shard']);
    const events = (await history(a.key)).filter((e) => e.action === 'UPDATE');
    expect(events.map((e) => e.field)).toEqual(['title', 'description', 'owner', 'dueDate', 'priority', 'addresses', 'references']);
    expect(events.every((e) => e.note === 'from the review' && e.version === 2)).toBe(true);
    expect(events.find((e) => e.field === 'owner')).toMatchObject({ from: 'vitess', to: null });
    expect(JSON.parse(events.find((e) => e.field === 'references')!.to!)).toEqual(patch.references);

    const same = await t.gql<{ updateActionable: { actionable: Actionable } }>(UPDATE, { id: a.id, v: 2, patch }, editor);
    expect(same.data.updateActionable.actionable.version).toBe(2);
    expect((await history(a.key)).filter((e) => e.action === 'UPDATE')).toHaveLength(events.length);
  });

  it('answers a stale expectedVersion with CONFLICT, the current version and values, and changes nothing', async () => {
    const a = await create('Throttle boot requests by default');
    await t.gql(UPDATE, { id: a.id, v: 1, patch: { owner: 'alice' } }, editor);
    const before = await fingerprint(a.id);
    const res = await t.gql(UPDATE, { id: a.id, v: 1, patch: { owner: 'bob', title: 'Overwritten' } }, editor);
    expect(res.errors?.[0]?.extensions).toMatchObject({
      code: 'CONFLICT',
      expectedVersion: 1,
      currentVersion: 2,
      current: { id: a.id, owner: 'alice', title: 'Throttle boot requests by default', status: 'OPEN', version: 2 },
    });
    expect(await fingerprint(a.id)).toEqual(before);
  });

  describe('bad input gives its specific error and leaves the row unchanged', () => {
    let target: Actionable;
    beforeAll(async () => {
      target = await create('Target of bad input', { references: ['T5'] });
    });

    it.each([
      ['unknown id', TRANSITION, () => ({ id: gid('Actionable', randomUUID()), to: 'IN_PROGRESS', v: 1 }), 'NOT_FOUND', null],
      ['malformed id', UPDATE, () => ({ id: 'not-a-uuid', v: 1, patch: { owner: 'x' } }), 'BAD_USER_INPUT', 'input.id'],
      ['id of another type', UPDATE, () => ({ id: gid('Incident', randomUUID()), v: 1, patch: { owner: 'x' } }), 'BAD_USER_INPUT', 'input.id'],
      ['unknown status', TRANSITION, () => ({ id: target.id, to: 'FINISHED', v: 1 }), 'BAD_USER_INPUT', null],
      ['invalid transition', TRANSITION, () => ({ id: target.id, to: 'DONE', v: 1, note: 'nope' }), 'BAD_USER_INPUT', 'input.to'],
      ['wont_do without a reason', TRANSITION, () => ({ id: target.id, to: 'WONT_DO', v: 1 }), 'BAD_USER_INPUT', 'input.note'],
      ['due date in another format', UPDATE, () => ({ id: target.id, v: 1, patch: { dueDate: '31/12/2026' } }), 'BAD_USER_INPUT', 'input.patch.dueDate'],
      ['due date that is not a day', UPDATE, () => ({ id: target.id, v: 1, patch: { dueDate: '2026-02-30' } }), 'BAD_USER_INPUT', 'input.patch.dueDate'],
      ['reference of unknown shape', UPDATE, () => ({ id: target.id, v: 1, patch: { references: ['ticket 42'] } }), 'BAD_USER_INPUT', 'input.patch.references[0]'],
      ['javascript: URL', UPDATE, () => ({ id: target.id, v: 1, patch: { references: ['javascript:alert(1)'] } }), 'BAD_USER_INPUT', 'input.patch.references[0]'],
      ['oversized title', UPDATE, () => ({ id: target.id, v: 1, patch: { title: 'x'.repeat(301) } }), 'BAD_USER_INPUT', 'input.patch.title'],
      ['oversized description', UPDATE, () => ({ id: target.id, v: 1, patch: { description: 'x'.repeat(20_001) } }), 'BAD_USER_INPUT', 'input.patch.description'],
      ['empty title', UPDATE, () => ({ id: target.id, v: 1, patch: { title: '   ' } }), 'BAD_USER_INPUT', 'input.patch.title'],
      ['factor of another incident', UPDATE, () => ({ id: target.id, v: 1, patch: { addresses: ['haproxy-40000-session-cap'] } }), 'BAD_USER_INPUT', 'input.patch.addresses[0]'],
      ['stale version', UPDATE, () => ({ id: target.id, v: 7, patch: { owner: 'x' } }), 'CONFLICT', null],
    ])('%s', async (_name, mutation, variables, code, field) => {
      const before = await fingerprint(target.id);
      const res = await t.gql(mutation, variables(), editor);
      expect(res.errors?.[0]?.extensions?.code).toBe(code);
      if (field) expect(res.errors?.[0]?.extensions?.field).toBe(field);
      expect(await fingerprint(target.id)).toEqual(before);
    });

    it('reports every problem of a patch at once', async () => {
      const res = await t.gql(UPDATE, { id: target.id, v: 1, patch: { title: '', owner: 'x'.repeat(301), references: ['T1', '??'] } }, editor);
      const problems = res.errors?.[0]?.extensions?.problems as { field: string }[];
      expect(problems.map((p) => p.field)).toEqual(['input.patch.title', 'input.patch.owner', 'input.patch.references[1]']);
      // A value of the wrong type (a due date that is no day) is refused by its type, before the rest is checked.
      const typed = await t.gql(UPDATE, { id: target.id, v: 1, patch: { title: '', dueDate: 'soon' } }, editor);
      expect((typed.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field)).toEqual(['input.patch.dueDate']);
    });
  });

  it('lets exactly one of 50 concurrent transitions from the same version win; 49 get CONFLICT and the trail gains one event', async () => {
    const a = await create('Contended item');
    const before = await prisma.auditEvent.count({ where: { actionableId: rid(a.id) } });
    const server = t.app.getHttpServer();
    const body = { query: TRANSITION, variables: { id: a.id, to: 'IN_PROGRESS', v: 1, note: 'mine' } };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => request(server).post('/graphql').set(editor).send(body).then((r) => r.body as GqlResponse<{ transitionActionable: { actionable: Actionable | null } }>)),
    );
    const won = responses.filter((r) => !r.errors && r.data.transitionActionable.actionable?.status === 'IN_PROGRESS');
    const conflicts = responses.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT');
    expect(won).toHaveLength(1);
    expect(conflicts).toHaveLength(49);
    expect(conflicts.every((r) => r.errors![0]!.extensions!.currentVersion === 2)).toBe(true);
    expect(await prisma.auditEvent.count({ where: { actionableId: rid(a.id) } })).toBe(before + 1);
    expect(await prisma.actionable.findUnique({ where: { id: rid(a.id) }, select: { version: true, status: true } })).toEqual({ version: 2, status: 'in_progress' });
  });

  it('refuses a second actionable with an existing key, and an unknown incident', async () => {
    const dup = await t.gql(CREATE, { input: { incident: SLACK, key: 'fix-mcrib-control-loop', title: 'Again' } }, editor);
    expect(dup.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const none = await t.gql(CREATE, { input: { incident: 'no-such-incident', title: 'Orphan' } }, editor);
    expect(none.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('deletes an actionable for an admin and keeps its history in the incident audit trail', async () => {
    const a = await create('Short-lived item');
    const res = await t.gql<{ deleteActionable: { deletedActionableId: string } }>(`mutation D($id: ID!) { deleteActionable(input: { id: $id, expectedVersion: 1, note: "duplicate" }) { deletedActionableId } }`, { id: a.id }, admin);
    expect(res.errors).toBeUndefined();
    expect(res.data.deleteActionable.deletedActionableId).toBe(a.id);
    expect(await prisma.actionable.count({ where: { id: rid(a.id) } })).toBe(0);
    const incident = await t.gql<{ incident: { history: { nodes: HistoryEvent[] } } }>(`{ incident(slug: "${SLACK}") { history(last: 100) { nodes { entityKey action from note actor } } } }`);
    const trail = incident.data.incident.history.nodes.filter((e) => e.entityKey === a.key);
    expect(trail.map((e) => e.action)).toEqual(['CREATE', 'DELETE']);
    expect(trail[1]).toMatchObject({ note: 'duplicate', actor: 'admin-token' });
    expect(JSON.parse(trail[1]!.from!)).toMatchObject({ title: 'Short-lived item', status: 'open' });
  });

  it('keeps the audit trail append-only: no mutation touches it, and the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    const schema = await t.gql<{ __schema: { mutationType: { fields: { name: string }[] } } }>(`{ __schema { mutationType { fields { name } } } }`);
    expect(schema.data.__schema.mutationType.fields.map((f) => f.name).filter((n) => /audit|history/i.test(n))).toEqual([]);
    const count = await prisma.auditEvent.count();
    expect(count).toBeGreaterThan(0);
    await expect(prisma.auditEvent.updateMany({ data: { actor: 'someone-else' } })).rejects.toThrow(/append-only/);
    await expect(prisma.auditEvent.deleteMany({})).rejects.toThrow(/append-only/);
    await expect(prisma.$executeRawUnsafe('TRUNCATE "AuditEvent"')).rejects.toThrow(/append-only/);
    expect(await prisma.auditEvent.count()).toBe(count);
    expect(await prisma.auditEvent.count({ where: { actor: 'someone-else' } })).toBe(0);
  });

  it('answers a null scenario for actionables whose incident has no model', async () => {
    const res = await t.gql<{ actionables: { nodes: { scenario: unknown }[] } }>(`{ actionables(first: 100) { nodes { scenario { id key latestRun { id } } } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.actionables.nodes.length).toBeGreaterThan(0);
    expect(res.data.actionables.nodes.every((n) => n.scenario === null)).toBe(true);
  });
});
