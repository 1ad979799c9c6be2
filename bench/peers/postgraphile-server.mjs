// PostGraphile v5 (Amber preset) over the same database, for the read bench:
// node --import ./with-resolvers.mjs postgraphile-server.mjs <database url> <port> <pool size>
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';

const [connectionString, port, poolSize] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString, max: Number(poolSize ?? 10) });
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { port: Number(port), graphiql: false },
  grafast: { explain: false },
};
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (e) => { console.error(e); process.exit(1); });
await serv.addTo(server);
server.listen(Number(port), '127.0.0.1', () => console.log(`postgraphile listening on ${port}`));
process.on('SIGTERM', () => { server.close(); pool.end(); process.exit(0); });
