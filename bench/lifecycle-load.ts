/**
 * Mixed load with faults: GraphQL reads, contended actionable transitions and model runs against
 * `npm start` (a child process), with a restart of its PostgreSQL in the middle and a SIGTERM of
 * the app at the end, while the load is still running. Then it checks the database itself:
 *  - every acknowledged transition is present, with exactly one audit event for its version;
 *  - no version of an actionable has two audit events (no duplicated write);
 *  - no model run is left `running` (or `queued`) after the app stopped.
 * Latency per operation under load is printed beside the idle latency of the same requests,
 * measured first in the same run.
 *
 * Run: node -r ./scripts/register-ts.js bench/lifecycle-load.ts [loadSeconds=120]
 * Loopback only; the bench owns an embedded PostgreSQL in a temporary folder (removed at the
 * end). Bounded: idle phase of fixed counts, load phase of `loadSeconds`, every request has a
 * 30 s timeout, every client does one request at a time.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, projectRoot, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@hindsight/db';

const loadSeconds = Number(process.argv[2] ?? 120);
const restartAt = loadSeconds * 0.4;
const READERS = 6;
const TRANSITIONERS = 4;
const MODEL_CLIENTS = 2;
const CONTENDED = 3; // actionables every transitioning client works on
const root = projectRoot();

type Op = 'read' | 'transition' | 'runModel';
interface Sample {
  op: Op;
  ms: number;
  outcome: string;
  phase: 'idle' | 'load' | 'restart' | 'drain';
  start: bigint;
  end: bigint;
}

const READ = '{ incidents(first: 10) { totalCount nodes { slug actionables { id status version } timeline { key } } } }';
const TRANSITION = 'mutation($id: ID!, $v: Int!, $to: ActionableStatus!) { transitionActionable(input: { id: $id, expectedVersion: $v, to: $to }) { actionable { id status version } } }';
const RUN_MODEL =
  'mutation($seed: Int) { runModel(input: { incident: "apache-outbound-calls-without-timeouts-2011", scenario: "as-happened", seed: $seed }) { run { id status } } }';
const NEXT: Record<string, string> = { OPEN: 'IN_PROGRESS', IN_PROGRESS: 'DONE', DONE: 'OPEN', WONT_DO: 'OPEN' };

let base = '';
let token = '';
let phase: Sample['phase'] = 'idle';
const samples: Sample[] = [];
const acked: { id: string; version: number; status: string }[] = [];
let seedCounter = 10_000;

async function gql(query: string, variables: Record<string, unknown>, auth = false): Promise<{ status: number; body: { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] } | null; error?: string }> {
  try {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      // a non-JSON answer (e.g. a proxy page) counts by its status alone
    }
    return { status: res.status, body };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, body: null, error: cause ?? (error as Error).name };
  }
}

function outcomeOf(r: Awaited<ReturnType<typeof gql>>): string {
  if (r.status === 0) return `net:${r.error}`;
  if (r.status !== 200) return `http:${r.status}${r.body?.errors?.[0]?.extensions?.code ? `:${r.body.errors[0].extensions.code}` : ''}`;
  if (r.body?.errors?.length) return r.body.errors[0]!.extensions?.code ?? 'error';
  return 'ok';
}

async function timed(op: Op, work: () => Promise<Awaited<ReturnType<typeof gql>>>): Promise<Awaited<ReturnType<typeof gql>>> {
  const started = process.hrtime.bigint();
  const r = await work();
  const end = process.hrtime.bigint();
  samples.push({ op, ms: Number(end - started) / 1e6, outcome: outcomeOf(r), phase, start: started, end });
  return r;
}

const read = () => timed('read', () => gql(READ, {}));
const runModel = () => timed('runModel', () => gql(RUN_MODEL, { seed: seedCounter++ }));

async function transition(state: Map<string, { version: number; status: string }>, id: string): Promise<void> {
  const known = state.get(id)!;
  const r = await timed('transition', () => gql(TRANSITION, { id, v: known.version, to: NEXT[known.status] }, true));
  const moved = (r.body?.data?.transitionActionable as { actionable?: unknown } | undefined)?.actionable as { id: string; status: string; version: number } | undefined;
  if (r.status === 200 && moved) {
    acked.push({ id, version: moved.version, status: moved.status });
    state.set(id, { version: moved.version, status: moved.status });
  } else if (r.body?.errors?.[0]?.extensions?.code === 'CONFLICT' || r.status === 0 || r.status >= 500) {
    // Someone else moved it, or the answer was lost: read it again before the next try.
    await refresh(state);
  }
}

async function refresh(state: Map<string, { version: number; status: string }>): Promise<void> {
  const r = await gql(READ, {});
  const nodes = (r.body?.data?.incidents as { nodes: { actionables: { id: string; status: string; version: number }[] }[] } | undefined)?.nodes ?? [];
  for (const a of nodes.flatMap((n) => n.actionables)) if (state.has(a.id)) state.set(a.id, { version: a.version, status: a.status });
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function waitForHealth(child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error('the app exited during start-up');
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the app did not answer /health within 120 s');
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-bench-'));
  fs.chmodSync(dataDir, 0o755);
  const pgPort = await freePort();
  const pgOptions = { dataDir: path.join(dataDir, 'pg'), port: pgPort, database: 'hindsight', persistent: true, role: 'bench/lifecycle-load' };
  let pg: EmbeddedPostgresHandle = await startEmbeddedPostgres(pgOptions);
  const appPort = await freePort();
  base = `http://127.0.0.1:${appPort}`;
  // Every client shares one loopback address and one token: the per-client rate limits and the
  // stored-run quota would refuse most of the load, which is not what this bench measures.
  const env = {
    ...process.env,
    NO_COLOR: '1',
    DATABASE_URL: pg.url,
    PORT: String(appPort),
    SHUTDOWN_GRACE_MS: '20000',
    RATE_LIMIT_WRITES_PER_TOKEN: '0',
    RATE_LIMIT_WRITES_PER_ADDRESS: '0',
    RATE_LIMIT_MODEL_RUNS_PER_TOKEN: '0',
    RATE_LIMIT_MODEL_RUNS_PER_ADDRESS: '0',
    MODEL_RUN_QUOTA: '0',
  };
  const appLog = fs.openSync(path.join(dataDir, 'app.log'), 'w');
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.js')], { cwd: root, env, stdio: ['ignore', appLog, appLog] });
  let signalled = false;
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      if (!signalled) console.error(`lifecycle-load: the app exited by itself (${code ?? signal}) at phase ${phase}:\n${fs.readFileSync(path.join(dataDir, 'app.log'), 'utf8').split('\n').slice(-60).join('\n')}`);
      resolve(code ?? signal ?? -1);
    }),
  );
  try {
    await waitForHealth(child);
    const out = execFileSync(process.execPath, [path.join(root, 'scripts', 'cli.js'), 'token', 'create', '--name', 'bench', '--role', 'editor'], { cwd: root, env, encoding: 'utf8' });
    token = /^token: (\S+)$/m.exec(out)![1]!;
    // Let the start-up scenario runs finish so that they do not count as load.
    for (let i = 0; i < 600 && !fs.readFileSync(path.join(dataDir, 'app.log'), 'utf8').includes('model scenarios ready'); i++) await new Promise((r) => setTimeout(r, 200));

    const state = new Map<string, { version: number; status: string }>();
    const first = await gql(READ, {});
    const all = (first.body!.data!.incidents as { nodes: { actionables: { id: string; status: string; version: number }[] }[] }).nodes.flatMap((n) => n.actionables);
    for (const a of all.slice(0, CONTENDED + 1)) state.set(a.id, { version: a.version, status: a.status });
    const ids = [...state.keys()];

    // Idle: the same requests one at a time.
    for (let i = 0; i < 40; i++) await read();
    for (let i = 0; i < 20; i++) await transition(state, ids[CONTENDED]!); // an uncontended one
    for (let i = 0; i < 10; i++) await runModel();

    // Load.
    phase = 'load';
    const started = Date.now();
    const elapsed = () => (Date.now() - started) / 1000;
    let stopLoad = false;
    const loop = async (work: () => Promise<unknown>) => {
      while (!stopLoad && elapsed() < loadSeconds + 30) {
        await work();
        // After SIGTERM the listener is gone: stop as soon as connections are refused.
        const last = samples.at(-1);
        if (phase === 'drain' && last?.outcome === 'net:ECONNREFUSED') return;
      }
    };
    const clients: Promise<unknown>[] = [];
    for (let i = 0; i < READERS; i++) clients.push(loop(read));
    for (let i = 0; i < TRANSITIONERS; i++) {
      clients.push(loop(() => transition(state, ids[Math.floor(Math.random() * CONTENDED)]!)));
    }
    for (let i = 0; i < MODEL_CLIENTS; i++) clients.push(loop(runModel));

    await new Promise((r) => setTimeout(r, restartAt * 1000));
    phase = 'restart';
    const down = process.hrtime.bigint();
    await pg.stop();
    await new Promise((r) => setTimeout(r, 3_000)); // a few seconds without a database
    pg = await startEmbeddedPostgres(pgOptions);
    const downMs = Number(process.hrtime.bigint() - down) / 1e6;
    await new Promise((r) => setTimeout(r, 5_000));
    phase = 'load';

    await new Promise((r) => setTimeout(r, Math.max(0, loadSeconds - elapsed()) * 1000));
    phase = 'drain';
    const sigterm = process.hrtime.bigint();
    signalled = true;
    child.kill('SIGTERM');
    const code = await exited;
    const stopMs = Number(process.hrtime.bigint() - sigterm) / 1e6;
    stopLoad = true;
    await Promise.all(clients);

    // Checks, straight from the database.
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    const events = await db.query<{ actionableId: string; version: number; n: string; to: unknown }>(
      `SELECT "actionableId", version, count(*) AS n FROM "AuditEvent" WHERE "actionableId" = ANY($1::uuid[]) AND action = 'update' AND field = 'status' GROUP BY 1, 2`,
      [ids],
    );
    const byKey = new Map(events.rows.map((r) => [`${r.actionableId}@${r.version}`, Number(r.n)]));
    const missing = acked.filter((a) => byKey.get(`${a.id}@${a.version}`) !== 1);
    const duplicated = events.rows.filter((r) => Number(r.n) > 1);
    const current = await db.query<{ id: string; version: number; status: string }>('SELECT id, version, status FROM "Actionable" WHERE id = ANY($1::uuid[])', [ids]);
    const stuck = await db.query<{ status: string; n: string }>(`SELECT status::text, count(*) AS n FROM "ModelRun" WHERE status IN ('running', 'queued') GROUP BY 1`);
    const runs = await db.query<{ status: string; n: string }>('SELECT status::text, count(*) AS n FROM "ModelRun" GROUP BY 1');
    await db.end();

    // Requests that were running when the signal came must all have had their answer.
    const inFlight = samples.filter((x) => x.start < sigterm && x.end > sigterm);
    const inFlightFailed = inFlight.filter((x) => x.outcome !== 'ok' && x.outcome !== 'CONFLICT');
    const afterSigterm: Record<string, number> = {};
    for (const x of samples.filter((y) => y.start >= sigterm)) afterSigterm[x.outcome] = (afterSigterm[x.outcome] ?? 0) + 1;
    const report: Record<string, unknown> = {
      node: process.version,
      loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
      loadSeconds,
      clients: { readers: READERS, transitioners: TRANSITIONERS, modelClients: MODEL_CLIENTS, contendedActionables: CONTENDED },
      postgresRestart: { atSecond: restartAt, downMs: Math.round(downMs) },
      sigterm: { exitCode: code, stopMs: Math.round(stopMs), inFlight: inFlight.length, inFlightWithoutAnswer: inFlightFailed.map((x) => `${x.op}:${x.outcome}`), sentAfter: afterSigterm },
      checks: {
        acknowledgedTransitions: acked.length,
        auditEventsForThem: events.rows.reduce((n, r) => n + Number(r.n), 0),
        acknowledgedWithoutExactlyOneEvent: missing.length,
        duplicatedVersions: duplicated.length,
        finalVersions: current.rows.map((r) => ({ version: r.version, status: r.status })),
        runsLeftRunningOrQueued: Object.fromEntries(stuck.rows.map((r) => [r.status, Number(r.n)])),
        runsByStatus: Object.fromEntries(runs.rows.map((r) => [r.status, Number(r.n)])),
      },
      operations: {} as Record<string, unknown>,
    };
    for (const op of ['read', 'transition', 'runModel'] as Op[]) {
      const idle = samples.filter((s) => s.op === op && s.phase === 'idle' && s.outcome === 'ok').map((s) => s.ms);
      const loaded = samples.filter((s) => s.op === op && s.phase === 'load');
      const okLoaded = loaded.filter((s) => s.outcome === 'ok').map((s) => s.ms);
      const outcomes: Record<string, number> = {};
      for (const s of samples.filter((x) => x.op === op && x.phase !== 'idle')) outcomes[`${s.phase}:${s.outcome}`] = (outcomes[`${s.phase}:${s.outcome}`] ?? 0) + 1;
      (report.operations as Record<string, unknown>)[op] = {
        idle: { n: idle.length, p50: round(percentile(idle, 50)), p99: round(percentile(idle, 99)) },
        load: { n: okLoaded.length, perSecond: round(okLoaded.length / (loadSeconds - 8)), p50: round(percentile(okLoaded, 50)), p99: round(percentile(okLoaded, 99)) },
        outcomes,
      };
    }
    console.log(JSON.stringify(report, null, 2));
    const failed = missing.length > 0 || duplicated.length > 0 || code !== 0 || stuck.rows.length > 0 || inFlightFailed.length > 0;
    console.log(
      failed
        ? `lifecycle-load: FAILED (${missing.length} acknowledged writes without exactly one event, ${duplicated.length} duplicated, exit ${code}, ${inFlightFailed.length} of ${inFlight.length} requests in flight at SIGTERM without an answer, ${stuck.rows.map((r) => `${r.n} ${r.status}`).join(', ') || 'no'} runs left unfinished)`
        : 'lifecycle-load: ok',
    );
    if (failed) console.error(`app log (last lines):\n${fs.readFileSync(path.join(dataDir, 'app.log'), 'utf8').split('\n').slice(-40).join('\n')}`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await pg.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Number.isFinite(n) ? Math.round(n * 10) / 10 : n;
}

main().catch((error: Error) => {
  console.error(`lifecycle-load: ${error.message}`);
  process.exit(1);
});
