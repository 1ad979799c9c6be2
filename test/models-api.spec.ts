import fs from 'node:fs';
import path from 'node:path';
import { PrismaService, projectRoot } from '@hindsight/db';
import { ModelRunQueue, ModelRunsService, runDefaultScenarios, runnerExecutor } from '@hindsight/model-runs';
import { gid, rid } from './support/global-ids';
import { issueTokens } from './support/api-tokens';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const RUN = `mutation R($incident: String!, $scenario: String!, $parameters: [ParameterValueInput!], $seed: Int) {
  runModel(input: { incident: $incident, scenario: $scenario, parameters: $parameters, seed: $seed }) { run {
    id status scenarioKey seed engineVersion spec { key version } durationMs
    parameters { name value } summary { name value unit } checks { name pass expectedText observed explanation }
    time series { key unit values } events { key time label } checksPassed
  } }
}`;
type Run = { id: string; status: string; summary: { name: string; value: number }[]; checks: { name: string; pass: boolean }[]; time: number[]; series: { key: string; unit: string; values: (number | null)[] }[]; checksPassed: boolean };

describe('executable models over GraphQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('ties every fix scenario of the shipped models to an actionable of its incident', async () => {
    const prisma = t.app.get(PrismaService);
    const scenarios = await prisma.scenario.findMany({ where: { actionableKey: { not: null } }, include: { binding: { include: { incident: { include: { actionables: true } } } } } });
    expect(scenarios.length).toBeGreaterThan(0);
    const dangling = scenarios.filter((s) => !s.binding.incident.actionables.some((a) => a.key === s.actionableKey)).map((s) => `${s.binding.incident.slug}/${s.key} → ${s.actionableKey}`);
    expect(dangling).toEqual([]);
  });

  it('exposes the model beside the incident, with parameters, scenarios and their latest runs', async () => {
    const query = `{ incident(slug: "${STACKEGG}") { model { key version title parameters { name unit default min max } scenarios { key title actionable { key } latestRun { status checksPassed } } } } }`;
    type M = { incident: { model: { key: string; parameters: { name: string; unit: string; default: number }[]; scenarios: { key: string; actionable: { key: string } | null; latestRun: { status: string; checksPassed: boolean } | null }[] } } };
    const before = await t.gql<M>(query);
    expect(before.errors).toBeUndefined();
    const model = before.data.incident.model;
    expect(model.key).toBe(STACKEGG);
    expect(model.parameters.find((p) => p.name === 'keepAliveSeconds')).toMatchObject({ unit: 's', default: 15 });
    expect(model.scenarios[0]!.key).toBe('as-happened');
    expect(model.scenarios.every((s) => s.latestRun === null)).toBe(true);

    const { runs, failed } = await runDefaultScenarios(t.app.get(PrismaService), t.app.get(ModelRunsService));
    expect(failed).toEqual([]);
    expect(runs).toBeGreaterThan(4);
    const after = await t.gql<M>(query);
    expect(after.data.incident.model.scenarios.every((s) => s.latestRun?.status === 'SUCCEEDED')).toBe(true);
    expect(after.data.incident.model.scenarios.filter((s) => s.actionable).length).toBeGreaterThan(0);
  });

  it('reproduces the StackEgg figures and passes its checks', async () => {
    const res = await t.gql<{ runModel: { run: Run } }>(RUN, { incident: STACKEGG, scenario: 'as-happened' });
    expect(res.errors).toBeUndefined();
    const run = res.data.runModel.run;
    expect(run.status).toBe('SUCCEEDED');
    expect(run.checks.length).toBeGreaterThan(0);
    expect(run.checks.filter((c) => !c.pass)).toEqual([]);
    expect(run.checksPassed).toBe(true);
    const demand = run.summary.find((s) => s.name === 'stackegg-demand')!;
    expect(Math.abs(demand.value - 51_660) / 51_660).toBeLessThan(0.02);
    expect(run.time.length).toBeGreaterThan(10);
    expect(run.series.every((s) => s.values.length === run.time.length && s.unit !== '')).toBe(true);
  });

  it('returns the stored run for the same inputs and a new one for new inputs', async () => {
    const vars = { incident: STACKEGG, scenario: 'as-happened', parameters: [{ name: 'keepAliveSeconds', value: 5 }], seed: 3 };
    const first = (await t.gql<{ runModel: { run: Run } }>(RUN, vars)).data.runModel.run;
    const again = (await t.gql<{ runModel: { run: Run } }>(RUN, vars)).data.runModel.run;
    expect(again.id).toBe(first.id);
    const other = (await t.gql<{ runModel: { run: Run } }>(RUN, { ...vars, parameters: [{ name: 'keepAliveSeconds', value: 6 }] })).data.runModel.run;
    expect(other.id).not.toBe(first.id);
    const rows = await t.app.get(PrismaService).modelRun.count({ where: { id: { in: [rid(first.id), rid(other.id)] } } });
    expect(rows).toBe(2);
    const byId = await t.gql<{ modelRun: { id: string; parameters: { name: string; value: number }[] } }>(`query($id: ID!) { modelRun(id: $id) { id parameters { name value } } }`, { id: first.id });
    expect(byId.data.modelRun.parameters).toEqual([{ name: 'keepAliveSeconds', value: 5 }]);
  });

  it('shares one run between concurrent identical requests', async () => {
    const vars = { incident: STACKEGG, scenario: 'lower-keep-alive', parameters: [{ name: 'sessionCap', value: 35_000 }] };
    const results = await Promise.all(Array.from({ length: 6 }, () => t.gql<{ runModel: { run: Run } }>(RUN, vars)));
    expect(new Set(results.map((r) => r.data.runModel.run.id)).size).toBe(1);
  });

  it.each([
    [[{ name: 'keepAliveSeconds', value: 500 }], 'input.parameters.keepAliveSeconds', /between 0 and 120 s/],
    [[{ name: 'sessionCap', value: 1.5 }], 'input.parameters.sessionCap', /integer|between/],
    [[{ name: 'noSuchKnob', value: 1 }], 'input.parameters.noSuchKnob', /unknown parameter/],
  ])('refuses bad parameters %j with the parameter and its allowed range', async (parameters, field, message) => {
    const before = await t.app.get(PrismaService).modelRun.count();
    const res = await t.gql(RUN, { incident: STACKEGG, scenario: 'as-happened', parameters });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.extensions?.field).toBe(field);
    expect(res.errors?.[0]?.message).toMatch(message);
    expect(await t.app.get(PrismaService).modelRun.count()).toBe(before);
  });

  it('names the unknown scenario and the unknown incident', async () => {
    const scenario = await t.gql(RUN, { incident: STACKEGG, scenario: 'no-such-fix' });
    expect(scenario.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(scenario.errors?.[0]?.message).toMatch(/no-such-fix.*as-happened/);
    const incident = await t.gql(RUN, { incident: 'no-such-incident', scenario: 'as-happened' });
    expect(incident.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const run = await t.gql(`{ modelRun(id: "${gid('ModelRun', '00000000-0000-0000-0000-000000000000')}") { id } }`);
    expect(run.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('compares the as-happened run with every fix, figure by figure', async () => {
    type C = { compareScenarios: { scenarios: { scenario: { key: string }; run: { status: string } }[]; figures: { name: string; unit: string; values: { scenarioKey: string; value: number }[] }[] } };
    const res = await t.gql<C>(`{ compareScenarios(incident: "${STACKEGG}") { scenarios { scenario { key } run { status } } figures { name unit values { scenarioKey value } } } }`);
    expect(res.errors).toBeUndefined();
    const { scenarios, figures } = res.data.compareScenarios;
    expect(scenarios[0]!.scenario.key).toBe('as-happened');
    expect(scenarios.every((s) => s.run.status === 'SUCCEEDED')).toBe(true);
    const peak = figures.find((f) => f.name === 'peak-sessions')!;
    expect(peak.values).toHaveLength(scenarios.length);
    const asHappened = peak.values.find((v) => v.scenarioKey === 'as-happened')!.value;
    const raised = peak.values.find((v) => v.scenarioKey === 'raise-session-limit')!.value;
    expect(raised).toBeGreaterThan(asHappened);
  });

  it("answers an actionable's scenario and its run as the same ModelScenario and ModelRun nodes the model lists, refetchable by id", async () => {
    type Run = { __typename: string; id: string; status: string; scenarioKey: string; verdict: { outcome: string } | null };
    type Scenario = { __typename: string; id: string; key: string; actionable: { id: string } | null; latestRun: Run | null };
    const res = await t.gql<{ incident: { model: { scenarios: Scenario[] }; actionables: { id: string; key: string; scenario: Scenario | null }[] } }>(
      `fragment S on ModelScenario { __typename id key actionable { id } latestRun { __typename id status scenarioKey verdict { outcome } } }
       { incident(slug: "${STACKEGG}") { model { scenarios { ...S } } actionables { id key scenario { ...S } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const linked = res.data.incident.actionables.filter((a) => a.scenario);
    expect(linked.length).toBeGreaterThan(0);
    const listed = new Map(res.data.incident.model.scenarios.map((s) => [s.id, s]));
    for (const a of linked) {
      const s = a.scenario!;
      // One type per concept: the same object, with the same global id, however it is reached.
      expect(s.__typename).toBe('ModelScenario');
      expect(s).toEqual(listed.get(s.id));
      expect(s.actionable?.id).toBe(a.id);
      expect(s.latestRun).toMatchObject({ __typename: 'ModelRun', status: 'SUCCEEDED', scenarioKey: s.key });
    }

    // A normalised cache refetches both by id alone and gets the same objects back.
    const ids = linked.flatMap((a) => [a.scenario!.id, a.scenario!.latestRun!.id]);
    const again = await t.gql<{ nodes: (Scenario | Run | null)[] }>(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on ModelScenario { key actionable { id } latestRun { __typename id status scenarioKey verdict { outcome } } } ... on ModelRun { status scenarioKey verdict { outcome } } } }`,
      { ids },
    );
    expect(again.errors).toBeUndefined();
    expect(again.data.nodes).toEqual(linked.flatMap((a) => [a.scenario, { ...a.scenario!.latestRun }]));
    const one = await t.gql<{ node: Run }>(`query($id: ID!) { node(id: $id) { ... on ModelRun { __typename id status scenarioKey verdict { outcome } } } }`, { id: linked[0]!.scenario!.latestRun!.id });
    expect(one.data.node).toEqual(linked[0]!.scenario!.latestRun);
  });

  it("gives every actionable a model can express the verdict its fix scenario's run shows", async () => {
    const { failed } = await runDefaultScenarios(t.app.get(PrismaService), t.app.get(ModelRunsService));
    expect(failed).toEqual([]);
    type V = { outcome: string; reason: string; delaySeconds: number | null; run: { met: boolean; onset: number | null }; baseline: { met: boolean }; baselineScenarioKey: string };
    type A = { key: string; scenario: { key: string; latestRun: { status: string; verdict: V | null } | null } | null };
    const res = await t.gql<{ actionables: { nodes: A[] } }>(
      `{ actionables(first: 100) { nodes { key scenario { key latestRun { status verdict { outcome reason delaySeconds baselineScenarioKey run { met onset } baseline { met } } } } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const linked = res.data.actionables.nodes.filter((a) => a.scenario);
    const outcomes = Object.fromEntries(linked.map((a) => [a.key, a.scenario?.latestRun?.verdict?.outcome]));
    expect(outcomes).toEqual({
      'lower-keep-alive-to-5s-during-stackegg': 'PREVENTED',
      'raise-haproxy-session-limit': 'PREVENTED',
      'embed-initial-game-state-in-page': 'NOT_PREVENTED',
      'restbase-no-cache-control-forwarding': 'PREVENTED',
      'restbase-content-req-pinned-to-revision': 'PREVENTED',
      'restbase-generic-event-loop-prevention': 'PREVENTED',
      'changeprop-bound-processing-concurrency': 'PREVENTED',
      'mcs-stop-repeated-redirect-following': 'PREVENTED',
      'changeprop-safer-retry-policy': 'REDUCED',
      'reopen-boot-throttle-in-small-steps': 'REDUCED',
      'change-consul-rollout-procedure': 'PREVENTED',
      'fetch-only-missing-gdm-entries': 'PREVENTED',
      'allow-replica-reads-for-gdm-membership': 'PREVENTED',
      'move-gdm-query-to-channel-sharded-table': 'PREVENTED',
      'fix-mcrib-control-loop': 'PREVENTED',
      'wordpress-curl-connect-and-total-timeouts': 'PREVENTED',
      'cluster-outbound-call-timeouts': 'PREVENTED',
    });
    for (const a of linked) {
      const v = a.scenario!.latestRun!.verdict!;
      // The verdict is what the run shows.
      expect([a.key, v.run.met]).toEqual([a.key, v.outcome !== 'PREVENTED']);
      expect([a.key, v.baseline.met]).toEqual([a.key, true]);
      expect(v.reason.length).toBeGreaterThan(40);
    }
    // The three fixes whose own checks pass while the failure still happens are not called preventions.
    expect(outcomes['embed-initial-game-state-in-page']).not.toBe('PREVENTED');
    expect(outcomes['changeprop-safer-retry-policy']).not.toBe('PREVENTED');
    expect(linked.find((a) => a.key === 'embed-initial-game-state-in-page')!.scenario!.latestRun!.verdict!.reason).toMatch(/^Not prevented/);
  });

  it('never answers with a stored run of another engine version', async () => {
    const prisma = t.app.get(PrismaService);
    const models = t.app.get(ModelRunsService);
    const current = await models.run({ incidentSlug: STACKEGG, scenarioKey: 'lower-keep-alive' });
    // A newer-looking run left by an older engine: no verdict, and maybe other numbers.
    await prisma.modelRun.create({
      data: {
        incidentId: current.incidentId,
        specId: current.specId,
        scenarioKey: 'lower-keep-alive',
        inputHash: 'run-of-an-older-engine',
        parameters: {},
        seed: current.seed,
        engineVersion: '0.9.0',
        specVersion: current.specVersion,
        status: 'succeeded',
        queuedAt: new Date(Date.now() + 60_000),
      },
    });
    const latest = (await models.latestRuns([current.incidentId])).get(`${current.incidentId}:lower-keep-alive`)!;
    expect(latest.id).toBe(current.id);
    expect(latest.engineVersion).toBe(current.engineVersion);
    expect(latest.verdict?.outcome).toBe('PREVENTED');
  });

  it('says where every parameter comes from, what every check is, and how many checks are evidence', async () => {
    type P = { name: string; provenance: { kind: string; quote: string | null; place: string | null; formula: string | null; from: { quote: string }[]; why: string | null } | null };
    type M = { incident: { model: { evidenceCount: number; failureCriterion: { description: string; op: string; sustain: number; source: { quote: string } }; parameters: P[]; scenarios: { key: string; latestRun: { checks: { name: string; kind: string | null; source: { quote: string } | null }[] } | null }[] } } };
    const res = await t.gql<M>(`{ incident(slug: "${STACKEGG}") { model {
      evidenceCount failureCriterion { description op sustain source { quote } }
      parameters { name provenance { kind quote place formula from { quote } why } }
      scenarios { key latestRun { checks { name kind source { quote } } } } } } }`);
    expect(res.errors).toBeUndefined();
    const m = res.data.incident.model;
    expect(m.evidenceCount).toBe(2);
    expect(m.failureCriterion).toEqual({
      description: 'fewer than 90 % of page connections succeed for at least 30 s',
      op: 'BELOW',
      sustain: 30,
      source: { quote: 'This resulted in a 6 minute public outage on Stack Overflow.' },
    });
    const byName = new Map(m.parameters.map((p) => [p.name, p.provenance]));
    expect(m.parameters.filter((p) => !p.provenance)).toEqual([]);
    expect(byName.get('keepAliveSeconds')).toMatchObject({ kind: 'SOURCE', quote: 'In our case, we had this tuned to 15 seconds.', formula: null, why: null });
    expect(byName.get('otherRequestRate')).toMatchObject({ kind: 'DERIVED', formula: '6,608 − 3,444 = 3,164 req/s', quote: null });
    expect(byName.get('otherRequestRate')!.from.map((q) => q.quote)).toEqual(['the combined traffic peaked at 6,608 requests/sec', 'peaking out at 3,444 requests/sec at peak']);
    expect(byName.get('listenBacklog')).toMatchObject({ kind: 'ASSUMPTION', quote: null });
    const checks = m.scenarios.flatMap((s) => s.latestRun?.checks ?? []);
    expect(checks.find((c) => c.name === 'sessions-at-15s-keep-alive')).toMatchObject({ kind: 'FITTED' });
    expect(checks.find((c) => c.name === 'sessions-at-5s-keep-alive')).toMatchObject({ kind: 'REPRODUCES', source: { quote: '15:37:38 Concurrent sessions down to 19,689' } });
    expect(checks.filter((c) => c.kind === 'REPRODUCES')).toHaveLength(m.evidenceCount);
  });

  it("keeps a fix's own parameter values over a compared what-if, and reports each conflict", async () => {
    type C = {
      compareScenarios: {
        scenarios: { scenario: { key: string }; conflicts: { parameter: string; requested: number; applied: number }[]; run: { status: string; summary: { name: string; value: number }[]; verdict: { outcome: string } | null } }[];
      };
    };
    const query = `query($incident: String!, $parameters: [ParameterValueInput!]) { compareScenarios(incident: $incident, parameters: $parameters) {
      scenarios { scenario { key } conflicts { parameter requested applied } run { status summary { name value } verdict { outcome } } } } }`;
    const figure = (row: C['compareScenarios']['scenarios'][number], name: string) => row.run.summary.find((f) => f.name === name)!.value;

    const stack = await t.gql<C>(query, { incident: STACKEGG, parameters: [{ name: 'keepAliveSeconds', value: 20 }] });
    expect(stack.errors).toBeUndefined();
    const rows = new Map(stack.data.compareScenarios.scenarios.map((r) => [r.scenario.key, r]));
    const lower = rows.get('lower-keep-alive')!;
    expect(lower.conflicts).toEqual([{ parameter: 'keepAliveSeconds', requested: 20, applied: 5 }]);
    // The fix ran at its own 5 s, not at 20 s: far fewer sessions than as it happened, and no outage.
    expect(figure(lower, 'stackegg-demand')).toBeCloseTo(3444 * 5.01, 0);
    expect(figure(rows.get('as-happened')!, 'stackegg-demand')).toBeCloseTo(3444 * 20.01, 0);
    expect(lower.run.verdict!.outcome).toBe('PREVENTED');
    // Scenarios that do not set the parameter take the what-if value and report nothing.
    expect(rows.get('raise-session-limit')!.conflicts).toEqual([]);
    expect(figure(rows.get('raise-session-limit')!, 'stackegg-demand')).toBeCloseTo(3444 * 20.01, 0);
    expect(rows.get('as-happened')!.conflicts).toEqual([]);

    const slack = await t.gql<C>(query, { incident: 'slack-cache-metastability-2022', parameters: [{ name: 'bootRate', value: 1000 }] });
    expect(slack.errors).toBeUndefined();
    const offPeak = slack.data.compareScenarios.scenarios.find((r) => r.scenario.key === 'rollout-off-peak')!;
    expect(offPeak.conflicts).toEqual([{ parameter: 'bootRate', requested: 1000, applied: 600 }]);
    const plain = await t.gql<C>(query, { incident: 'slack-cache-metastability-2022', parameters: [] });
    const offPeakDefault = plain.data.compareScenarios.scenarios.find((r) => r.scenario.key === 'rollout-off-peak')!;
    // The off-peak step keeps its 600 boots/s: the same figures as without the what-if.
    expect(offPeak.run.summary).toEqual(offPeakDefault.run.summary);
  });

  it("reports on a single run the what-if values its fix scenario kept its own value for", async () => {
    type R = { runModel: { run: { scenarioKey: string; parameters: { name: string; value: number }[]; conflicts: { parameter: string; requested: number; applied: number }[]; summary: { name: string; value: number }[] } } };
    const query = `mutation($scenario: String!, $parameters: [ParameterValueInput!]) { runModel(input: { incident: "${STACKEGG}", scenario: $scenario, parameters: $parameters }) {
      run { scenarioKey parameters { name value } conflicts { parameter requested applied } summary { name value } } } }`;
    const asked = [
      { name: 'keepAliveSeconds', value: 20 },
      { name: 'stackEggRate', value: 1200 },
    ];
    const fix = await t.gql<R>(query, { scenario: 'lower-keep-alive', parameters: asked });
    expect(fix.errors).toBeUndefined();
    const run = fix.data.runModel.run;
    // The run records what was asked; the conflict says which of it the fix did not apply.
    expect(run.parameters).toHaveLength(2);
    expect(run.parameters).toEqual(expect.arrayContaining(asked));
    expect(run.conflicts).toEqual([{ parameter: 'keepAliveSeconds', requested: 20, applied: 5 }]);
    expect(run.summary.find((f) => f.name === 'stackegg-demand')!.value).toBeCloseTo(1200 * 5.01, 0);

    const asHappened = await t.gql<R>(query, { scenario: 'as-happened', parameters: asked });
    expect(asHappened.errors).toBeUndefined();
    expect(asHappened.data.runModel.run.conflicts).toEqual([]);
    // The same value as the fix's own is no conflict.
    const same = await t.gql<R>(query, { scenario: 'lower-keep-alive', parameters: [{ name: 'keepAliveSeconds', value: 5 }] });
    expect(same.data.runModel.run.conflicts).toEqual([]);
  });

  it('lets an editor give a new incident a model as data, without engine code', async () => {
    const { as } = await issueTokens(t);
    const spec = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'models', `${STACKEGG}.model.json`), 'utf8')) as Record<string, unknown>;
    const custom = { ...spec, slug: 'edge-proxy-session-cap', version: '0.1.0', title: 'An edge proxy with a session cap' };
    const created = await t.gql<{ createModelSpec: { modelSpec: { key: string; version: string } } }>(`mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key version } } }`, { s: custom }, as('editor'));
    expect(created.errors).toBeUndefined();
    expect(created.data.createModelSpec.modelSpec).toEqual({ key: 'edge-proxy-session-cap', version: '0.1.0' });
    const same = await t.gql<{ createModelSpec: { modelSpec: { key: string } } }>(`mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key } } }`, { s: custom }, as('editor'));
    expect(same.errors).toBeUndefined();
    const changed = await t.gql(`mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key } } }`, { s: { ...custom, title: 'Changed without a new version' } }, as('editor'));
    expect(changed.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const invalid = await t.gql(`mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key } } }`, { s: { ...custom, version: '0.2.0', stations: 'none' } }, as('editor'));
    expect(invalid.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(invalid.errors?.[0]?.message).toMatch(/spec\.stations/);

    const attached = await t.gql<{ attachModel: { model: { key: string; scenarios: { key: string }[] } } }>(
      `mutation { attachModel(input: { incident: "slack-cache-metastability-2022", model: "edge-proxy-session-cap", defaultParameters: [{ name: "sessionCap", value: 30000 }] }) { model { key scenarios { key } parameters { name default } } } }`,
      {},
      as('editor'),
    );
    expect(attached.errors).toBeUndefined();
    const run = await t.gql<{ runModel: { run: Run } }>(RUN, { incident: 'slack-cache-metastability-2022', scenario: 'as-happened' });
    expect(run.data.runModel.run.status).toBe('SUCCEEDED');
    const badDefault = await t.gql(`mutation { attachModel(input: { incident: "slack-cache-metastability-2022", model: "edge-proxy-session-cap", defaultParameters: [{ name: "sessionCap", value: -1 }] }) { model { key } } }`, {}, as('editor'));
    expect(badDefault.errors?.[0]?.extensions?.field).toBe('input.parameters.sessionCap');
  });
});

describe('model runs through the job queue (npm run worker)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MODEL_EXECUTION: 'queue' } });
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t.close();
  });


  it('answers a mutation with fresh models after an earlier field of the same operation read them', async () => {
    const { as } = await issueTokens(t);
    const APACHE = 'apache-outbound-calls-without-timeouts-2011';
    const spec = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'models', `${STACKEGG}.model.json`), 'utf8')) as Record<string, unknown>;
    const stored = await t.gql(`mutation($s: JSON!) { createModelSpec(input: { spec: $s }) { modelSpec { key } } }`, { s: { ...spec, slug: 'stale-check-model', version: '0.1.0' } }, as('editor'));
    expect(stored.errors).toBeUndefined();
    const v = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${APACHE}") { version } }`)).data.incident.version;
    // One operation: the first mutation's payload loads the incident's model, the second replaces it.
    const res = await t.gql<{ before: { incident: { model: { key: string } | null } }; after: { incident: { model: { key: string } | null }; model: { key: string } } }>(
      `mutation {
        before: updateIncident(input: { slug: "${APACHE}", expectedVersion: ${v}, patch: { impact: "Every page waited on the footer call." } }) { incident { model { key } } }
        after: attachModel(input: { incident: "${APACHE}", model: "stale-check-model" }) { model { key } incident { model { key } } }
      }`,
      {},
      as('editor'),
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.before.incident.model?.key).not.toBe('stale-check-model');
    expect(res.data.after.model.key).toBe('stale-check-model');
    // Before one loader mechanism, the model loaders outlived the reset and this read the old model.
    expect(res.data.after.incident.model?.key).toBe('stale-check-model');
  });
  it('queues a run in the API and a separate worker executes it', async () => {
    const queued = await t.gql<{ runModel: { run: { id: string; status: string } } }>(RUN, { incident: STACKEGG, scenario: 'as-happened', seed: 11 });
    expect(queued.errors).toBeUndefined();
    expect(queued.data.runModel.run.status).toBe('QUEUED');

    // What `npm run worker` does, with its own connections and its own worker threads.
    const prisma = testPrisma(t.db.url);
    const pool = runnerExecutor({ workers: 1, queueSize: 4, runTimeoutMs: 30_000, eventBudget: 50_000_000 });
    const worker = new ModelRunsService(prisma, pool, { execution: 'inline', defaultSeed: 1 });
    const queue = new ModelRunQueue(t.db.url);
    try {
      await queue.work((runId) => worker.execute(runId), 1);
      let status = 'QUEUED';
      for (let i = 0; i < 120 && status !== 'SUCCEEDED' && status !== 'FAILED'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await t.gql<{ modelRun: { status: string } }>(`query($id: ID!) { modelRun(id: $id) { status } }`, { id: queued.data.runModel.run.id })).data.modelRun.status;
      }
      expect(status).toBe('SUCCEEDED');
    } finally {
      await queue.stop();
      await pool.close();
      await prisma.onModuleDestroy();
    }
  });
});
