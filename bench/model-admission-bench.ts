/**
 * 200 simultaneous `runModel` what-ifs (all different inputs) against the real app over loopback,
 * inline and with MODEL_EXECUTION=queue (no worker running, so nothing leaves the queue): how many
 * are accepted, and how fast the rest are refused, beside the idle latency of a stored (cached)
 * `runModel` measured in the same run as the baseline.
 * Run: DATABASE_URL=postgresql://… node -r ./scripts/register-ts.js bench/model-admission-bench.ts [burst]
 * A scratch database is created on that server and dropped. Bounded: one burst per mode; accepted
 * inline runs are released at shutdown (MODEL_DRAIN_TIMEOUT_MS=0).
 */
import type { Server } from 'node:http';
import path from 'node:path';
import { migrate, migrationsDir, PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { ModelRunsService, seedModels } from '@hindsight/model-runs';
import { createApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '../apps/api/src/config/app-config';
import { createScratchDatabase } from './scratch-database';

const burst = Number(process.argv[2] ?? 200);
const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const RUN = `mutation R($p: [ParameterValueInput!]) { runModel(input: { incident: "${STACKEGG}", parameters: $p }) { run { id status } } }`;

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const fmt = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return `n=${s.length} p50=${quantile(s, 0.5).toFixed(1)} ms p99=${quantile(s, 0.99).toFixed(1)} ms max=${(s[s.length - 1] ?? NaN).toFixed(1)} ms`;
};

async function post(url: string, variables: Record<string, unknown>, query = RUN): Promise<{ ms: number; code: string }> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: { runModel?: { run?: { status: string } } }; errors?: { extensions?: { code?: string } }[] };
  return { ms: performance.now() - started, code: body.errors?.[0]?.extensions?.code ?? body.data?.runModel?.run?.status ?? `HTTP ${res.status}` };
}

async function mode(url: string, execution: 'inline' | 'queue'): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: url,
    MODEL_EXECUTION: execution,
    MODEL_QUEUE_MAX_PENDING: '32',
    MODEL_RUN_QUOTA: '0',
    MODEL_DRAIN_TIMEOUT_MS: '0',
    HTTP_MAX_IN_FLIGHT: String(burst * 2),
  });
  const app = await createApp(config, url, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const port = ((app.getHttpServer() as Server).address() as { port: number }).port;
  const endpoint = `http://127.0.0.1:${port}/graphql`;
  try {
    await seedModels(app.get(PrismaService), app.get(ModelRunsService), path.join(projectRoot(), 'seeds'));
    // Baseline: the same stored what-if asked again, one at a time, on an idle app.
    const stored = { p: [{ name: 'keepAliveSeconds', value: 7 }] };
    await post(endpoint, stored);
    const idle: number[] = [];
    for (let i = 0; i < 30; i++) idle.push((await post(endpoint, stored)).ms);

    // Second baseline: the HTTP and GraphQL floor under the same burst (a query that does nothing).
    const floor = await Promise.all(Array.from({ length: burst }, () => post(endpoint, {}, '{ __typename }')));

    const results = await Promise.all(Array.from({ length: burst }, (_, i) => post(endpoint, { p: [{ name: 'keepAliveSeconds', value: 10 + (i * 100) / burst }] })));
    const byCode = new Map<string, number[]>();
    for (const r of results) byCode.set(r.code, [...(byCode.get(r.code) ?? []), r.ms]);
    console.log(`\n${execution}: ${burst} simultaneous runModel with new inputs`);
    console.log(`  baseline, a stored run asked again on an idle app: ${fmt(idle)}`);
    console.log(`  baseline, ${burst} simultaneous { __typename }:    ${fmt(floor.map((r) => r.ms))}`);
    for (const [code, ms] of byCode) console.log(`  ${code.padEnd(18)} ${fmt(ms)}`);

    if (execution === 'inline') {
      // The service alone, in process (no HTTP, no GraphQL): the same burst while the pool is full.
      const models = app.get(ModelRunsService);
      const settle = (i: number) => {
        const started = performance.now();
        return models.run({ incidentSlug: STACKEGG, scenarioKey: 'as-happened', parameters: { keepAliveSeconds: 60 + (i * 50) / burst } }).then(
          () => ({ ms: performance.now() - started, code: 'ACCEPTED' }),
          (e: { code?: string }) => ({ ms: performance.now() - started, code: e.code ?? 'ERROR' }),
        );
      };
      const direct = await Promise.all(Array.from({ length: burst }, (_, i) => settle(i)));
      const refused = direct.filter((r) => r.code === 'TOO_MANY_REQUESTS').map((r) => r.ms);
      console.log(`  in process, ModelRunsService.run × ${burst}: ${direct.length - refused.length} accepted; refused ${fmt(refused)}`);
    }
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  for (const execution of ['inline', 'queue'] as const) {
    const scratch = await createScratchDatabase(`hindsight_bench_admission_${execution}`);
    const url = scratch.url;
    try {
      await migrate(url, migrationsDir());
      const prisma = new PrismaService({ url, poolMax: 2, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
      await seedDatabase(prisma, readSeedFiles(path.join(projectRoot(), 'seeds')));
      await prisma.onModuleDestroy();
      await mode(url, execution);
    } finally {
      await scratch.drop();
    }
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.message);
    process.exit(1);
  },
);
