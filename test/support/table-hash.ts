import { Client } from 'pg';

/**
 * A digest of every row of every table in the public schema, per table, to prove a refused
 * request wrote nothing. `ApiToken.lastUsedAt` is left out: using a token to send the request
 * is itself recorded there.
 */
export async function tableHashes(url: string): Promise<Record<string, string>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = (
      await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)
    ).rows.map((r) => r.name);
    const hashes: Record<string, string> = {};
    for (const table of tables) {
      const row = (
        await client.query<{ n: string; h: string | null }>(
          `SELECT count(*)::text AS n, md5(string_agg((to_jsonb(t) - 'lastUsedAt')::text, '|' ORDER BY (to_jsonb(t) - 'lastUsedAt')::text)) AS h FROM "${table}" t`,
        )
      ).rows[0]!;
      hashes[table] = `${row.n}:${row.h ?? ''}`;
    }
    return hashes;
  } finally {
    await client.end();
  }
}
