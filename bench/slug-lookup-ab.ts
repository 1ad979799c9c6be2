/**
 * The incident detail statement by slug, as it is now (slug and old slugs each by their unique
 * index, ids joined) against the form it had (`slug = $1 OR EXISTS (old slug)`), A B A B in one
 * connection, the same slugs, every nested field. Prints p50/p95/max per form.
 *
 *   BENCH_DATABASE_URL=postgresql://…/db node -r ./scripts/register-ts.js bench/slug-lookup-ab.ts [rounds]
 */
import { Client } from 'pg';
import { incidentTreeStatement } from '@hindsight/incidents';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL to a database filled by npm run synth');
const rounds = Number(process.argv[2] ?? 20);

const include = { narrative: true, patterns: true, timeline: true, factors: true, links: true, actionables: true, references: true, addresses: true };
const now = incidentTreeStatement('slug', include);
const byIndex = `i."id" IN (SELECT x."id" FROM "Incident" x WHERE x."slug" = $1 UNION ALL SELECT sa."incidentId" FROM "IncidentSlugAlias" sa WHERE sa."slug" = $1)`;
if (!now.text.includes(byIndex)) throw new Error('the detail statement changed; update this bench');
const before = { name: 'slug_lookup_before', text: now.text.replace(byIndex, `(i."slug" = $1 OR EXISTS (SELECT 1 FROM "IncidentSlugAlias" sa WHERE sa."incidentId" = i."id" AND sa."slug" = $1))`) };

async function main() {
  const client = new Client({ connectionString: url, statement_timeout: 30_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ slug: string; n: number }>(
      `SELECT "slug", (SELECT count(*)::int FROM "Incident") AS n FROM "Incident" WHERE "slug" LIKE 'synth-%' AND "status" = 'published' ORDER BY md5("slug") LIMIT 10`,
    );
    const times: Record<'now' | 'before', number[]> = { now: [], before: [] };
    for (const { slug } of rows) for (const s of [now, before]) await client.query({ ...s, values: [slug] }); // prepare and warm
    for (let r = 0; r < rounds; r++) {
      const slug = rows[r % rows.length]!.slug;
      for (const [label, s] of [['now', now], ['before', before]] as const) {
        const start = process.hrtime.bigint();
        const res = await client.query({ ...s, values: [slug] });
        times[label].push(Number(process.hrtime.bigint() - start) / 1e6);
        if (res.rows.length !== 1) throw new Error(`${label}: ${res.rows.length} rows for ${slug}`);
      }
    }
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
    console.log(`detail by slug on ${rows[0]?.n} incidents, ${rounds} rounds, A B interleaved`);
    for (const [label, xs] of Object.entries(times)) console.log(`${label}: p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`);
  } finally {
    await client.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
