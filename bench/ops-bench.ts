/**
 * What the operations layer costs per request, beside its baseline in the same run:
 *  - request logging: the same app with LOG_LEVEL=silent (nothing written) and LOG_LEVEL=info
 *    (one JSON line per request, to /dev/null);
 *  - compression: the same GraphQL answer and graphiql.js asked for with identity, gzip and br.
 * Run: DATABASE_URL=postgresql://… node -r ./scripts/register-ts.js bench/ops-bench.ts [requests]
 * A scratch database is created on DATABASE_URL's server and dropped. Loopback only; bounded:
 * `requests` (default 300) sequential requests per case after 30 of warm-up.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { migrate, migrationsDir, PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import path from 'node:path';
import { createApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '../apps/api/src/config/app-config';
import { createPinoLogger } from '../apps/api/src/logging/app-logger';

const requests = Number(process.argv[2] ?? 300);
const QUERY = JSON.stringify({ query: '{ incidents(first: 4) { nodes { slug title summary actionables { key title status } } } }' });

function call(port: number, method: string, pathName: string, encoding: string, body?: string): Promise<{ ms: number; bytes: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathName, headers: { 'accept-encoding': encoding, 'content-type': 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, bytes }) : reject(new Error(`${pathName}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(port: number, method: string, pathName: string, encoding: string, body?: string) {
  for (let i = 0; i < 30; i++) await call(port, method, pathName, encoding, body);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i++) {
    const r = await call(port, method, pathName, encoding, body);
    times.push(r.ms);
    bytes = r.bytes;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  return { p50: at(0.5), p99: at(0.99), bytes };
}

async function main() {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('set DATABASE_URL to a server where a scratch database may be created');
  const name = `hindsight_opsbench_${process.pid}`;
  const c = new Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  try {
    await migrate(url.toString(), migrationsDir());
    const prisma = new PrismaService({ url: url.toString(), poolMax: 2, statementTimeoutMs: 20_000, connectTimeoutMs: 10_000 });
    await seedDatabase(prisma, readSeedFiles(path.join(projectRoot(), 'seeds')));
    await prisma.onModuleDestroy();

    const rows: string[] = [];
    for (const level of ['silent', 'info'] as const) {
      const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: level, SEED_ON_START: 'false' });
      const log = createPinoLogger({ level, format: 'json', destination: fs.createWriteStream('/dev/null') });
      const app = await createApp(config, url.toString(), { log });
      await app.listen(0, '127.0.0.1');
      const port = (app.getHttpServer().address() as AddressInfo).port;
      const page = await measure(port, 'GET', '/patterns', 'identity');
      const gql = await measure(port, 'POST', '/graphql', 'identity', QUERY);
      rows.push(`| logging ${level} | GET /patterns | ${page.p50} | ${page.p99} | ${page.bytes} |`);
      rows.push(`| logging ${level} | POST /graphql (4 incidents) | ${gql.p50} | ${gql.p99} | ${gql.bytes} |`);
      if (level === 'info') {
        for (const encoding of ['gzip', 'br']) {
          const g = await measure(port, 'POST', '/graphql', encoding, QUERY);
          rows.push(`| logging info, ${encoding} | POST /graphql (4 incidents) | ${g.p50} | ${g.p99} | ${g.bytes} |`);
        }
        for (const encoding of ['identity', 'gzip', 'br']) {
          const a = await measure(port, 'GET', '/explorer/assets/graphiql.js', encoding);
          rows.push(`| logging info, ${encoding} | GET /explorer/assets/graphiql.js | ${a.p50} | ${a.p99} | ${a.bytes} |`);
        }
      }
      await app.close();
    }
    console.log(`${requests} sequential requests per row after 30 of warm-up, loopback\n`);
    console.log('| case | request | p50 ms | p99 ms | bytes on the wire |\n|---|---|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
