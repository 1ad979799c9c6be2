import { Client } from 'pg';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of its own for one bench run, on the server `DATABASE_URL` names (its user must be
 * allowed to create databases); `drop()` removes it, connections and all.
 */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('set DATABASE_URL to a server where a scratch database may be created');
  const name = `${prefix}_${process.pid}`;
  const run = async (sql: string) => {
    const c = new Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
