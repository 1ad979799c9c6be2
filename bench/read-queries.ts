/** The GraphQL reads the read benches send, shared so every bench asks for the same fields. */
import type { IncidentInclude } from '../libs/incidents/src/incident-tree-query';

/** Every field of an incident's detail, nested collections included (read-bench.ts, stack-floor-bench.ts). */
export const DETAIL_FIELDS = `slug title organization components summary narrative impact source { title url language } started { at precision } detected { at precision }
  mitigated { at precision } resolved { at precision } version patterns { key name }
  timeline { key asWritten at precision kind text }
  causalFactors { key role component text }
  causalLinks { kind from { key } to { key } }
  actionables { key title description owner status dueDate priority references { kind ref url } addresses { key } }`;

/**
 * What the app's detail statement loads for DETAIL_FIELDS, as the API works it out from the
 * fields (apps/api/src/incidents/includes.ts): every collection, the actionables' words and
 * follow-up fields but not their timestamps, the patterns without their descriptions. The floors
 * send the same statement (read-floor-server.ts, stack-floor-bench.ts); test/selected-columns.spec.ts
 * checks that it is the app's.
 */
export const DETAIL_INCLUDE: IncidentInclude = {
  narrative: true,
  patterns: true,
  timeline: true,
  factors: true,
  links: true,
  actionables: true,
  references: true,
  addresses: true,
  actionableColumns: ['words', 'followUp'],
  patternColumns: [],
};

/** What the app's list statement loads for LIST_QUERY: actionables and patterns by key, none of their optional columns. */
export const LIST_INCLUDE: IncidentInclude = { patterns: true, actionables: true, actionableColumns: [], patternColumns: [] };

/** The first page of the incident list, as the read benches ask for it (read-bench.ts, stack-floor-bench.ts with QUERY=list). */
export const LIST_QUERY = `{ incidents(first: 20) { pageInfo { hasNextPage endCursor } nodes { slug title organization started { at precision } patterns { key } actionables { key status } } } }`;

/** The corpus's size and the incident whose detail the read benches ask for (the 101st synthetic one by slug). */
export async function benchIncident(databaseUrl: string): Promise<{ n: number; slug: string }> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number; slug: string }>(
      `SELECT (SELECT count(*)::int FROM "Incident") AS n, (SELECT "slug" FROM "Incident" WHERE "slug" LIKE 'synth-%' ORDER BY "slug" LIMIT 1 OFFSET 100) AS slug`,
    );
    return rows[0]!;
  } finally {
    await c.end();
  }
}
