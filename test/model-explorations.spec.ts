import { PrismaService } from '@hindsight/db';
import { ModelExplorations, ModelRunsService, runnerExecutor, type ClosableExecutor, type ModelRunOptions } from '@hindsight/model-runs';
import { aggregateEnsemble, runModel, validateSpec } from '@hindsight/models';
import { attachSeedModels } from './support/model-seeds';
import { attachQueueModel, QUEUE_MODEL_INCIDENT, queueModelSpec } from './support/queue-model';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';

const ENSEMBLE = `mutation E($input: RunModelEnsembleInput!) {
  runModelEnsemble(input: $input) {
    status runsFinished
    ensemble { inputHash scenarioKey seeds time series { key unit mean p10 p50 p90 } summary { name mean p10 p90 n } failure { met runs probability } checks { name pass } notEvaluated { name reason } text }
  }
}`;
const SWEEP = `mutation S($input: RunModelSweepInput!) {
  runModelSweep(input: $input) { status runsFinished sweep { scenarioKey axes { parameter unit values } points { values { parameter value } failureMet onset figures { name value } errorCode } text } }
}`;
const BOUNDARY = `mutation B($input: FindModelBoundaryInput!) {
  findModelBoundary(input: $input) { status runsFinished boundary { parameter unit metAtFrom metAtTo below above probes { value failureMet } text } }
}`;

describe('ensembles, sweeps and boundaries over GraphQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('runs a seed ensemble as stored runs, one per seed, and answers the same again without new runs', async () => {
    const view = await attachQueueModel(t.app.get(ModelRunsService), 200);
    const input = { incident: QUEUE_MODEL_INCIDENT, scenario: 'as-happened', seeds: 4, seed: 11 };
    type E = { runModelEnsemble: { status: string; runsFinished: number; ensemble: { seeds: number[]; series: { key: string; mean: number[]; p10: number[]; p90: number[] }[]; summary: unknown[]; text: string } } };
    const first = await t.gql<E>(ENSEMBLE, { input });
    expect(first.errors).toBeUndefined();
    const e = first.data.runModelEnsemble;
    expect(e).toMatchObject({ status: 'COMPLETE', runsFinished: 4 });
    expect(e.ensemble.seeds).toEqual([11, 12, 13, 14]);
    const prisma = t.app.get(PrismaService);
    const rows = await prisma.modelRun.findMany({ where: { specId: view.spec.id, seed: { in: [11, 12, 13, 14] } }, orderBy: { seed: 'asc' } });
    expect(rows.map((r) => [r.seed, r.status])).toEqual([11, 12, 13, 14].map((s) => [s, 'succeeded']));
    // The bands are those of the four runs the engine gives for these seeds.
    const spec = validateSpec(queueModelSpec(200));
    const expected = aggregateEnsemble(spec, [11, 12, 13, 14].map((seed) => runModel({ spec, seed })));
    expect(e.ensemble.series[0]!.mean).toEqual(expected.series[0]!.mean);
    expect(e.ensemble.series[0]!.p90).toEqual(expected.series[0]!.p90);

    const before = await prisma.modelRun.count();
    const again = await t.gql<E>(ENSEMBLE, { input });
    expect(again.data.runModelEnsemble.ensemble).toEqual(e.ensemble);
    expect(await prisma.modelRun.count()).toBe(before);
  });

  it('refuses an ensemble beyond the limit, naming the field and the limit', async () => {
    const res = await t.gql(ENSEMBLE, { input: { incident: STACKEGG, scenario: 'as-happened', seeds: 201 } });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.seeds' });
    expect(res.errors?.[0]?.message).toContain('between 1 and 200 (engine limit), got 201');
  });

  it('sweeps StackEgg’s keep-alive and finds where below it the session cap is never reached', async () => {
    type S = { runModelSweep: { status: string; sweep: { points: { values: { parameter: string; value: number }[]; failureMet: boolean }[]; text: string } } };
    const sweep = await t.gql<S>(SWEEP, { input: { incident: STACKEGG, scenario: 'as-happened', axes: [{ parameter: 'keepAliveSeconds', from: 5, to: 15, count: 3 }] } });
    expect(sweep.errors).toBeUndefined();
    expect(sweep.data.runModelSweep.status).toBe('COMPLETE');
    expect(sweep.data.runModelSweep.sweep.points.map((p) => [p.values[0]!.value, p.failureMet])).toEqual([
      [5, false],
      [10, true],
      [15, true],
    ]);
    type B = { findModelBoundary: { status: string; boundary: { metAtFrom: boolean; metAtTo: boolean; below: number; above: number; text: string } } };
    const b = await t.gql<B>(BOUNDARY, { input: { incident: STACKEGG, scenario: 'as-happened', parameter: 'keepAliveSeconds', from: 5, to: 10, tolerance: 0.5 } });
    expect(b.errors).toBeUndefined();
    const found = b.data.findModelBoundary.boundary;
    expect(found).toMatchObject({ metAtFrom: false, metAtTo: true });
    expect(found.above - found.below).toBeLessThanOrEqual(0.5);
    expect(found.text).toMatch(/^Below keepAliveSeconds = [\d.]+ s the failure criterion .* is never met; from [\d.]+ s on it is met/);
  });

  it('bisects on a named check instead of the failure criterion', async () => {
    // (Slack's incident carries the queue model in this suite; its own relaxation question is asked by the engine, CLI and page tests.)
    const query = `mutation B($input: FindModelBoundaryInput!) {
      findModelBoundary(input: $input) { status boundary { target checkName metAtFrom metAtTo below above probes { value failureMet checkPassed } text } } }`;
    type B = { findModelBoundary: { status: string; boundary: { target: string; checkName: string; metAtFrom: boolean; metAtTo: boolean; below: number; above: number; probes: { value: number; failureMet: boolean; checkPassed: boolean }[]; text: string } } };
    const input = { incident: STACKEGG, scenario: 'as-happened', parameter: 'keepAliveSeconds', from: 5, to: 15, tolerance: 0.5, check: 'sessions-pinned-at-cap' };
    const b = await t.gql<B>(query, { input });
    expect(b.errors).toBeUndefined();
    const found = b.data.findModelBoundary.boundary;
    expect(found).toMatchObject({ target: 'CHECK', checkName: 'sessions-pinned-at-cap', metAtFrom: false, metAtTo: true });
    expect(found.above - found.below).toBeLessThanOrEqual(0.5);
    expect(found.probes.every((p) => p.checkPassed === p.value >= found.above)).toBe(true);
    expect(found.text).toMatch(/^Below keepAliveSeconds = [\d.]+ s the check "sessions-pinned-at-cap" .* fails; from [\d.]+ s on it passes/);
    // Without a check the same search is on the failure criterion, and says so.
    const plain = await t.gql<B>(query, { input: { ...input, check: null } });
    expect(plain.data.findModelBoundary.boundary).toMatchObject({ target: 'FAILURE', checkName: null });
    expect(plain.data.findModelBoundary.boundary.probes.every((p) => p.checkPassed === null)).toBe(true);

    const unknown = await t.gql(query, { input: { ...input, check: 'nope' } });
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.check' });
    const elsewhere = await t.gql(query, { input: { ...input, scenario: 'raise-session-limit' } });
    expect(elsewhere.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.check' });
    expect(elsewhere.errors?.[0]?.message).toContain('check "sessions-pinned-at-cap" is evaluated on as-happened, not on scenario "raise-session-limit"');
  });

  it('bisects on a summary figure crossing a value', async () => {
    const query = `mutation B($input: FindModelBoundaryInput!) {
      findModelBoundary(input: $input) { status boundary { target checkName figure { name label unit op value } metAtFrom metAtTo below above probes { value failureMet checkPassed figureValue } text } } }`;
    type B = {
      findModelBoundary: {
        status: string;
        boundary: {
          target: string;
          checkName: string | null;
          figure: { name: string; label: string; unit: string; op: string; value: number } | null;
          metAtFrom: boolean;
          metAtTo: boolean;
          below: number;
          above: number;
          probes: { value: number; failureMet: boolean; checkPassed: boolean | null; figureValue: number | null }[];
          text: string;
        };
      };
    };
    // StackEgg's demand is its request rate × keep-alive: above 40,000 sessions from about 11.6 s.
    const input = { incident: STACKEGG, scenario: 'as-happened', parameter: 'keepAliveSeconds', from: 5, to: 15, tolerance: 0.5, figure: { name: 'stackegg-demand', op: 'ABOVE', value: 40000 } };
    const b = await t.gql<B>(query, { input });
    expect(b.errors).toBeUndefined();
    const found = b.data.findModelBoundary.boundary;
    expect(found).toMatchObject({ target: 'FIGURE', checkName: null, figure: { name: 'stackegg-demand', unit: 'sessions', op: 'ABOVE', value: 40000 }, metAtFrom: false, metAtTo: true });
    expect(found.above - found.below).toBeLessThanOrEqual(0.5);
    expect(found.below).toBeGreaterThan(11);
    expect(found.above).toBeLessThan(12.5);
    expect(found.probes.every((p) => p.figureValue !== null && p.figureValue > 40000 === p.value >= found.above && p.checkPassed === null)).toBe(true);
    expect(found.text).toMatch(/^Below keepAliveSeconds = [\d.]+ s the figure "stackegg-demand" .* is not above 40,000 sessions; from [\d.]+ s on it is above 40,000 sessions/);
    // The other searches report no figure.
    const plain = await t.gql<B>(query, { input: { ...input, figure: null } });
    expect(plain.data.findModelBoundary.boundary).toMatchObject({ target: 'FAILURE', figure: null });
    expect(plain.data.findModelBoundary.boundary.probes.every((p) => p.figureValue === null)).toBe(true);

    // The engine's refusals, by the input's field names, in the engine's order: the same bad
    // input gets the same error as in the CLI.
    const unknown = await t.gql(query, { input: { ...input, figure: { ...input.figure, name: 'nope' } } });
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.figure.name' });
    expect(unknown.errors?.[0]?.message).toBe('input.figure.name: unknown figure "nope" (known: peak-sessions, stackegg-demand, worst-page-success)');
    const both = await t.gql(query, { input: { ...input, check: 'sessions-pinned-at-cap' } });
    expect(both.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.figure' });
    expect(both.errors?.[0]?.message).toBe('input.figure: search on a check or on a figure, not both');
    const unknownBoth = await t.gql(query, { input: { ...input, check: 'sessions-pinned-at-cap', figure: { ...input.figure, name: 'nope' } } });
    expect(unknownBoth.errors?.[0]?.message).toBe('input.figure.name: unknown figure "nope" (known: peak-sessions, stackegg-demand, worst-page-success)');
    const unknownCheck = await t.gql(query, { input: { ...input, figure: null, check: 'nope' } });
    expect(unknownCheck.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.check' });
    expect(unknownCheck.errors?.[0]?.message).toContain('input.check: unknown check "nope" (known: ');
    const badOp = await t.gql(query, { input: { ...input, figure: { ...input.figure, op: 'OVER' } } });
    expect(badOp.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.figure.op' });
  });

  it('refuses a sweep over a value the scenario fixes itself', async () => {
    const res = await t.gql(SWEEP, { input: { incident: STACKEGG, scenario: 'lower-keep-alive', axes: [{ parameter: 'keepAliveSeconds', from: 1, to: 10, count: 3 }] } });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', parameter: 'keepAliveSeconds' });
    expect(res.errors?.[0]?.message).toContain('scenario "lower-keep-alive" sets keepAliveSeconds itself');
  });
});

describe('ensembles in queue mode', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  const executors: ClosableExecutor[] = [];

  function service(options: Partial<ModelRunOptions>) {
    const executor = runnerExecutor({ workers: 1, queueSize: 4, runTimeoutMs: 60_000, eventBudget: 1e8 });
    executors.push(executor);
    return new ModelRunsService(prisma, executor, { execution: 'inline', defaultSeed: 1, leaseMs: 60_000, ...options });
  }

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
  });
  afterAll(async () => {
    for (const e of executors) await e.close();
    await prisma.$disconnect();
    await db.drop();
  });

  it('spreads the seeds as queued runs over the workers sharing the database, answers PENDING until they are done, then the same bands as inline', async () => {
    const api = service({ execution: 'queue' });
    const jobs: string[] = [];
    api.enqueue = async (runId) => void jobs.push(runId);
    await attachQueueModel(api, 300);
    const explorations = new ModelExplorations(api, prisma);
    explorations.waitMs = 200;
    const request = { incidentSlug: QUEUE_MODEL_INCIDENT, scenarioKey: 'as-happened', seed: 1, seeds: 6 };

    const pending = await explorations.ensemble(request);
    expect(pending).toEqual({ status: 'PENDING', runsFinished: 0, result: null });
    expect(jobs).toHaveLength(6);
    expect(await prisma.modelRun.count({ where: { status: 'queued' } })).toBe(6);

    // Two worker processes take the jobs in turn, each under its own lease.
    const workers = [service({ execution: 'queue' }), service({ execution: 'queue' })];
    const done = await Promise.all(jobs.map((id, i) => workers[i % 2]!.execute(id)));
    expect(done.every((r) => r.status === 'succeeded')).toBe(true);

    const complete = await explorations.ensemble(request);
    expect(complete.status).toBe('COMPLETE');
    expect(complete.result!.seeds).toEqual([1, 2, 3, 4, 5, 6]);
    const inline = new ModelExplorations(service({ execution: 'inline' }), prisma);
    const direct = await inline.ensemble({ ...request });
    expect(JSON.stringify(complete.result)).toBe(JSON.stringify(direct.result));
  });
});
