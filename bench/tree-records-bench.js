'use strict';
/*
 * CPU time to turn a tree statement's answer into the loaders' records (JSON.parse of each row's
 * tree, then IncidentLoaders.incidentsFromTreeRows), for the incident detail or a page of 20 of
 * the list, using the statements and loaders of a given checkout. The database is read once, for
 * the statement's text answer; the timed part has no I/O. Run it for two checkouts in turn
 * (A B A B) to compare a change to the records or to the statements' JSON:
 *
 *   BENCH_DATABASE_URL=postgresql://…/<a database filled by npm run synth> \
 *     node bench/tree-records-bench.js <checkout> detail|list
 *
 * Prints one JSON line: the bytes of the statement's answer and the CPU µs per build.
 */
const path = require('node:path');

const [checkout, what = 'detail'] = process.argv.slice(2);
if (!checkout || !['detail', 'list'].includes(what)) {
  console.error('usage: node bench/tree-records-bench.js <checkout> detail|list');
  process.exit(2);
}
const root = path.resolve(checkout);
require(path.join(root, 'scripts', 'register-ts'));
const { IncidentLoaders, incidentTreeStatement, treeOf } = require(path.join(root, 'libs', 'incidents', 'src', 'index.ts'));
const { Pool } = require(path.join(root, 'node_modules', 'pg'));
// This checkout's includes, for either checkout (read through the hook registered above).
const { DETAIL_INCLUDE, LIST_INCLUDE } = require('./read-queries.ts');

const url = process.env.BENCH_DATABASE_URL;
if (!url) {
  console.error('BENCH_DATABASE_URL is required');
  process.exit(2);
}

async function main() {
  const pool = new Pool({ connectionString: url, max: 1, statement_timeout: 30_000 });
  // What the app loads for the read benches' queries (read-queries.ts). A checkout from before
  // the column groups ignores them and sends every column.
  const include = what === 'list' ? LIST_INCLUDE : DETAIL_INCLUDE;
  let texts;
  try {
    const ids = (
      await pool.query(
        what === 'list'
          ? `SELECT "id" FROM "Incident" WHERE "status" = 'published' ORDER BY COALESCE("startedAt", '-infinity'::timestamptz) DESC, "id" DESC LIMIT 20`
          : `SELECT "id" FROM "Incident" WHERE "status" = 'published' ORDER BY "slug" LIMIT 1 OFFSET 1000`,
      )
    ).rows.map((r) => r.id);
    if (ids.length === 0) throw new Error('the database holds no published incidents: fill it with npm run synth');
    const statement = incidentTreeStatement('ids', include);
    texts = (await pool.query(`SELECT s."tree"::text AS t FROM (${statement.text}) s`, [ids])).rows.map((r) => r.t);
  } finally {
    await pool.end();
  }
  // The loaders' Prisma reads are not used: every collection asked for is primed from the trees.
  const build = () => new IncidentLoaders(null).incidentsFromTreeRows(texts.map((t) => treeOf({ tree: JSON.parse(t) })), include);
  for (let i = 0; i < 3000; i++) build();
  const runs = what === 'list' ? 4000 : 10000;
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) build();
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ checkout: root, what, bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0), cpuMicrosPerBuild: Number(((used.user + used.system) / runs).toFixed(1)) }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
