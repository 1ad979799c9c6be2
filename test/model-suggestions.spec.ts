import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const SUGGEST = `query S($incident: String!, $template: String, $parameters: [ParameterValueInput!]) {
  suggestModels(incident: $incident, template: $template, parameters: $parameters) {
    incident { slug }
    suggestions {
      template { key remedies } score reasons { from detail }
      parameters { name value unit min max from provenance { kind quote place why } figure { raw quote place anchor } }
      matches { actionableKey actionable { id key } remedy fixKey scenarioKey }
      unmatched { actionableKey actionable { id key } remedies }
      checks { name kind }
      criterion
    }
  }
}`;
const ATTACH = `mutation A($input: AttachSuggestedModelInput!) {
  attachSuggestedModel(input: $input) {
    specVersion { id key version }
    incident { slug model { key version } }
    model { key version scenarios { key actionable { key } } parameters { name default provenance { kind } } }
  }
}`;
type Suggestions = { suggestModels: { suggestions: { template: { key: string }; reasons: { from: string }[]; parameters: { name: string; value: number; from: string; provenance: { kind: string; quote: string | null }; figure: { raw: string; anchor: string } | null }[]; matches: { actionableKey: string; actionable: { id: string; key: string }; remedy: string; scenarioKey: string }[]; unmatched: { actionableKey: string; actionable: { id: string; key: string } }[]; checks: { kind: string }[] }[] } };

describe('suggested models over GraphQL', () => {
  let t: TestApp;
  let as: Awaited<ReturnType<typeof issueTokens>>['as'];
  beforeAll(async () => {
    t = await startTestApp();
    ({ as } = await issueTokens(t));
  });
  afterAll(async () => {
    await t.close();
  });

  it('is for editors only', async () => {
    const anonymous = await t.gql(SUGGEST, { incident: STACKEGG });
    expect(anonymous.errors?.[0]?.extensions?.code).toMatch(/UNAUTHENTICATED|FORBIDDEN/);
    const viewer = await t.gql(SUGGEST, { incident: STACKEGG }, as('viewer'));
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('ranks the connection-cap template first for StackEgg, with its figures and where they stand', async () => {
    const res = await t.gql<Suggestions>(SUGGEST, { incident: STACKEGG }, as('editor'));
    expect(res.errors).toBeUndefined();
    const [best] = res.data.suggestModels.suggestions;
    expect(best!.template.key).toBe('connection-cap');
    const cap = best!.parameters.find((p) => p.name === 'cap')!;
    expect(cap).toMatchObject({ value: 40000, from: 'TEXT', provenance: { kind: 'SOURCE' } });
    expect(cap.figure!.anchor).toMatch(/^(timeline-|factor-|narrative|summary|impact)/);
    const assumed = best!.parameters.find((p) => p.name === 'backlog')!;
    expect(assumed.from).toBe('DEFAULT');
    expect(assumed.provenance.kind).toBe('ASSUMPTION');
    expect(best!.matches.find((m) => m.actionableKey === 'raise-haproxy-session-limit')?.remedy).toBe('raise-cap');
    expect(best!.checks.every((c) => ['REPRODUCES', 'FITTED', 'CONSTRUCTION'].includes(c.kind))).toBe(true);
    expect(best!.reasons.length).toBeGreaterThan(0);
    expect(best!.reasons.every((r) => ['PATTERN', 'FACTOR', 'COMPONENT', 'TEXT', 'ACTIONABLE'].includes(r.from))).toBe(true);
    // Matched and unmatched actionables are the Actionable nodes themselves.
    const named = [...best!.matches, ...res.data.suggestModels.suggestions.flatMap((s) => s.unmatched)];
    expect(named.length).toBeGreaterThan(0);
    for (const m of named) expect(m.actionable.key).toBe(m.actionableKey);
    const raise = best!.matches.find((m) => m.actionableKey === 'raise-haproxy-session-limit')!;
    const refetched = await t.gql<{ node: { key: string } }>(`query($id: ID!) { node(id: $id) { ... on Actionable { key } } }`, { id: raise.actionable.id });
    expect(refetched.data.node.key).toBe('raise-haproxy-session-limit');
  });

  it('refuses a parameter outside its range, naming the field, and one without a template', async () => {
    const bad = await t.gql(SUGGEST, { incident: STACKEGG, template: 'connection-cap', parameters: [{ name: 'holdSeconds', value: -1 }] }, as('editor'));
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'parameters[0].value' });
    const loose = await t.gql(SUGGEST, { incident: STACKEGG, parameters: [{ name: 'holdSeconds', value: 5 }] }, as('editor'));
    expect(loose.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'parameters' });
    const unknown = await t.gql(SUGGEST, { incident: STACKEGG, template: 'nope' }, as('editor'));
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'template' });
    const nowhere = await t.gql(SUGGEST, { incident: 'no-such-incident' }, as('editor'));
    expect(nowhere.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', what: 'Incident' });
  });

  it('attaches a confirmed draft as a new spec version; runs name the version; a stale confirmation is a conflict', async () => {
    const first = await t.gql<{ attachSuggestedModel: { specVersion: { id: string; key: string; version: string }; incident: { slug: string; model: { key: string; version: string } }; model: { scenarios: { key: string; actionable: { key: string } | null }[]; parameters: { name: string; default: number; provenance: { kind: string } }[] } } }>(
      ATTACH,
      { input: { incident: STACKEGG, template: 'connection-cap', parameters: [{ name: 'backlog', value: 2048 }], expectedModel: null } },
      as('editor'),
    );
    expect(first.errors).toBeUndefined();
    const { specVersion, model, incident } = first.data.attachSuggestedModel;
    expect(specVersion).toMatchObject({ key: `${STACKEGG}-connection-cap`, version: '1' });
    // The payload carries the incident it changed, with the model now attached to it.
    expect(incident).toEqual({ slug: STACKEGG, model: { key: `${STACKEGG}-connection-cap`, version: '1' } });
    expect(model.parameters.find((p) => p.name === 'backlog')).toMatchObject({ default: 2048, provenance: { kind: 'ASSUMPTION' } });
    const raise = model.scenarios.find((s) => s.actionable?.key === 'raise-haproxy-session-limit')!;
    expect(raise).toBeDefined();

    const run = await t.gql<{ runModel: { run: { spec: { id: string; version: string }; status: string; verdict: { outcome: string } | null } } }>(
      `mutation { runModel(input: { incident: "${STACKEGG}", scenario: "${raise.key}" }) { run { spec { id version } status verdict { outcome } } } }`,
    );
    expect(run.errors).toBeUndefined();
    expect(run.data.runModel.run).toMatchObject({ spec: { version: '1' }, status: 'SUCCEEDED', verdict: { outcome: 'PREVENTED' } });
    // The run's spec is the very ModelSpecVersion node the attach returned.
    expect(run.data.runModel.run.spec.id).toBe(first.data.attachSuggestedModel.specVersion.id);

    const stale = await t.gql(ATTACH, { input: { incident: STACKEGG, template: 'connection-cap', parameters: [{ name: 'backlog', value: 4096 }], expectedModel: null } }, as('editor'));
    expect(stale.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', field: 'input.expectedModel' });

    const second = await t.gql<{ attachSuggestedModel: { specVersion: { version: string } } }>(
      ATTACH,
      { input: { incident: STACKEGG, template: 'connection-cap', parameters: [{ name: 'backlog', value: 4096 }], expectedModel: `${STACKEGG}-connection-cap@1` } },
      as('editor'),
    );
    expect(second.errors).toBeUndefined();
    expect(second.data.attachSuggestedModel.specVersion.version).toBe('2');
    const again = await t.gql<{ runModel: { run: { spec: { version: string } } } }>(`mutation { runModel(input: { incident: "${STACKEGG}", scenario: "as-happened" }) { run { spec { version } } } }`);
    expect(again.data.runModel.run.spec.version).toBe('2');
  });
  it('stores the spec and attaches it in one transaction: a failed binding leaves no new version behind', async () => {
    const prisma = testPrisma(t.db.url);
    try {
      const before = await prisma.modelSpec.count({ where: { key: `${STACKEGG}-capacity-loss` } });
      // A real failure inside the write: the binding row is refused by the database itself.
      await prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_binding() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'binding refused for the test'; END $$ LANGUAGE plpgsql`);
      await prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_binding BEFORE INSERT OR UPDATE ON "IncidentModel" FOR EACH ROW EXECUTE FUNCTION refuse_binding()`);
      const failed = await t.gql(ATTACH, { input: { incident: STACKEGG, template: 'capacity-loss' } }, as('editor'));
      expect(failed.errors?.length).toBeGreaterThan(0);
      expect(await prisma.modelSpec.count({ where: { key: `${STACKEGG}-capacity-loss` } })).toBe(before);
      await prisma.$executeRawUnsafe('DROP TRIGGER refuse_binding ON "IncidentModel"');
      await prisma.$executeRawUnsafe('DROP FUNCTION refuse_binding()');
      const ok = await t.gql<{ attachSuggestedModel: { specVersion: { key: string; version: string } } }>(ATTACH, { input: { incident: STACKEGG, template: 'capacity-loss' } }, as('editor'));
      expect(ok.errors).toBeUndefined();
      expect(ok.data.attachSuggestedModel.specVersion).toMatchObject({ key: `${STACKEGG}-capacity-loss`, version: '1' });
    } finally {
      await prisma.$disconnect();
    }
  });
});
