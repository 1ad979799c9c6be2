/**
 * Cost of the input guard (apps/api/src/common/input-guard.plugin.ts) per request, beside
 * graphql-js's own `validate()` of the same document in the same run: the guard must stay a
 * small fraction of work every request already does.
 * Run: node -r ./scripts/register-ts.js bench/input-guard-bench.ts [iterations]
 * No database, no network; bounded by `iterations` (default 2000) per case.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate, type OperationDefinitionNode } from 'graphql';
import { projectRoot } from '@hindsight/db';
import { findInputProblems } from '../apps/api/src/common/input-guard.plugin';

const iterations = Number(process.argv[2] ?? 2000);
const schema = buildSchema(fs.readFileSync(path.join(projectRoot(), 'schema.gql'), 'utf8'));
const seed = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'incidents', 'changeprop-feedback-loop-2016.json'), 'utf8')) as Record<string, unknown>;
const narrative = fs.readFileSync(path.join(projectRoot(), 'seeds', 'incidents', 'changeprop-feedback-loop-2016.md'), 'utf8');
const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);
const incidentInput = {
  slug: 'bench-incident',
  title: seed.title,
  organization: seed.organization,
  summary: seed.summary,
  narrative,
  source: { title: 'bench', url: 'https://example.org', language: 'en' },
  timeline: (seed.timeline as Record<string, unknown>[]).map((e) => ({ key: e.key, at: e.at, asWritten: e.asWritten, precision: upper(e.precision), kind: upper(e.kind), text: e.text })),
  causalFactors: (seed.causalFactors as Record<string, unknown>[]).map((f) => ({ key: f.key, role: upper(f.role), component: f.component, text: f.text })),
};

const cases: { name: string; query: string; variables: Record<string, unknown> }[] = [
  { name: 'search (one text variable)', query: 'query($t: String) { incidents(filter: { text: $t }) { totalCount nodes { slug } } }', variables: { t: 'keep-alive' } },
  { name: `createIncident (shipped incident, ${Math.round(JSON.stringify(incidentInput).length / 1024)} KiB)`, query: 'mutation($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }', variables: { i: incidentInput } },
  { name: 'updateIncident (1 MiB narrative)', query: 'mutation($p: IncidentPatchInput!) { updateIncident(input: { slug: "x", expectedVersion: 1, patch: $p }) { incident { slug } } }', variables: { p: { narrative: 'a'.repeat(1024 * 1024) } } },
];

const time = (work: () => void): number => {
  for (let i = 0; i < Math.min(200, iterations); i++) work();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) work();
  return Number(process.hrtime.bigint() - start) / 1e3 / iterations;
};

console.log(`| request | input guard (µs) | graphql validate() (µs) | guard / validate |`);
console.log(`|---|---:|---:|---:|`);
for (const c of cases) {
  const document = parse(c.query);
  const operation = document.definitions[0] as OperationDefinitionNode;
  if (findInputProblems(schema, document, operation, c.variables).length > 0) throw new Error(`${c.name}: the guard refused a valid request`);
  const guard = time(() => findInputProblems(schema, document, operation, c.variables));
  const validation = time(() => validate(schema, document));
  console.log(`| ${c.name} | ${guard.toFixed(1)} | ${validation.toFixed(1)} | ${(guard / validation).toFixed(2)}× |`);
}
