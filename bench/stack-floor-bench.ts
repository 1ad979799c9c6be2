/**
 * How much of a read's latency is the web stack itself: the incident detail (read-queries.ts,
 * DETAIL_FIELDS) at one connection, from the servers below, measured in turn within each round:
 *
 *   floor           read-floor-server.ts: the same rows by hand-written SQL through `pg`, bare node:http
 *   node-json       bare node:http answering the app's recorded answer bytes (no database, no GraphQL)
 *   express-apollo  Express 5 + Apollo Server 5 (@as-integrations/express5), the app's SDL, a resolver
 *                   returning the recorded `data.incident` from memory (no database)
 *   nest-express    a minimal Nest app, GraphQLModule + ApolloDriver on the Express platform, same resolver
 *   nest-fastify    the same on @nestjs/platform-fastify + @as-integrations/fastify (from bench/peers)
 *   nest-express-sql, nest-fastify-sql
 *                   the two Nest apps with a resolver that first runs the floor's statement through
 *                   `pg` (same pool size), then returns the recorded object: the stack plus the
 *                   floor's database work, without the app's own code
 *   app             the app itself (scripts/start.js, as read-bench.ts starts it)
 *   app-b           a second app process, started with the Node flags in APP_B_FLAGS
 *                   (e.g. "--max-semi-space-size=64") and the environment in APP_B_ENV (a JSON
 *                   object over the bench's own), and run from the checkout in APP_B_DIR when
 *                   set (another commit, with its own node_modules, e.g. made by
 *                   `git worktree add <dir> main` and `npm ci` there): a runtime setting or a
 *                   code change measured against the app in one run. Only when named in TARGETS.
 *
 * The client is a closed loop on one kept-alive socket (one request, its whole answer, the next),
 * in a process of its own, timing each request with process.hrtime.bigint(); it reports p50, p90,
 * p95 and p99 in ms and requests a second, and reads the server's CPU time and its main thread's
 * wait for a core from /proc (Linux) around the measured seconds.
 *
 *   npm --prefix bench/peers ci      # Nest's Fastify platform and its Apollo integration, outside the app's install
 *   BENCH_DATABASE_URL=postgresql://…/<a database filled by npm run synth> node -r ./scripts/register-ts.js bench/stack-floor-bench.ts
 *
 * QUERY=list (with TARGETS=floor,app, and app-b if wanted) measures the first page of the
 * incident list (read-queries.ts, LIST_QUERY) instead of the detail, checking the floor's page
 * holds the app's incidents in order. Targets are measured in the order given in even rounds and
 * in the reverse order in odd ones, so no target always runs right after the same other one.
 * GC=1 starts the app (and app-b) with V8's `--trace-gc-nvp` and adds, per target, what its young
 * collections did during the measured seconds: requests per scavenge, and the median scavenge's
 * pause and bytes promoted to the old generation (the tracing costs a little CPU on both sides).
 * DURATION (seconds measured per cell, default 5), WARMUP (seconds before each cell, default 1;
 * three times that before the first round), ROUNDS (default 4) and TARGETS (e.g. floor,app)
 * narrow a run. The database is only read. Before measuring, the app's answer is recorded once and
 * every GraphQL target's answer is checked to be byte-equal to it; the floor's (its own JSON shape,
 * every column of the rows) is checked to hold the same incident and the same number of each
 * nested row. Prints a JSON line per cell, then a markdown table of medians over the rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hindsight/db';
import { appBenchEnv, cpuMsOf, runQueueWaitMsOf, startApp, startProcess } from './processes';
import { benchIncident, DETAIL_FIELDS, DETAIL_INCLUDE, LIST_QUERY } from './read-queries';
import { percentile } from './timing';

const root = path.resolve(__dirname, '..');
const peers = path.join(root, 'bench', 'peers');

const TARGETS = ['floor', 'node-json', 'express-apollo', 'nest-express', 'nest-fastify', 'nest-express-sql', 'nest-fastify-sql', 'app', 'app-b'] as const;
type Target = (typeof TARGETS)[number];
/** What a run without TARGETS measures: every target but app-b, which needs settings to differ by. */
const DEFAULT_TARGETS = TARGETS.filter((t) => t !== 'app-b');

/** app-b's Node flags, environment and checkout (APP_B_FLAGS, APP_B_ENV, APP_B_DIR), checked before anything starts. */
function appBSettings(): { flags: string[]; env: Record<string, string>; dir: string } {
  const flags = (process.env.APP_B_FLAGS ?? '').split(/\s+/).filter(Boolean);
  let env: unknown = {};
  try {
    env = JSON.parse(process.env.APP_B_ENV || '{}');
  } catch (error) {
    throw new Error(`APP_B_ENV is not JSON: ${(error as Error).message}`);
  }
  if (typeof env !== 'object' || env === null || Array.isArray(env) || Object.values(env).some((v) => typeof v !== 'string')) {
    throw new Error('APP_B_ENV must be a JSON object of strings, e.g. {"DB_POOL_MAX":"4"}');
  }
  for (const owned of ['PORT', 'DATABASE_URL']) if (owned in env) throw new Error(`APP_B_ENV may not set ${owned}: the bench sets it`);
  const dir = process.env.APP_B_DIR ? path.resolve(process.env.APP_B_DIR) : root;
  if (!fs.existsSync(path.join(dir, 'scripts', 'start.js')) || !fs.existsSync(path.join(dir, 'node_modules'))) {
    throw new Error(`APP_B_DIR must be a checkout of this project with its node_modules installed: ${dir}`);
  }
  if (flags.length === 0 && Object.keys(env).length === 0 && dir === root) throw new Error('app-b needs APP_B_FLAGS, APP_B_ENV or APP_B_DIR: without any it is the app again');
  return { flags, env: env as Record<string, string>, dir };
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}
interface ClientSpec {
  port: number;
  request: RequestSpec;
  warmupS: number;
  seconds: number;
  serverPid: number;
}
interface Cell {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  rps: number;
  n: number;
  reconnects: number;
  cpuMs: number | null;
  waitMs: number | null;
  /** Wall-clock ms (Date.now()) when the measured seconds began and ended. */
  fromMs: number;
  toMs: number;
}

/** A scavenge the server reported (GC=1), when it was read, with its pause and the bytes it promoted. */
interface Scavenge {
  at: number;
  pauseMs: number;
  promotedBytes: number;
}

/** Collects the `gc=s` lines `--trace-gc-nvp` writes to a server's stdout. */
function scavengesOf(child: ChildProcess): Scavenge[] {
  const seen: Scavenge[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!/\bgc=s\b/.test(line)) continue;
      const pause = /\bpause=([\d.]+)/.exec(line);
      const promoted = /\bpromoted=(\d+)/.exec(line);
      if (pause && promoted) seen.push({ at: Date.now(), pauseMs: Number(pause[1]), promotedBytes: Number(promoted[1]) });
    }
  });
  return seen;
}

// ---------------------------------------------------------------------------------------------
// The client: one socket, one request at a time.
// ---------------------------------------------------------------------------------------------

function rawRequest(port: number, r: RequestSpec): Buffer {
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
  const head =
    `${r.method} ${r.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\nAccept: application/json\r\n` +
    (r.method === 'POST' ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '') +
    '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * Where a whole HTTP/1.1 answer ends in `buf` (its length), or -1 while more bytes are due.
 * Handles Content-Length and chunked bodies; throws on anything but a 200.
 */
function answerEnd(buf: Buffer): number {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return -1;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  if (status !== 200) throw new Error(`status ${status}: ${buf.toString('utf8', 0, Math.min(buf.length, 500))}`);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return buf.length >= end ? end : -1;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`an answer with neither length nor chunks: ${head}`);
  let at = headEnd + 4;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return -1;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    const next = lineEnd + 2 + size + 2;
    if (buf.length < next) return -1;
    if (size === 0) return next; // no trailers are sent by these servers
    at = next;
  }
}

function runClient(spec: ClientSpec): Promise<Cell> {
  const request = rawRequest(spec.port, spec.request);
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const measureFrom = began + spec.warmupS * 1000;
    const measureTo = measureFrom + spec.seconds * 1000;
    let measuring = false;
    let cpu0: number | null = null;
    let wait0: number | null = null;
    let t0 = 0n;
    let startedNs = 0n;
    let fromMs = 0;
    let buf: Buffer = Buffer.alloc(0);
    let reconnects = 0;
    let done = false;
    let socket: net.Socket;

    const finish = () => {
      done = true;
      const elapsedS = Number(process.hrtime.bigint() - startedNs) / 1e9;
      const cpu1 = cpuMsOf(spec.serverPid);
      const wait1 = runQueueWaitMsOf(spec.serverPid);
      socket.destroy();
      const sorted = latencies.slice().sort((a, b) => a - b);
      const n = sorted.length;
      resolve({
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        max: sorted[n - 1]!,
        rps: n / elapsedS,
        n,
        reconnects,
        cpuMs: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / n : null,
        waitMs: wait0 !== null && wait1 !== null ? (wait1 - wait0) / n : null,
        fromMs,
        toMs: Date.now(),
      });
    };
    const send = () => {
      const now = Date.now();
      if (!measuring && now >= measureFrom) {
        measuring = true;
        cpu0 = cpuMsOf(spec.serverPid);
        wait0 = runQueueWaitMsOf(spec.serverPid);
        startedNs = process.hrtime.bigint();
        fromMs = now;
      }
      if (measuring && now >= measureTo) return finish();
      t0 = process.hrtime.bigint();
      socket.write(request);
    };
    const connect = () => {
      buf = Buffer.alloc(0);
      socket = net.connect({ host: '127.0.0.1', port: spec.port, noDelay: true });
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        let end: number;
        try {
          end = answerEnd(buf);
        } catch (e) {
          done = true;
          socket.destroy();
          return reject(e as Error);
        }
        if (end < 0) return;
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (end !== buf.length) {
          done = true;
          socket.destroy();
          return reject(new Error(`${buf.length - end} bytes after an answer`));
        }
        buf = Buffer.alloc(0);
        if (measuring) latencies.push(ms);
        send();
      });
      socket.on('error', (e) => {
        if (!done) {
          done = true;
          reject(e);
        }
      });
      // A server that closes a kept-alive socket: open another and send the request again
      // (that request's time starts over); counted, so a run where it happens can be told.
      socket.on('close', () => {
        if (done) return;
        reconnects++;
        connect();
      });
    };
    connect();
  });
}

// ---------------------------------------------------------------------------------------------
// The servers without a database: each answers the recorded detail.
// ---------------------------------------------------------------------------------------------

interface Recorded {
  /** The app's whole answer, as bytes. */
  bytes: Buffer;
  /** Its `data.incident`, what each GraphQL server's resolver returns. */
  incident: unknown;
}

function readRecorded(file: string): Recorded {
  const bytes = fs.readFileSync(file);
  return { bytes, incident: (JSON.parse(bytes.toString('utf8')) as { data: { incident: unknown } }).data.incident };
}

const typeDefs = () => fs.readFileSync(path.join(root, 'schema.gql'), 'utf8');

async function serveNodeJson(port: number, recorded: Recorded): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': recorded.bytes.length });
      res.end(recorded.bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}

async function serveExpressApollo(port: number, recorded: Recorded): Promise<void> {
  const load = createRequire(path.join(root, 'package.json'));
  const express = load('express') as typeof import('express');
  const { ApolloServer } = load('@apollo/server') as typeof import('@apollo/server', { with: { 'resolution-mode': 'import' } });
  const { ApolloServerPluginCacheControlDisabled } = load('@apollo/server/plugin/disabled') as typeof import('@apollo/server/plugin/disabled', {
    with: { 'resolution-mode': 'import' },
  });
  const { expressMiddleware } = load('@as-integrations/express5') as typeof import('@as-integrations/express5', { with: { 'resolution-mode': 'import' } });
  const apollo = new ApolloServer({
    typeDefs: typeDefs(),
    resolvers: { Query: { incident: () => recorded.incident } },
    plugins: [ApolloServerPluginCacheControlDisabled()],
  });
  await apollo.start();
  const app = express();
  app.use('/graphql', express.json(), expressMiddleware(apollo, { context: async () => ({}) }));
  await new Promise<void>((resolve) => app.listen(port, '127.0.0.1', () => resolve()));
}

/**
 * The floor's statement for the recorded incident through a `pg` pool the size of the floor's, as
 * a function a resolver awaits before it answers: the database work of the floor, minus its HTTP.
 */
function floorStatement(url: string, slug: string): () => Promise<void> {
  const { Pool } = createRequire(path.join(root, 'package.json'))('pg') as typeof import('pg');
  // The floor's own statement (read-floor-server.ts), from the module itself rather than the
  // package's index, which would load the whole incidents library into this server.
  const { incidentTreeStatement } = require('../libs/incidents/src/incident-tree-query') as typeof import('../libs/incidents/src/incident-tree-query');
  const pool = new Pool({ connectionString: url, max: 10, statement_timeout: 10_000 });
  const detail = incidentTreeStatement('slug', DETAIL_INCLUDE);
  return async () => {
    const r = await pool.query({ ...detail, values: [slug] });
    if (r.rows.length !== 1) throw new Error(`the floor's statement found ${r.rows.length} rows`);
  };
}

/**
 * A minimal Nest app with the GraphQL module on Apollo: on the Express platform from the app's
 * own install, on the Fastify platform from bench/peers (Nest, its GraphQL packages and Apollo
 * there are pinned to the versions the app uses). With `databaseUrl`, the resolver runs the
 * floor's statement before it answers.
 */
async function serveNest(port: number, recorded: Recorded, platform: 'express' | 'fastify', databaseUrl?: string): Promise<void> {
  const load = createRequire(path.join(platform === 'express' ? root : peers, 'package.json'));
  const { NestFactory } = load('@nestjs/core') as typeof import('@nestjs/core', { with: { 'resolution-mode': 'import' } });
  const { Module } = load('@nestjs/common') as typeof import('@nestjs/common', { with: { 'resolution-mode': 'import' } });
  const { GraphQLModule } = load('@nestjs/graphql') as typeof import('@nestjs/graphql', { with: { 'resolution-mode': 'import' } });
  const { ApolloDriver } = load('@nestjs/apollo') as typeof import('@nestjs/apollo', { with: { 'resolution-mode': 'import' } });
  const { ApolloServerPluginCacheControlDisabled } = load('@apollo/server/plugin/disabled') as typeof import('@apollo/server/plugin/disabled', {
    with: { 'resolution-mode': 'import' },
  });
  const sql = databaseUrl ? floorStatement(databaseUrl, (recorded.incident as { slug: string }).slug) : null;
  const incident = sql
    ? async () => {
        await sql();
        return recorded.incident;
      }
    : () => recorded.incident;
  class StackModule {}
  Module({
    imports: [
      GraphQLModule.forRoot({
        driver: ApolloDriver,
        typeDefs: typeDefs(),
        resolvers: { Query: { incident } },
        graphiql: false,
        plugins: [ApolloServerPluginCacheControlDisabled()],
      }),
    ],
  })(StackModule);
  if (platform === 'express') {
    const app = await NestFactory.create(StackModule, { logger: false });
    await app.listen(port, '127.0.0.1');
  } else {
    const { FastifyAdapter } = load('@nestjs/platform-fastify') as { FastifyAdapter: new () => object };
    const app = await NestFactory.create(StackModule, new FastifyAdapter() as never, { logger: false });
    await app.listen(port, '127.0.0.1');
  }
}

async function serve(target: Target, port: number, answerFile: string, databaseUrl: string | undefined): Promise<void> {
  const recorded = readRecorded(answerFile);
  if (target === 'node-json') await serveNodeJson(port, recorded);
  else if (target === 'express-apollo') await serveExpressApollo(port, recorded);
  else if (target === 'nest-express') await serveNest(port, recorded, 'express');
  else if (target === 'nest-fastify') await serveNest(port, recorded, 'fastify');
  else if (target === 'nest-express-sql') await serveNest(port, recorded, 'express', databaseUrl);
  else if (target === 'nest-fastify-sql') await serveNest(port, recorded, 'fastify', databaseUrl);
  else throw new Error(`no in-memory server for ${target}`);
  console.log(`${target} listening on ${port}`);
  process.on('SIGTERM', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The run: start every server, check the answers, measure in turn.
// ---------------------------------------------------------------------------------------------

/** Runs the client in a process of its own and returns what it measured. */
function measure(spec: ClientSpec): Promise<Cell> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'bench/stack-floor-bench.ts', 'client', JSON.stringify(spec)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Cell) : reject(new Error(`the client exited ${code}`))));
  });
}

async function fetchAnswer(port: number, r: RequestSpec): Promise<Buffer> {
  const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
    method: r.method,
    headers: r.body === undefined ? {} : { 'content-type': 'application/json' },
    body: r.body,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`status ${res.status}: ${bytes.toString('utf8', 0, 500)}`);
  return bytes;
}

interface Incident {
  slug: string;
  timeline: unknown[];
  causalFactors: unknown[];
  causalLinks: unknown[];
  actionables: unknown[];
  patterns: unknown[];
}

/** The floor answers the columns of the app's statement (DETAIL_INCLUDE) in its own shape: the same incident, as many of each nested row. */
function checkFloor(floorBytes: Buffer, incident: Incident): void {
  const rows = (JSON.parse(floorBytes.toString('utf8')) as { data: Record<string, unknown>[] }).data;
  const row = rows[0];
  const counts = (r: Record<string, unknown>) =>
    ['j_timeline', 'j_factors', 'j_links', 'j_actionables', 'j_patterns'].map((k) => (r[k] as unknown[] | null)?.length ?? -1).join(',');
  const want = [incident.timeline, incident.causalFactors, incident.causalLinks, incident.actionables, incident.patterns].map((c) => c.length).join(',');
  if (rows.length !== 1 || !row || row.slug !== incident.slug || counts(row) !== want) {
    throw new Error(`the floor's answer is not the same incident: ${floorBytes.toString('utf8', 0, 300)}`);
  }
}

/** The floor's list answers the app's page: the same incidents in the same order (plus the one after, to tell a next page). */
function checkFloorPage(floorBytes: Buffer, nodes: { slug: string }[]): void {
  const rows = (JSON.parse(floorBytes.toString('utf8')) as { data: { slug: string }[] }).data;
  if (rows.slice(0, nodes.length).map((r) => r.slug).join(',') !== nodes.map((n) => n.slug).join(',')) {
    throw new Error(`the floor's page is not the app's: ${floorBytes.toString('utf8', 0, 300)}`);
  }
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('set BENCH_DATABASE_URL to a database filled by npm run synth');
  const DURATION = Number(process.env.DURATION ?? 5);
  const WARMUP = Number(process.env.WARMUP ?? 1);
  const ROUNDS = Number(process.env.ROUNDS ?? 4);
  const GC = process.env.GC === '1';
  const gcFlags = GC ? ['--trace-gc-nvp'] : [];
  const targets = (process.env.TARGETS ? process.env.TARGETS.split(',') : [...DEFAULT_TARGETS]) as Target[];
  for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t}`);
  const appB = targets.includes('app-b') ? appBSettings() : null;
  if (!targets.includes('app')) throw new Error('the app is needed: its answer is what the other targets serve');

  // QUERY=list measures the first page of the incident list instead, from the floor and the app
  // (and app-b) only: the other targets answer the detail from memory.
  const list = process.env.QUERY === 'list';
  if (process.env.QUERY && !['list', 'detail'].includes(process.env.QUERY)) throw new Error(`QUERY is detail or list, not ${process.env.QUERY}`);
  if (list && targets.some((t) => t !== 'floor' && t !== 'app' && t !== 'app-b')) throw new Error('QUERY=list measures only the floor and the app (and app-b): set TARGETS=floor,app');
  const { n, slug } = await benchIncident(url);
  const graphql: RequestSpec = { method: 'POST', path: '/graphql', body: JSON.stringify({ query: list ? LIST_QUERY : `{ incident(slug: "${slug}") { ${DETAIL_FIELDS} } }` }) };
  const requests: Record<Target, RequestSpec> = {
    floor: { method: 'GET', path: list ? '/list' : `/detail?slug=${slug}` },
    'node-json': graphql,
    'express-apollo': graphql,
    'nest-express': graphql,
    'nest-fastify': graphql,
    'nest-express-sql': graphql,
    'nest-fastify-sql': graphql,
    app: graphql,
    'app-b': graphql,
  };
  console.error(`stack floor bench on ${n} incidents; ${list ? 'first page of the list' : `detail of ${slug}`}; targets ${targets.join(', ')}; ${ROUNDS} rounds of ${DURATION} s per cell after ${WARMUP} s`);

  const children: ChildProcess[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-floor-'));
  const ports = {} as Record<Target, number>;
  const pids = {} as Record<Target, number>;
  try {
    const tsNode = ['-r', './scripts/register-ts.js'];
    ports.app = await freePort();
    const app = await startApp(root, appBenchEnv(url, ports.app, 10), gcFlags);
    const scavenges: Partial<Record<Target, Scavenge[]>> = GC ? { app: scavengesOf(app) } : {};
    children.push(app);
    pids.app = app.pid!;
    const recordedBytes = await fetchAnswer(ports.app, graphql);
    const answer = JSON.parse(recordedBytes.toString('utf8')) as { data?: { incident?: Incident; incidents?: { nodes: { slug: string }[] } }; errors?: unknown };
    if (answer.errors || !(list ? answer.data?.incidents?.nodes.length : answer.data?.incident)) {
      throw new Error(`the app's answer has no ${list ? 'page' : 'incident'}: ${recordedBytes.toString('utf8', 0, 500)}`);
    }
    const answerFile = path.join(dir, 'answer.json');
    fs.writeFileSync(answerFile, recordedBytes);

    for (const t of targets) {
      if (t === 'app') continue;
      ports[t] = await freePort();
      const child =
        t === 'app-b'
          ? await startApp(appB!.dir, { ...appBenchEnv(url, ports[t], 10), ...appB!.env }, [...gcFlags, ...appB!.flags])
          : t === 'floor'
            ? await startProcess(process.execPath, [...tsNode, 'bench/read-floor-server.ts', url, String(ports[t]), '10'], {}, root, /listening/)
            : await startProcess(process.execPath, [...tsNode, 'bench/stack-floor-bench.ts', 'serve', t, String(ports[t]), answerFile, url], { NODE_ENV: 'production' }, root, /listening/);
      if (GC && t === 'app-b') scavenges[t] = scavengesOf(child);
      children.push(child);
      pids[t] = child.pid!;
    }

    // Same work: every GraphQL target answers the app's bytes; the floor the same rows.
    const sizes: Partial<Record<Target, number>> = {};
    for (const t of targets) {
      const bytes = await fetchAnswer(ports[t], requests[t]);
      sizes[t] = bytes.length;
      if (t === 'floor') list ? checkFloorPage(bytes, answer.data!.incidents!.nodes) : checkFloor(bytes, answer.data!.incident!);
      else if (!bytes.equals(recordedBytes)) throw new Error(`${t} answered other bytes than the app: ${bytes.toString('utf8', 0, 300)}`);
    }
    console.error(`answers checked; bytes: ${targets.map((t) => `${t} ${sizes[t]}`).join(', ')}`);

    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const m = Math.floor(s.length / 2);
      return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
    };
    const results: Partial<Record<Target, Cell[]>> = {};
    /** Per cell of a target whose scavenges are traced: requests per scavenge, median pause and promoted KB. */
    const gcCells: Partial<Record<Target, { perScavenge: number; pauseMs: number; promotedKB: number }[]>> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
        const cell = await measure({ port: ports[t], request: requests[t], warmupS: round === 0 ? 3 * WARMUP : WARMUP, seconds: DURATION, serverPid: pids[t] });
        (results[t] ??= []).push(cell);
        const traced = scavenges[t]?.filter((g) => g.at >= cell.fromMs && g.at <= cell.toMs);
        const gc = traced?.length
          ? { perScavenge: cell.n / traced.length, pauseMs: median(traced.map((g) => g.pauseMs)), promotedKB: median(traced.map((g) => g.promotedBytes)) / 1024 }
          : undefined;
        if (gc) (gcCells[t] ??= []).push(gc);
        console.log(JSON.stringify({ round, target: t, ...cell, ...(gc ? { gc } : {}) }));
      }
    }

    const med = (t: Target, k: keyof Cell) => median(results[t]!.flatMap((r) => (r[k] === null ? [] : [r[k]])));
    const floorP95 = targets.includes('floor') ? med('floor', 'p95') : null;
    const gcHead = GC ? ' requests per scavenge | scavenge pause ms | promoted KB per scavenge |' : '';
    console.log(`\n| target | p50 ms | p90 ms | p95 ms | p99 ms | req/s | p95 vs floor | p95 / floor's, per round (median) | server CPU ms / request | waiting for a core, ms / request |${gcHead}`);
    console.log(`|---|---|---|---|---|---|---|---|---|---|${GC ? '---|---|---|' : ''}`);
    const gcMed = (t: Target, k: 'perScavenge' | 'pauseMs' | 'promotedKB', digits: number) => (gcCells[t]?.length ? median(gcCells[t]!.map((c) => c[k])).toFixed(digits) : '');
    for (const t of targets) {
      const perRound = floorP95 === null ? null : median(results[t]!.map((r, i) => r.p95 / results.floor![i]!.p95));
      console.log(
        `| ${t} | ${med(t, 'p50').toFixed(2)} | ${med(t, 'p90').toFixed(2)} | ${med(t, 'p95').toFixed(2)} | ${med(t, 'p99').toFixed(2)} | ${med(t, 'rps').toFixed(0)} | ` +
          `${floorP95 === null || t === 'floor' ? '' : (med(t, 'p95') / floorP95).toFixed(2)} | ${perRound === null || t === 'floor' ? '' : perRound.toFixed(2)} | ` +
          `${med(t, 'cpuMs').toFixed(2)} | ${med(t, 'waitMs').toFixed(2)} |` +
          (GC ? ` ${gcMed(t, 'perScavenge', 1)} | ${gcMed(t, 'pauseMs', 2)} | ${gcMed(t, 'promotedKB', 0)} |` : ''),
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
const run =
  mode === 'client'
    ? runClient(JSON.parse(rest[0]!) as ClientSpec).then((cell) => {
        process.stdout.write(JSON.stringify(cell));
        process.exit(0);
      })
    : mode === 'serve'
      ? serve(rest[0] as Target, Number(rest[1]), rest[2]!, rest[3])
      : main();
run.catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
