/**
 * The floor for the read bench: the same rows as the GraphQL detail, list and board queries, by
 * hand-written SQL through `pg` (named prepared statements, JSON built by Postgres), answered as
 * JSON over HTTP with no GraphQL, no framework and no validation.
 * node -r ./scripts/register-ts.js bench/read-floor-server.ts <database url> <port> <pool size>
 */
import http from 'node:http';
import { Pool } from 'pg';
import { incidentTreeStatement, INCIDENT_COLUMNS, treeOf, treeRow } from '@hindsight/incidents';
import { DETAIL_INCLUDE } from './read-queries';

const [url, port, poolSize] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: Number(poolSize ?? 10), statement_timeout: 10_000 });

// The app's own detail statement for the benches' detail query.
const detail = incidentTreeStatement('slug', DETAIL_INCLUDE);
const LIST = {
  name: 'floor_list',
  text: `WITH page AS (SELECT i."id" FROM "Incident" i WHERE i."status" = 'published'
      ORDER BY COALESCE(i."startedAt", '-infinity'::timestamptz) DESC, i."id" DESC LIMIT 21)
    SELECT ${treeRow(`${INCIDENT_COLUMNS},
      (SELECT COALESCE(json_agg(json_build_object('key', p."key") ORDER BY p."key"), '[]') FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ip."incidentId" = i."id") AS patterns,
      (SELECT COALESCE(json_agg(json_build_object('key', a."key", 'status', a."status") ORDER BY a."position"), '[]') FROM "Actionable" a WHERE a."incidentId" = i."id") AS actionables`)}
    FROM page JOIN "Incident" i USING ("id") ORDER BY COALESCE(i."startedAt", '-infinity'::timestamptz) DESC, i."id" DESC`,
};
const BOARD = {
  name: 'floor_board',
  text: `SELECT a."key", a."title", a."owner", a."dueDate", a."status", i."slug"
    FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId"
    WHERE i."status" = 'published' AND a."status" = ANY('{open,in_progress}'::"ActionableStatus"[]) AND a."dueDate" < CURRENT_DATE
    ORDER BY COALESCE(a."dueDate", 'infinity'::date), a."id" LIMIT 21`,
};
const COUNT = { name: 'floor_count', text: `SELECT count(*)::int AS n FROM "Incident" i WHERE i."status" = 'published'` };

const server = http.createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  // The detail and the list answer one JSON column per row (treeRow); the board and the count plain columns.
  const run: Promise<unknown[]> =
    u.pathname === '/detail'
      ? pool.query({ ...detail, values: [u.searchParams.get('slug')] }).then((r) => r.rows.map(treeOf))
      : u.pathname === '/list'
        ? pool.query(LIST).then((r) => r.rows.map(treeOf))
        : u.pathname === '/board'
          ? pool.query(BOARD).then((r) => r.rows)
          : pool.query(COUNT).then((r) => r.rows);
  req.resume();
  run.then(
    (rows) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: rows }));
    },
    (e: Error) => {
      res.statusCode = 500;
      res.end(e.message);
    },
  );
});
server.keepAliveTimeout = 5_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`floor listening on ${port}`));
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
  process.exit(0);
});
