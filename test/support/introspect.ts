import { Client } from 'pg';
import type { ExpectedSchema, ExpectedTable } from './prisma-schema';

const RULES: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

/** What Postgres reports for the public schema, in the same shape as readPrismaSchema's result. */
export async function introspect(url: string): Promise<ExpectedSchema> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const enumRows = (
      await client.query<{ name: string; value: string }>(
        `SELECT t.typname AS name, e.enumlabel AS value FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
         JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' ORDER BY t.typname, e.enumsortorder`,
      )
    ).rows;
    const enums: Record<string, string[]> = {};
    for (const r of enumRows) (enums[r.name] ??= []).push(r.value);

    const columns = (
      await client.query<{ table: string; name: string; data_type: string; udt: string; nullable: string; def: string | null; precision: number | null }>(
        `SELECT table_name AS table, column_name AS name, data_type, udt_name AS udt, is_nullable AS nullable,
                column_default AS def, datetime_precision AS precision
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
         ORDER BY table_name, ordinal_position`,
      )
    ).rows;
    const indexes = (
      await client.query<{ table: string; name: string; unique: boolean; primary: boolean; columns: string[] }>(
        `SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
                array_agg(a.attname ORDER BY k.ord)::text[] AS columns
         FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
         WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
           -- Expression indexes have no schema.prisma form; test/read-path-indexes.spec.ts checks them.
           AND x.indexprs IS NULL
         GROUP BY t.relname, i.relname, x.indisunique, x.indisprimary`,
      )
    ).rows;
    const fks = (
      await client.query<{ table: string; name: string; ref_table: string; columns: string[]; ref_columns: string[]; del: string; upd: string }>(
        `SELECT c.conrelid::regclass::text AS table, c.conname AS name, c.confrelid::regclass::text AS ref_table,
                (SELECT array_agg(a.attname ORDER BY k.ord)::text[] FROM unnest(c.conkey) WITH ORDINALITY k(n, ord)
                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
                (SELECT array_agg(a.attname ORDER BY k.ord)::text[] FROM unnest(c.confkey) WITH ORDINALITY k(n, ord)
                   JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_columns,
                c.confdeltype AS del, c.confupdtype AS upd
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE c.contype = 'f' AND n.nspname = 'public'`,
      )
    ).rows;

    const unquote = (name: string) => name.replace(/^"|"$/g, '');
    const tables = new Map<string, ExpectedTable>();
    const tableOf = (name: string) => {
      let t = tables.get(name);
      if (!t) {
        t = { name, columns: [], primaryKey: { name: '', columns: [] }, indexes: [], foreignKeys: [] };
        tables.set(name, t);
      }
      return t;
    };
    for (const c of columns) {
      let type: string;
      const base = c.data_type === 'ARRAY' ? c.udt.replace(/^_/, '') : c.udt;
      if (enums[base]) type = `enum:${base}`;
      else if (base === 'timestamptz') type = `timestamptz(${c.precision ?? 6})`;
      else if (base === 'timestamp') type = `timestamp(${c.precision ?? 6})`;
      else type = { int4: 'integer', int8: 'bigint', float8: 'double precision', bool: 'boolean', text: 'text', uuid: 'uuid', date: 'date', jsonb: 'jsonb', bytea: 'bytea', int2: 'smallint' }[base] ?? base;
      if (c.data_type === 'ARRAY') type += '[]';
      tableOf(c.table).columns.push({ name: c.name, type, nullable: c.nullable === 'YES', default: c.def });
    }
    for (const i of indexes) {
      const t = tableOf(i.table);
      if (i.primary) t.primaryKey = { name: i.name, columns: i.columns };
      else t.indexes.push({ name: i.name, columns: i.columns, unique: i.unique });
    }
    for (const f of fks) {
      tableOf(unquote(f.table)).foreignKeys.push({
        name: f.name,
        columns: f.columns,
        refTable: unquote(f.ref_table),
        refColumns: f.ref_columns,
        onDelete: RULES[f.del]!,
        onUpdate: RULES[f.upd]!,
      });
    }
    return { enums, tables: [...tables.values()] };
  } finally {
    await client.end();
  }
}
