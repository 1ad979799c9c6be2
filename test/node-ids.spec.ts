import { randomUUID } from 'node:crypto';
import { PrismaService } from '@hindsight/db';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';

/** Global ids: every object with an id can be fetched again by it, whatever its type. */
describe('global ids and node(id:)', () => {
  let t: TestApp;
  let as: (role: 'viewer' | 'editor' | 'admin') => Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
    as = (await issueTokens(t)).as;
  });
  afterAll(() => t.close());

  it('refetches every kind of object of an incident by its id, with its type', async () => {
    const res = await t.gql<{
      incident: { id: string; timeline: { id: string }[]; causalFactors: { id: string }[]; causalLinks: { id: string }[]; actionables: { id: string; key: string }[]; patterns: { id: string; key: string }[]; history: { nodes: { id: string }[] }; model: { scenarios: { id: string }[] } };
    }>(`{ incident(slug: "${STACKEGG}") { id timeline { id } causalFactors { id } causalLinks { id } actionables { id key } patterns { id key } history { nodes { id } } model { scenarios { id } } } }`);
    expect(res.errors).toBeUndefined();
    const i = res.data.incident;
    const wanted = [
      [i.id, 'Incident'],
      [i.timeline[0]!.id, 'TimelineEvent'],
      [i.causalFactors[0]!.id, 'CausalFactor'],
      [i.causalLinks[0]!.id, 'CausalLink'],
      [i.actionables[0]!.id, 'Actionable'],
      [i.patterns[0]!.id, 'Pattern'],
      [i.model.scenarios[0]!.id, 'ModelScenario'],
    ] as const;
    const ids = wanted.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    const nodes = await t.gql<{ nodes: ({ __typename: string; id: string } | null)[] }>(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids });
    expect(nodes.errors).toBeUndefined();
    expect(nodes.data.nodes).toEqual(wanted.map(([id, type]) => ({ __typename: type, id })));
    const one = await t.gql<{ node: { slug: string } }>(`query($id: ID!) { node(id: $id) { ... on Incident { slug } } }`, { id: i.id });
    expect(one.data.node.slug).toBe(STACKEGG);
    const item = await t.gql<{ actionable: { key: string } }>(`query($id: ID!) { actionable(id: $id) { key } }`, { id: i.actionables[0]!.id });
    expect(item.data.actionable.key).toBe(i.actionables[0]!.key);
  });

  it("answers null for a model scenario of an incident readers may not see", async () => {
    const res = await t.gql<{ incident: { model: { scenarios: { id: string }[] } } }>(`{ incident(slug: "${STACKEGG}") { model { scenarios { id } } } }`);
    const id = res.data.incident.model.scenarios[0]!.id;
    const prisma = t.app.get(PrismaService);
    await prisma.incident.update({ where: { slug: STACKEGG }, data: { status: 'draft' } });
    try {
      const hidden = await t.gql<{ node: unknown }>(`query($id: ID!) { node(id: $id) { id } }`, { id });
      expect(hidden.errors).toBeUndefined();
      expect(hidden.data.node).toBeNull();
    } finally {
      await prisma.incident.update({ where: { slug: STACKEGG }, data: { status: 'published' } });
    }
    const shown = await t.gql<{ node: { id: string } }>(`query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(shown.data.node).toEqual({ id });
  });

  it('answers null for an id that names nothing, and BAD_USER_INPUT for what is no id of this API', async () => {
    const missing = await t.gql<{ node: unknown }>(`query($id: ID!) { node(id: $id) { id } }`, { id: gid('Incident', randomUUID()) });
    expect(missing.errors).toBeUndefined();
    expect(missing.data.node).toBeNull();
    const raw = await t.gql(`query($id: ID!) { node(id: $id) { id } }`, { id: randomUUID() });
    expect(raw.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const wrongType = await t.gql(`query($id: ID!) { actionable(id: $id) { key } }`, { id: gid('Incident', randomUUID()) });
    expect(wrongType.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const none = await t.gql(`query($id: ID!) { actionable(id: $id) { key } }`, { id: gid('Actionable', randomUUID()) });
    expect(none.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('shows accounts to admins only', async () => {
    const made = await t.gql<{ createAccount: { account: { id: string; name: string } } }>(
      'mutation { createAccount(input: { name: "node-person", role: VIEWER }) { account { id name } } }',
      {},
      as('admin'),
    );
    expect(made.errors).toBeUndefined();
    const { id } = made.data.createAccount.account;
    const asAdmin = await t.gql<{ node: { __typename: string; name: string } | null }>(`query($id: ID!) { node(id: $id) { __typename ... on Account { name } } }`, { id }, as('admin'));
    expect(asAdmin.data.node).toEqual({ __typename: 'Account', name: 'node-person' });
    const asEditor = await t.gql<{ node: unknown }>(`query($id: ID!) { node(id: $id) { id } }`, { id }, as('editor'));
    expect(asEditor.data.node).toBeNull();
  });

  it('shows API tokens to admins only', async () => {
    const list = await t.gql<{ apiTokens: { nodes: { id: string }[] } }>(`{ apiTokens { nodes { id } } }`, {}, as('admin'));
    const id = list.data.apiTokens.nodes[0]!.id;
    const asAdmin = await t.gql<{ node: { id: string } | null }>(`query($id: ID!) { node(id: $id) { id } }`, { id }, as('admin'));
    expect(asAdmin.data.node).toEqual({ id });
    const asViewer = await t.gql<{ node: unknown }>(`query($id: ID!) { node(id: $id) { id } }`, { id }, as('viewer'));
    expect(asViewer.data.node).toBeNull();
  });

  it('names CONFLICT values and ids in the API terms', async () => {
    const i = await t.gql<{ incident: { actionables: { id: string; version: number }[] } }>(`{ incident(slug: "${STACKEGG}") { actionables { id version } } }`);
    const a = i.data.incident.actionables.find(() => true)!;
    const res = await t.gql(`mutation($id: ID!, $v: Int!) { transitionActionable(input: { id: $id, to: OPEN, expectedVersion: $v }) { actionable { id } } }`, { id: a.id, v: a.version + 5 }, as('editor'));
    const ext = res.errors?.[0]?.extensions as { code: string; current: { id: string; status: string } };
    expect(ext.code).toBe('CONFLICT');
    expect(ext.current.id).toBe(a.id);
    expect(ext.current.status).toMatch(/^(OPEN|IN_PROGRESS|DONE|WONT_DO)$/);
  });
});
