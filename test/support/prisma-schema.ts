/**
 * A reader for the subset of the Prisma schema language this project uses, producing what the
 * database must contain after migrating: tables, columns (type, nullability, default), primary
 * keys, unique and plain indexes with Prisma's names, foreign keys, and enums.
 */

export interface ExpectedColumn {
  name: string;
  /** Comparable type: `text`, `uuid`, `integer`, `timestamptz(3)`, `date`, `enum:Name`, `text[]`, ... */
  type: string;
  nullable: boolean;
  /** Normalised default expression, or null. */
  default: string | null;
}

export interface ExpectedIndex {
  name: string;
  columns: string[];
  unique: boolean;
}

export interface ExpectedForeignKey {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
}

export interface ExpectedTable {
  name: string;
  columns: ExpectedColumn[];
  primaryKey: { name: string; columns: string[] };
  indexes: ExpectedIndex[];
  foreignKeys: ExpectedForeignKey[];
}

export interface ExpectedSchema {
  enums: Record<string, string[]>;
  tables: ExpectedTable[];
}

const SCALARS: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Boolean: 'boolean',
  DateTime: 'timestamp(3)',
  Json: 'jsonb',
  Decimal: 'numeric(65,30)',
  Bytes: 'bytea',
};

const NATIVE: Record<string, string> = {
  Uuid: 'uuid',
  Date: 'date',
  Text: 'text',
  Integer: 'integer',
  SmallInt: 'smallint',
  JsonB: 'jsonb',
};

function blocks(source: string, keyword: string): { name: string; body: string[] }[] {
  const re = new RegExp(`^${keyword}\\s+(\\w+)\\s*\\{([\\s\\S]*?)^\\}`, 'gm');
  const result: { name: string; body: string[] }[] = [];
  for (const m of source.matchAll(re)) {
    const body = m[2]!
      .split('\n')
      .map((l) => l.replace(/\/\/.*$/, '').trim())
      .filter((l) => l !== '');
    result.push({ name: m[1]!, body });
  }
  return result;
}

function listArg(text: string): string[] {
  return text
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The argument of `@name(...)`, honouring nested parentheses and quotes. */
function attrArg(line: string, attr: string): string | null {
  const start = line.indexOf(`${attr}(`);
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start + attr.length; i < line.length; i++) {
    const c = line[i];
    if (c === '"' && line[i - 1] !== '\\') inString = !inString;
    if (inString) continue;
    if (c === '(') depth++;
    if (c === ')' && --depth === 0) return line.slice(start + attr.length + 1, i);
  }
  return null;
}

function namedArg(args: string, name: string): string | null {
  const m = new RegExp(`${name}\\s*:\\s*(\\[[^\\]]*\\]|\\w+)`).exec(args);
  return m ? m[1]! : null;
}

export function readPrismaSchema(source: string): ExpectedSchema {
  const enums: Record<string, string[]> = {};
  for (const e of blocks(source, 'enum')) enums[e.name] = e.body.filter((l) => !l.startsWith('@@'));
  const models = blocks(source, 'model');
  const modelNames = new Set(models.map((m) => m.name));
  const tables: ExpectedTable[] = [];

  for (const model of models) {
    const table: ExpectedTable = { name: model.name, columns: [], primaryKey: { name: `${model.name}_pkey`, columns: [] }, indexes: [], foreignKeys: [] };
    for (const line of model.body) {
      if (line.startsWith('///')) continue;
      if (line.startsWith('@@')) {
        const kind = /^@@(\w+)/.exec(line)![1]!;
        // `word(ops: raw("gin_trgm_ops"))` names the column `word`; `map: "…"` names the index.
        const cols = listArg(/\[([^\]]*)\]/.exec(line)![0]).map((c) => c.replace(/\(.*$/, ''));
        const map = /map:\s*"([^"]+)"/.exec(line)?.[1];
        if (kind === 'id') table.primaryKey.columns = cols;
        if (kind === 'unique') table.indexes.push({ name: map ?? `${model.name}_${cols.join('_')}_key`, columns: cols, unique: true });
        if (kind === 'index') table.indexes.push({ name: map ?? `${model.name}_${cols.join('_')}_idx`, columns: cols, unique: false });
        continue;
      }
      const m = /^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!m) throw new Error(`cannot read field line: ${line}`);
      const [, name, baseType, list, optional, rest] = m as unknown as [string, string, string, string | undefined, string | undefined, string];
      if (modelNames.has(baseType)) {
        const relation = attrArg(rest, '@relation');
        const fields = relation && namedArg(relation, 'fields');
        if (relation && fields) {
          const cols = listArg(fields);
          const onDelete = namedArg(relation, 'onDelete') ?? (optional ? 'SetNull' : 'Restrict');
          const onUpdate = namedArg(relation, 'onUpdate') ?? 'Cascade';
          table.foreignKeys.push({
            name: `${model.name}_${cols.join('_')}_fkey`,
            columns: cols,
            refTable: baseType,
            refColumns: listArg(namedArg(relation, 'references')!),
            onDelete,
            onUpdate,
          });
        }
        continue;
      }
      let type: string;
      if (enums[baseType]) type = `enum:${baseType}`;
      else if (baseType === 'Unsupported') type = /^\("([^"]+)"\)/.exec(rest)![1]!;
      else {
        const native = /@db\.(\w+)(?:\((\d+)\))?/.exec(rest);
        if (native && native[1] === 'Timestamptz') type = `timestamptz(${native[2] ?? 6})`;
        else if (native && native[1] === 'Timestamp') type = `timestamp(${native[2] ?? 6})`;
        else if (native) type = NATIVE[native[1]!] ?? native[1]!.toLowerCase();
        else type = SCALARS[baseType] ?? `unknown:${baseType}`;
      }
      if (list) type += '[]';
      const def = attrArg(rest, '@default');
      let dbDefault: string | null = null;
      if (def !== null) {
        if (def === 'now()') dbDefault = 'CURRENT_TIMESTAMP';
        else if (def === 'autoincrement()') dbDefault = `nextval('"${model.name}_${name}_seq"'::regclass)`;
        else if (def === 'uuid()' || def === 'cuid()' || def.startsWith('uuid(') || def.startsWith('cuid(')) dbDefault = null;
        else if (def.startsWith('dbgenerated(')) dbDefault = JSON.parse(def.slice('dbgenerated('.length, -1)) as string;
        else if (def.startsWith('"')) dbDefault = `'${JSON.parse(def) as string}'::text`;
        else if (enums[baseType]) dbDefault = `'${def}'::"${baseType}"`;
        else dbDefault = def;
      }
      table.columns.push({ name, type, nullable: Boolean(optional) || Boolean(list), default: dbDefault });
      if (/@id\b/.test(rest)) table.primaryKey.columns = [name];
      if (/@unique\b/.test(rest)) table.indexes.push({ name: `${model.name}_${name}_key`, columns: [name], unique: true });
    }
    tables.push(table);
  }
  return { enums, tables };
}
