import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { get, postGraphql, startAppProcess, type Answer, type AppProcess } from './support/app-process';
import { createTestDatabase, type TestDatabase } from './support/test-db';

// The app as `npm start` runs it, in a child process: signals, crashes and a second process
// on the same embedded data folder are things only a real process shows.

const SLOW_RUN = (seed: number) => ({
  query: `mutation($p: [ParameterValueInput!], $seed: Int) { runModel(input: { incident: "apache-outbound-calls-without-timeouts-2011", parameters: $p, seed: $seed }) { run { id status simulatedEvents } } }`,
  // A busy site over the model's ten minutes: a few million simulated events, so the run is
  // still executing when the signal arrives.
  variables: { p: [{ name: 'requestRate', value: 1500 }], seed },
});
const READ = { query: '{ incidents(first: 10) { totalCount nodes { slug timeline { key } actionables { id status version } } } }' };

function ok(answer: Answer): Record<string, unknown> {
  expect(answer.status).toBe(200);
  const body = JSON.parse(answer.body) as { data?: Record<string, unknown>; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

async function waitFor(app: AppProcess, text: string): Promise<void> {
  while (!app.output().includes(text)) {
    if (app.child.exitCode !== null) throw new Error(`the app exited before printing "${text}":\n${app.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cli(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const fullEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', ...env })) if (v !== undefined) fullEnv[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(projectRoot(), 'scripts', 'cli.js'), ...args], { cwd: projectRoot(), env: fullEnv, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('SIGTERM under load', () => {
  let db: TestDatabase;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase({ seed: false });
  });
  afterAll(async () => {
    app?.signal('SIGKILL');
    await db.drop();
  });

  it('answers every request in flight completely, then exits 0', async () => {
    app = await startAppProcess({ env: { DATABASE_URL: db.url, SHUTDOWN_GRACE_MS: '60000' } });
    await waitFor(app, 'model scenarios ready');

    let sent = 0;
    const onSent = () => sent++;
    const requests: Promise<Answer>[] = [];
    for (let i = 0; i < 4; i++) requests.push(postGraphql(app.base, SLOW_RUN(1000 + i + Math.floor(Math.random() * 1e6)), { onSent }));
    for (let i = 0; i < 8; i++) requests.push(postGraphql(app.base, READ, { onSent }));
    while (sent < requests.length) await new Promise((r) => setImmediate(r));
    // The server reads sockets in order: once a later request is answered, the earlier ones
    // have been taken in and are running.
    expect((await get(`${app.base}/health`)).status).toBe(200);
    app.child.kill('SIGTERM');

    const answers = await Promise.all(requests);
    const runs = answers.slice(0, 4).map((a) => (ok(a).runModel as { run: { status: string; simulatedEvents: number } }).run);
    for (const run of runs) expect(run).toMatchObject({ status: 'SUCCEEDED' });
    for (const a of answers.slice(4)) expect((ok(a).incidents as { totalCount: number }).totalCount).toBe(4);
    // Each answer told its client to close the connection rather than reuse a dying server.
    for (const a of answers) expect(a.headers.connection).toBe('close');

    expect(await app.exited).toBe(0);
    const drained = /SIGTERM: draining .* for (\d+) requests in flight/.exec(app.output());
    expect(drained).not.toBeNull();
    // The drain really had work to wait for (the slow runs were still executing).
    expect(Number(drained![1])).toBeGreaterThan(0);
    expect(app.output()).not.toMatch(/requests were still running after/);
    // New connections are refused once the drain has begun.
    await expect(get(`${app.base}/health`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('the embedded PostgreSQL across processes', () => {
  let dataDir: string;
  let app: AppProcess | undefined;
  const env = () => ({ DATABASE_URL: undefined, HINDSIGHT_DATA_DIR: dataDir });

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-lifecycle-'));
    // Reachable by the `postgres` user when the suite runs as root (mkdtemp makes it 0700).
    fs.chmodSync(dataDir, 0o755);
  });
  afterAll(async () => {
    if (app) {
      app.signal('SIGTERM');
      await app.exited;
    }
    // Whatever a failed step left running on this folder.
    await cli(['migrate'], env()).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets the token CLI use the running app’s server, and the new token works against the app', async () => {
    app = await startAppProcess({ env: { ...env(), MODEL_WORKERS: '1' } });
    const created = await cli(['token', 'create', '--name', 'lifecycle-editor', '--role', 'editor'], env());
    expect(created.stderr + created.stdout).toMatch(/using the embedded PostgreSQL already running for npm start \(pid \d+\)/);
    expect(created.code).toBe(0);
    const token = /^token: (hs_\S+)$/m.exec(created.stdout)![1]!;

    const read = ok(await postGraphql(app.base, READ)) as { incidents: { nodes: { actionables: { id: string; status: string; version: number }[] }[] } };
    const item = read.incidents.nodes.flatMap((n) => n.actionables).find((a) => a.status === 'OPEN')!;
    const moved = ok(
      await postGraphql(
        app.base,
        { query: `mutation($id: ID!, $v: Int!) { transitionActionable(input: { id: $id, expectedVersion: $v, to: IN_PROGRESS }) { actionable { status history { nodes { actor } } } } }`, variables: { id: item.id, v: item.version } },
        { headers: { authorization: `Bearer ${token}` } },
      ),
    ) as { transitionActionable: { actionable: { status: string; history: { nodes: { actor: string }[] } } } };
    expect(moved.transitionActionable.actionable.status).toBe('IN_PROGRESS');
    expect(moved.transitionActionable.actionable.history.nodes.map((h) => h.actor)).toEqual(['lifecycle-editor']);
    // The CLI left the app's server running.
    expect((await get(`${app.base}/health`)).status).toBe(200);
  });

  it('after a SIGKILL, the next start finds the orphaned server, says so, and serves', async () => {
    app!.child.kill('SIGKILL');
    await app!.exited;
    app = await startAppProcess({ env: { ...env(), MODEL_WORKERS: '1' } });
    expect(app.output()).toMatch(/found an embedded PostgreSQL left running by an earlier run that did not stop it \(server pid \d+, port \d+/);
    // The data written before the crash is there.
    const tokens = await cli(['token', 'list'], env());
    expect(tokens.stdout).toContain('lifecycle-editor');
    expect((await get(`${app.base}/health`)).status).toBe(200);
  });

  it('refuses a second app on the same data folder with a one-line reason, and leaves the first serving', async () => {
    const second = startAppProcess({ env: { ...env(), MODEL_WORKERS: '1' } });
    await expect(second).rejects.toThrow(/could not start: The embedded PostgreSQL in .* is in use by npm start \(pid \d+, port \d+\); stop that process first/);
    expect((await get(`${app!.base}/health`)).status).toBe(200);
  });

  it('stops the adopted server on SIGTERM, so a CLI then starts and stops its own', async () => {
    app!.child.kill('SIGTERM');
    expect(await app!.exited).toBe(0);
    const listed = await cli(['token', 'list'], env());
    expect(listed.code).toBe(0);
    expect(listed.stdout + listed.stderr).toMatch(/started an embedded PostgreSQL/);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'cluster', 'postmaster.pid'))).toBe(false);
  });
});
