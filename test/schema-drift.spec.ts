import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { introspect } from './support/introspect';
import { readPrismaSchema, type ExpectedSchema } from './support/prisma-schema';
import { createTestDatabase, type TestDatabase } from './support/test-db';

/** Sorts everything so the two descriptions compare regardless of declaration order. */
function canonical(schema: ExpectedSchema) {
  return {
    enums: Object.fromEntries(Object.entries(schema.enums).sort(([a], [b]) => a.localeCompare(b))),
    tables: schema.tables
      .map((t) => ({
        ...t,
        columns: [...t.columns].sort((a, b) => a.name.localeCompare(b.name)),
        indexes: [...t.indexes].sort((a, b) => a.name.localeCompare(b.name)),
        foreignKeys: [...t.foreignKeys].sort((a, b) => a.name.localeCompare(b.name)),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

describe('hand-written migrations agree with schema.prisma', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
  });
  afterAll(async () => {
    await db.drop();
  });

  it('has every model, field, type, nullability, default, index, key and relation, and nothing else', async () => {
    const expected = canonical(readPrismaSchema(fs.readFileSync(path.join(projectRoot(), 'prisma', 'schema.prisma'), 'utf8')));
    const actual = canonical(await introspect(db.url));
    expect(actual.enums).toEqual(expected.enums);
    expect(actual.tables.map((t) => t.name)).toEqual(expected.tables.map((t) => t.name));
    for (const table of expected.tables) {
      const found = actual.tables.find((t) => t.name === table.name)!;
      // Per table, so a failure names the table that drifted.
      expect({ table: found.name, ...found }).toEqual({ table: table.name, ...table });
    }
  });

  it('is able to notice drift: a column changed behind the schema fails the comparison', async () => {
    const expected = canonical(readPrismaSchema(fs.readFileSync(path.join(projectRoot(), 'prisma', 'schema.prisma'), 'utf8')));
    const other = await createTestDatabase({ migrate: true });
    try {
      const { Client } = await import('pg');
      const c = new Client({ connectionString: other.url });
      await c.connect();
      await c.query('ALTER TABLE "Actionable" ALTER COLUMN "owner" SET NOT NULL');
      await c.query('DROP INDEX "Incident_organization_idx"');
      await c.end();
      const drifted = canonical(await introspect(other.url));
      expect(drifted).not.toEqual(expected);
      const actionable = drifted.tables.find((t) => t.name === 'Actionable')!;
      expect(actionable.columns.find((col) => col.name === 'owner')!.nullable).toBe(false);
    } finally {
      await other.drop();
    }
  });
});
