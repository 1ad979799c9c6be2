/**
 * Oversized GraphQL operations against the running app: how fast each is refused, and what a
 * normal query's latency is while they keep coming, beside the same query's idle latency in the
 * same run. A last, single round raises the limits out of the way (GRAPHQL_MAX_* set huge) to show
 * what one smaller flood costs when nothing refuses it.
 *
 * Run: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register-ts.js bench/query-limits-bench.ts [rounds]
 * A scratch database is created and dropped; the app runs as a child process (`scripts/start.js`)
 * on a loopback port. Bounded: `rounds` (default 40) flood requests per flooder and kind, 4
 * flooders, 100 normal queries per phase, every request with a 120 s client timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '@hindsight/db';
import { createScratchDatabase } from './scratch-database';

const rounds = Number(process.argv[2] ?? 40);
const FLOODERS = 4;
const PROBES = 100;
const root = path.resolve(__dirname, '..');

const aliases = (count: number, selection: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;
const SLUG = 'stackegg-haproxy-session-cap-2015';
const FLOODS: Record<string, string> = {
  '4,000 × __schema { types { fields { args } } }': aliases(4000, '__schema { types { fields { args { name } } } }'),
  '1,000 × actionableStats': aliases(1000, 'actionableStats { total open overdue byOrganization { organization total } byPattern { pattern total } }'),
  '1,000 × incident(slug) (heavy)': aliases(1000, `incident(slug: "${SLUG}") { title timeline { key text } causalFactors { key leadsTo { to { key } } } actionables { key history { field } } }`),
  '200 × incidents(first: 100)': aliases(200, 'incidents(first: 100) { totalCount nodes { slug title narrative timeline { key text } actionables { key title } } }'),
  '3 × incidents(first: 100) nested (cost only)': aliases(3, 'incidents(first: 100) { nodes { causalFactors { key leadsTo { kind to { key text leadsTo { kind } } } } } }'),
};
const NORMAL = `{ incident(slug: "${SLUG}") { title timeline { key asWritten } actionables { key status } } }`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Flooders send from their own loopback address (one per flood kind), the normal client from 127.0.0.1. */
function gql(port: number, query: string, localAddress = '127.0.0.1'): Promise<{ ms: number; status: number; code: string | null; bytes: number }> {
  const body = JSON.stringify({ query });
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, localAddress, path: '/graphql', method: 'POST', agent: localAddress === '127.0.0.1' ? agent : undefined, timeout: 120_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let code: string | null = null;
          try {
            const answer = JSON.parse(text) as { code?: string; errors?: { extensions?: { code?: string } }[] };
          code = answer.errors?.[0]?.extensions?.code ?? answer.code ?? null;
          } catch {
            code = 'unparsable';
          }
          resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, status: res.statusCode ?? 0, code, bytes: text.length });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
/** CPU time (user + system) the app's process has used so far, in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

async function probes(port: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < PROBES; i++) {
    const r = await gql(port, NORMAL);
    if (r.code) throw new Error(`normal query failed: ${r.code}`);
    out.push(r.ms);
  }
  return out;
}

async function startApp(url: string, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/start.js'], { cwd: root, env: { ...process.env, ...env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await gql(port, '{ incidents { totalCount } }')).code === null) return { port, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error('the app did not start within 60 s');
}

async function stopApp(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function main() {
  const scratch = await createScratchDatabase('hindsight_limits_bench');
  const url = scratch.url;
  let app: ChildProcess | undefined;
  try {
    const started = await startApp(url);
    app = started.child;
    const { port } = started;
    const pid = app.pid!;
    // The app runs each model's default scenarios once after start: let that finish (at most 60 s).
    for (let i = 0, last = cpuMs(pid); i < 60; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = cpuMs(pid);
      if (now - last < 50) break;
      last = now;
    }
    await probes(port); // warm-up
    let cpu = cpuMs(pid);
    const idle = await probes(port);
    const normalCpu = (cpuMs(pid) - cpu) / PROBES;
    console.log(`normal query, idle: p50 ${fmt(pct(idle, 50))} ms, p99 ${fmt(pct(idle, 99))} ms (${PROBES} sequential), app CPU ${fmt(normalCpu)} ms per query`);
    console.log(`\n| flood (${FLOODERS} flooders × ${rounds} requests) | answer | app CPU per refusal | refusal p50 | refusal p99 | normal p50 during | normal p99 during | idle p50 after |`);
    console.log('|---|---|---:|---:|---:|---:|---:|---:|');
    let kind = 0;
    for (const [label, query] of Object.entries(FLOODS)) {
      // Each kind floods from a fresh address, so it starts unblocked by the penalty box.
      const from = `127.0.0.${2 + kind++}`;
      const refusals: number[] = [];
      const codes = new Set<string>();
      cpu = cpuMs(pid);
      let flooding = true;
      const flooders = Array.from({ length: FLOODERS }, async () => {
        for (let i = 0; i < rounds; i++) {
          const started = process.hrtime.bigint();
          const r = await gql(port, query, from).catch((error: Error) => ({ ms: Number(process.hrtime.bigint() - started) / 1e6, status: 0, code: error.message.slice(0, 20) }));
          refusals.push(r.ms);
          codes.add(`${r.status} ${r.code ?? 'data'}`);
        }
      });
      // Probes start once the flood is under way and stop when it ends.
      await new Promise((r) => setTimeout(r, 50));
      const during: number[] = [];
      const probing = (async () => {
        while (flooding && during.length < PROBES * 10) {
          const r = await gql(port, NORMAL);
          if (r.code) throw new Error(`normal query failed during the flood: ${r.code}`);
          during.push(r.ms);
        }
      })();
      await Promise.all(flooders);
      flooding = false;
      await probing;
      const floodCpu = (cpuMs(pid) - cpu - during.length * normalCpu) / refusals.length;
      const idleNow = await probes(port);
      console.log(
        `| ${label} | ${[...codes].join(', ')} | ${fmt(floodCpu)} ms | ${fmt(pct(refusals, 50))} ms | ${fmt(pct(refusals, 99))} ms | ${fmt(pct(during, 50))} ms (n=${during.length}) | ${fmt(pct(during, 99))} ms | ${fmt(pct(idleNow, 50))} ms |`,
      );
    }
    await stopApp(app);
    app = undefined;

    // The same kind of request with the limits out of the way: one 500-alias introspection.
    const open = await startApp(url, { GRAPHQL_MAX_TOKENS: '1000000', GRAPHQL_MAX_ALIASES: '10000', GRAPHQL_MAX_COST: '100000000', SEED_ON_START: 'false' });
    app = open.child;
    await probes(open.port);
    const idleOpen = await probes(open.port);
    let done = false;
    const during: number[] = [];
    const big = gql(open.port, aliases(500, '__schema { types { fields { args { name } } } }')).finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    while (!done) during.push((await gql(open.port, NORMAL)).ms);
    const r = await big;
    console.log(
      `\nlimits raised: one 500-alias __schema request took ${fmt(r.ms)} ms (${r.status}, ${(r.bytes / 1e6).toFixed(1)} MB); ` +
        `normal query meanwhile p50 ${fmt(pct(during, 50))} ms, max ${fmt(Math.max(...during))} ms (n=${during.length}); idle p50 ${fmt(pct(idleOpen, 50))} ms`,
    );
  } finally {
    if (app) await stopApp(app);
    agent.destroy();
    await scratch.drop();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
