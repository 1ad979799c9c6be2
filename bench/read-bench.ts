/**
 * Read paths at scale, beside PostGraphile v5 and a hand-written SQL floor on the same database,
 * in one run (A B C A B C per cell): incident detail with every nested field, the incident list,
 * the actionables board with filters and totalCount. Latency percentiles and throughput by
 * autocannon over loopback; bounded: DURATION seconds per cell (default 5) after 2 s of warm-up.
 *
 *   npm --prefix bench/peers ci           # PostGraphile and autocannon, outside the app's install
 *   BENCH_DATABASE_URL=postgresql://…/hindsight_synth_100k node -r ./scripts/register-ts.js bench/read-bench.ts
 *
 * DURATION, ROUNDS, CONNECTIONS (e.g. 1,10) and CASES (e.g. detail,list) narrow a run;
 * BASELINE_ROOT adds another commit's app to the same run (see below); APP_LOG_LEVEL (default
 * silent) is the LOG_LEVEL of the app(s), e.g. info to include the request log's cost.
 *
 * BENCH_DATABASE_URL is a database filled by `npm run synth` (it is migrated, never written).
 * Prints a JSON line per measurement and a markdown table of medians and same-run ratios, with
 * each server's CPU time per answered request and the time its main thread spent runnable but
 * waiting for a core (both read from /proc on Linux): on a shared machine the second is where a
 * slow tail at one connection comes from.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort, projectRoot } from '@hindsight/db';
import { appBenchEnv, cpuMsOf, runQueueWaitMsOf, startApp, startProcess } from './processes';
import { benchIncident, DETAIL_FIELDS, LIST_QUERY } from './read-queries';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require(path.join(projectRoot(), 'bench', 'peers', 'node_modules', 'autocannon')) as (
  opts: Record<string, unknown>,
) => Promise<{ latency: { p50: number; p97_5: number; p99: number; p90: number }; requests: { average: number }; non2xx: number; errors: number }>;

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL to a database filled by npm run synth');
const DURATION = Number(process.env.DURATION ?? 5);
const POOL = 10;
const CONNECTIONS = (process.env.CONNECTIONS ?? '1,10').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
/** CASES=detail,list runs only those cases (default: all). */
const ONLY = process.env.CASES ? new Set(process.env.CASES.split(',')) : null;
const root = projectRoot();

const PGL_DETAIL = `slug title organization components summary narrative impact sourceTitle sourceUrl sourceLanguage startedAt startedPrecision detectedAt detectedPrecision
  mitigatedAt mitigatedPrecision resolvedAt resolvedPrecision version
  incidentPatternsByIncidentId { nodes { patternByPatternId { key name } } }
  timelineEventsByIncidentId(orderBy: POSITION_ASC) { nodes { key asWritten at precision kind text } }
  causalFactorsByIncidentId(orderBy: POSITION_ASC) { nodes { key role component text } }
  causalLinksByIncidentId { nodes { kind causalFactorByFromId { key } causalFactorByToId { key } } }
  actionablesByIncidentId(orderBy: POSITION_ASC) { nodes { key title description owner status dueDate priority
    externalReferencesByActionableId(orderBy: POSITION_ASC) { nodes { kind ref url } }
    actionableFactorsByActionableId { nodes { causalFactorByFactorId { key } } } } }`;

type Target = 'hindsight' | 'baseline' | 'postgraphile' | 'floor';
/**
 * BASELINE_ROOT=<dir>: a checkout of another commit (with its own node_modules, or a link to
 * these) whose app is started too and measured as "baseline", interleaved with this one, for
 * before/after figures in one run.
 */
const BASELINE_ROOT = process.env.BASELINE_ROOT ? path.resolve(process.env.BASELINE_ROOT) : null;
interface Case {
  name: string;
  requests: Partial<Record<Target, { path: string; method: string; body?: string }>>;
}

const gql = (query: string) => ({ path: '/graphql', method: 'POST', body: JSON.stringify({ query }) });

function cases(slug: string): Case[] {
  return allCases(slug)
    .filter((c) => !ONLY || ONLY.has(c.name))
    .map((c) => (BASELINE_ROOT && c.requests.hindsight ? { ...c, requests: { hindsight: c.requests.hindsight, baseline: c.requests.hindsight, ...c.requests } } : c));
}

function allCases(slug: string): Case[] {
  return [
    {
      name: 'detail',
      requests: {
        hindsight: gql(`{ incident(slug: "${slug}") { ${DETAIL_FIELDS} } }`),
        postgraphile: gql(`{ allIncidents(condition: { slug: "${slug}" }, first: 1) { nodes { ${PGL_DETAIL} } } }`),
        floor: { path: `/detail?slug=${slug}`, method: 'GET' },
      },
    },
    {
      name: 'list',
      requests: {
        hindsight: gql(LIST_QUERY),
        postgraphile: gql(
          `{ allIncidents(first: 20, orderBy: [STARTED_AT_DESC, ROW_ID_DESC]) { pageInfo { hasNextPage endCursor } nodes { slug title organization startedAt startedPrecision
            incidentPatternsByIncidentId { nodes { patternByPatternId { key } } } actionablesByIncidentId(orderBy: POSITION_ASC) { nodes { key status } } } } }`,
        ),
        floor: { path: '/list', method: 'GET' },
      },
    },
    {
      name: 'board',
      requests: {
        hindsight: gql(`{ actionables(first: 20, filter: { status: [OPEN, IN_PROGRESS], overdue: true }) { pageInfo { endCursor } nodes { key title owner dueDate status incident { slug } } } }`),
        floor: { path: '/board', method: 'GET' },
      },
    },
    {
      name: 'totalCount',
      requests: {
        hindsight: gql(`{ incidents(first: 1) { totalCount } }`),
        postgraphile: gql(`{ allIncidents(first: 1) { totalCount } }`),
        floor: { path: '/count', method: 'GET' },
      },
    },
    { name: 'totalCountEstimate', requests: { hindsight: gql(`{ incidents(first: 1) { totalCountEstimate } }`) } },
  ];
}

async function main() {
  const { n, slug } = await benchIncident(url!);
  console.error(`read bench on ${n} incidents; detail of ${slug}; ${DURATION}s per cell, connections ${CONNECTIONS.join(',')}, ${ROUNDS} rounds`);

  const [appPort, baselinePort, pglPort, floorPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const appEnv = (port: number) => appBenchEnv(url!, port, POOL);
  const app = await startApp(root, appEnv(appPort));
  const children: ChildProcess[] = [app];
  try {
    if (BASELINE_ROOT) children.push(await startApp(BASELINE_ROOT, appEnv(baselinePort)));
    const pgl = await startProcess(process.execPath, ['--import', './with-resolvers.mjs', 'postgraphile-server.mjs', url!, String(pglPort), String(POOL)], { GRAPHILE_ENV: 'production' }, path.join(root, 'bench', 'peers'), /listening/);
    children.push(pgl);
    const floor = await startProcess(process.execPath, ['-r', './scripts/register-ts.js', 'bench/read-floor-server.ts', url!, String(floorPort), String(POOL)], {}, root, /listening/);
    children.push(floor);
    const ports: Record<Target, number> = { hindsight: appPort, baseline: baselinePort, postgraphile: pglPort, floor: floorPort };
    const pids: Partial<Record<Target, number | undefined>> = { hindsight: app.pid, baseline: BASELINE_ROOT ? children[1]!.pid : undefined, postgraphile: pgl.pid, floor: floor.pid };

    const results: Record<string, { p50: number; p97_5: number; p99: number; rps: number; cpuMs: number | null; waitMs: number | null }[]> = {};
    for (const cse of cases(slug)) {
      for (const connections of CONNECTIONS) {
        for (let round = 0; round < ROUNDS; round++) {
          for (const [target, request] of Object.entries(cse.requests) as [Target, { path: string; method: string; body?: string }][]) {
            const opts = {
              url: `http://127.0.0.1:${ports[target]}${request.path}`,
              method: request.method,
              body: request.body,
              headers: { 'content-type': 'application/json' },
              connections,
              pipelining: 1,
            };
            if (round === 0) await autocannon({ ...opts, duration: 2 });
            const cpu0 = cpuMsOf(pids[target]);
            const wait0 = runQueueWaitMsOf(pids[target]);
            const r = await autocannon({ ...opts, duration: DURATION });
            const cpu1 = cpuMsOf(pids[target]);
            const wait1 = runQueueWaitMsOf(pids[target]);
            if (r.non2xx > 0 || r.errors > 0) throw new Error(`${cse.name} ${target}: ${r.non2xx} non-2xx, ${r.errors} errors`);
            const served = r.requests.average * DURATION;
            // The server process's CPU time (user + system) per answered request: what a request costs
            // the server itself, which waiting for a core on a shared machine does not inflate.
            const cpuMs = cpu0 !== null && cpu1 !== null && served > 0 ? (cpu1 - cpu0) / served : null;
            // How long the server's main thread was ready to run but had no core, per request: at one
            // connection every such wait adds straight to the request's latency.
            const waitMs = wait0 !== null && wait1 !== null && served > 0 ? (wait1 - wait0) / served : null;
            const row = { p50: r.latency.p50, p97_5: r.latency.p97_5, p99: r.latency.p99, rps: r.requests.average, cpuMs, waitMs };
            (results[`${cse.name}|${connections}|${target}`] ??= []).push(row);
            console.log(JSON.stringify({ case: cse.name, connections, target, round, ...row }));
          }
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
    console.log(`\n| query | conns | target | p50 ms | p97.5 ms | p99 ms | req/s | req/s vs PostGraphile | p97.5 vs floor | server CPU ms per request | main thread waiting for a core, ms per request |`);
    console.log(`|---|---|---|---|---|---|---|---|---|---|---|`);
    for (const cse of cases(slug)) {
      for (const connections of CONNECTIONS) {
        const get = (t: Target) => results[`${cse.name}|${connections}|${t}`];
        for (const t of Object.keys(cse.requests) as Target[]) {
          const rs = get(t)!;
          const rps = median(rs.map((r) => r.rps));
          const pgl = get('postgraphile');
          const fl = get('floor');
          const vsPgl = pgl && t !== 'postgraphile' ? (rps / median(pgl.map((r) => r.rps))).toFixed(2) : '';
          const vsFloor = fl && t !== 'floor' ? (median(rs.map((r) => r.p97_5)) / Math.max(median(fl.map((r) => r.p97_5)), 1)).toFixed(2) : '';
          const cpus = rs.flatMap((r) => (r.cpuMs === null ? [] : [r.cpuMs]));
          const cpu = cpus.length > 0 ? median(cpus).toFixed(2) : '';
          const waits = rs.flatMap((r) => (r.waitMs === null ? [] : [r.waitMs]));
          const wait = waits.length > 0 ? median(waits).toFixed(2) : '';
          console.log(`| ${cse.name} | ${connections} | ${t} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p97_5))} | ${median(rs.map((r) => r.p99))} | ${rps.toFixed(0)} | ${vsPgl} | ${vsFloor} | ${cpu} | ${wait} |`);
        }
      }
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
