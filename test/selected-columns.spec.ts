import request from 'supertest';
import { PrismaService } from '@hindsight/db';
import { incidentTreeStatement } from '@hindsight/incidents';
import { DETAIL_FIELDS, DETAIL_INCLUDE } from '../bench/read-queries';
import { ACTIONABLE_FIELD_COLUMNS, PATTERN_FIELD_COLUMNS } from '../apps/api/src/incidents/includes';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

/**
 * The incident list, the detail and the board send only the actionables' and patterns' columns
 * the operation's fields on Actionable and Pattern read (apps/api/src/incidents/includes.ts).
 * Every field of those types must answer the same through such a statement as through one that
 * sends every column, wherever in the operation it is selected. (That such records stay out of
 * the loaders other code reads whole records from is test/tree-statements.spec.ts's.)
 */
const EVERY_COLUMN: Record<'Actionable' | 'Pattern', string> = {
  Actionable: 'title description owner dueDate priority closedAt closedBy wontDoReason createdAt updatedAt',
  Pattern: 'description',
};

interface TypeRef {
  kind: string;
  ofType: TypeRef | null;
}

function namedKind(t: TypeRef): string {
  return t.ofType ? namedKind(t.ofType) : t.kind;
}

type Row = { slug?: string; key: string; value: unknown };

describe('actionable and pattern columns sent as the operation reads them', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let admin: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    const { as } = await issueTokens(t);
    admin = as('admin');
    // Give some follow-ups every optional column a value, so fields are compared on values, not only nulls.
    const [done, dropped, due] = await prisma.actionable.findMany({ take: 3, orderBy: { id: 'asc' } });
    await prisma.actionable.update({ where: { id: done!.id }, data: { status: 'done', priority: 'p1', closedAt: new Date('2024-03-05T06:07:08.009Z'), closedBy: 'Ada', dueDate: new Date('2024-03-01') } });
    await prisma.actionable.update({ where: { id: dropped!.id }, data: { status: 'wont_do', closedAt: new Date('2023-01-02T03:04:05.006Z'), closedBy: 'Lin', wontDoReason: 'superseded' } });
    await prisma.actionable.update({ where: { id: due!.id }, data: { status: 'in_progress', dueDate: new Date('2001-02-03'), owner: 'sre-team' } });
  }, 300_000);
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  /** Every field of a type, as a selection aliased `value` (composite ones by their __typename). */
  async function fieldsOf(type: string): Promise<{ name: string; selection: string }[]> {
    const res = await t.gql<{ __type: { fields: { name: string; args: { name: string; type: TypeRef; defaultValue: string | null }[]; type: TypeRef }[] } }>(
      `{ __type(name: "${type}") { fields { name args { name defaultValue type { kind ofType { kind ofType { kind } } } } type { kind ofType { kind ofType { kind ofType { kind } } } } } } }`,
    );
    expect(res.errors).toBeUndefined();
    return res.data.__type.fields.map((f) => {
      // Required arguments would need values; none of these types' fields has one.
      expect([f.name, f.args.filter((a) => a.type.kind === 'NON_NULL' && a.defaultValue === null).map((a) => a.name)]).toEqual([f.name, []]);
      const composite = ['OBJECT', 'INTERFACE', 'UNION'].includes(namedKind(f.type));
      return { name: f.name, selection: composite ? `value: ${f.name} { __typename }` : `value: ${f.name}` };
    });
  }

  async function rows(query: string, pick: (data: Record<string, unknown>) => Row[]): Promise<Row[]> {
    const res = await t.gql<Record<string, unknown>>(query, {}, admin);
    expect([query, res.errors]).toEqual([query, undefined]);
    return pick(res.data);
  }

  type Lists = { incidents: { nodes: ({ slug: string } & Record<string, Row[]>)[] } };
  const fromList = (d: Record<string, unknown>, collection: string) =>
    (d as Lists).incidents.nodes.flatMap((n) => n[collection]!.map((a) => ({ slug: n.slug, key: a.key, value: a.value })));
  const fromDetail = (d: Record<string, unknown>, collection: string) => (d as { incident: Record<string, Row[]> }).incident[collection]!.map((a) => ({ key: a.key, value: a.value }));
  const fromBoard = (d: Record<string, unknown>) => (d as { actionables: { nodes: Row[] } }).actionables.nodes.map((a) => ({ key: a.key, value: a.value }));

  /** Each field answered through the statements that send only what it reads and through ones that send every column; the fields that answered a value somewhere. */
  async function compareFields(type: 'Actionable' | 'Pattern', collection: string): Promise<Set<string>> {
    const fields = await fieldsOf(type);
    const withValues = new Set<string>();
    for (const { name, selection } of fields) {
      const list = (extra: string) => `{ incidents(first: 10) { nodes { slug ${collection} { key ${selection} ${extra} } } } }`;
      const detail = (extra: string) => `{ incident(slug: "stackegg-haproxy-session-cap-2015") { ${collection} { key ${selection} ${extra} } } }`;
      const board = (extra: string) => `{ actionables(first: 100, orderBy: CREATED_AT_ASC) { nodes { key ${selection} ${extra} } } }`;
      const shapes = [
        [list, (d: Record<string, unknown>) => fromList(d, collection)],
        [detail, (d: Record<string, unknown>) => fromDetail(d, collection)],
        ...(type === 'Actionable' ? [[board, fromBoard] as const] : []),
      ] as const;
      for (const [query, pick] of shapes) {
        const asRead = await rows(query(''), pick);
        const whole = await rows(query(EVERY_COLUMN[type]), pick);
        expect([name, asRead]).toEqual([name, whole]);
        if (asRead.some((r) => r.value !== null && r.value !== false && !(Array.isArray(r.value) && r.value.length === 0))) withValues.add(name);
      }
    }
    return withValues;
  }

  it('answers every field of Actionable in the list, the detail and the board as a statement with every column does', async () => {
    const withValues = await compareFields('Actionable', 'actionables');
    expect(withValues.size).toBeGreaterThan(15);
    // The comparisons are not all between nulls: each group's fields answered values.
    for (const name of ['title', 'description', 'owner', 'dueDate', 'priority', 'closedAt', 'closedBy', 'wontDoReason', 'createdAt', 'updatedAt', 'overdue', 'closedAtRecorded']) {
      expect([name, withValues.has(name)]).toEqual([name, true]);
    }
  }, 300_000);

  it('answers every field of Pattern in the list and the detail as a statement with every column does', async () => {
    const withValues = await compareFields('Pattern', 'patterns');
    for (const name of ['id', 'key', 'name', 'description', 'incidentCount']) expect([name, withValues.has(name)]).toEqual([name, true]);
  }, 300_000);

  /** The text of each tree statement (`treeRow`) the app sent while answering a query. */
  async function treeStatementsOf(query: string, operationName?: string): Promise<string[]> {
    const pool = t.app.get(PrismaService).pool as unknown as { query: (...args: unknown[]) => unknown };
    const query0 = pool.query;
    const sent: string[] = [];
    pool.query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string };
      const text = typeof config === 'string' ? config : config.text;
      if (text.includes('AS "tree"')) sent.push(text);
      return query0.apply(pool, args);
    };
    try {
      const res = await request(t.app.getHttpServer()).post('/graphql').set(admin).send({ query, operationName });
      expect([query, res.status, res.body.errors]).toEqual([query, 200, undefined]);
    } finally {
      pool.query = query0;
    }
    expect(sent.length).toBeGreaterThan(0);
    return sent;
  }

  /** The optional columns a tree statement sends, by the JSON keys it builds (an actionable's `a`, a pattern's `p`). */
  function sentColumns(text: string): string[] {
    const actionable = ['title', 'description', 'owner', 'dueDate', 'priority', 'closedAt', 'closedBy', 'wontDoReason', 'createdAt', 'updatedAt'].filter((c) =>
      new RegExp(`'${c}', [(]*(round[(]extract[(]epoch FROM )?a\\."${c}"`).test(text),
    );
    return [...actionable.map((c) => `a.${c}`), ...(/'description', p\."description"/.test(text) ? ['p.description'] : [])];
  }

  it('sends only the columns the fields read: the list, the detail and the board', async () => {
    const [list] = await treeStatementsOf(`{ incidents(first: 10) { nodes { slug actionables { key status } patterns { key } } } }`);
    expect(list).toMatch(/'status', a\."status"/);
    expect(sentColumns(list!)).toEqual([]);
    const [detail] = await treeStatementsOf(`{ incident(slug: "stackegg-haproxy-session-cap-2015") { actionables { key title dueDate } patterns { key name } } }`);
    expect(sentColumns(detail!)).toEqual(['a.title', 'a.description', 'a.owner', 'a.dueDate', 'a.priority', 'a.closedAt', 'a.closedBy', 'a.wontDoReason']);
    const [board] = await treeStatementsOf(`{ actionables(first: 5) { nodes { key title } } }`);
    expect(sentColumns(board!)).toEqual(['a.title', 'a.description', 'a.owner']);
    // Every column when the fields read them all.
    const [all] = await treeStatementsOf(`{ incidents(first: 10) { nodes { actionables { ${EVERY_COLUMN.Actionable} } patterns { description } } } }`);
    expect(sentColumns(all!)).toEqual([...EVERY_COLUMN.Actionable.split(' ').map((c) => `a.${c}`), 'p.description']);
  });

  it('sends for the benches’ detail query the statement the floors send (bench/read-queries.ts, DETAIL_INCLUDE)', async () => {
    const [sent] = await treeStatementsOf(`{ incident(slug: "stackegg-haproxy-session-cap-2015") { ${DETAIL_FIELDS} } }`);
    // An admin may read drafts: the statement's drafts variant.
    expect(sent).toBe(incidentTreeStatement('slug', DETAIL_INCLUDE, true).text);
  });

  it('names every field of both types in its table, so a new field is placed deliberately', async () => {
    for (const [type, table] of [
      ['Actionable', ACTIONABLE_FIELD_COLUMNS],
      ['Pattern', PATTERN_FIELD_COLUMNS],
    ] as const) {
      const missing = (await fieldsOf(type)).map((f) => f.name).filter((n) => !Object.hasOwn(table, n));
      expect([type, missing]).toEqual([type, []]);
    }
  });

  it('sends a field the operation reads anywhere: another root field, a fragment, another operation of the document', async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    const expected = (await rows(`{ incident(slug: "${slug}") { actionables { key value: description } } }`, (d) => fromDetail(d, 'actionables'))).map((r) => r.value);
    expect(expected.every((d) => typeof d === 'string' && d.length > 0)).toBe(true);
    const shapes = [
      // The list asks for keys only; the detail (answered from the list's records when it runs second) for descriptions.
      `{ incidents(first: 10) { nodes { slug actionables { key } } } incident(slug: "${slug}") { actionables { key value: description } } }`,
      `{ incidents(first: 10) { nodes { slug actionables { key } } } incident(slug: "${slug}") { actionables { key ...D } } } fragment D on Actionable { value: description }`,
    ];
    for (const query of shapes) {
      const res = await t.gql<{ incident: { actionables: { value?: string }[] } }>(query, {}, admin);
      expect([query, res.errors]).toEqual([query, undefined]);
      expect([query, res.data.incident.actionables.map((a) => a.value)]).toEqual([query, expected]);
      // Both statements, the list's and the detail's, sent the descriptions.
      const statements = await treeStatementsOf(query);
      expect([query, statements.map((text) => sentColumns(text).includes('a.description'))]).toEqual([query, [true, true]]);
    }
    // One document, two operations sharing the list through a fragment: each sends what it reads.
    const document = `query Keys { ...List } query Described { ...List incident(slug: "${slug}") { actionables { description } } }
      fragment List on Query { incidents(first: 10) { nodes { slug actionables { key } } } }`;
    for (const [operation, described] of [
      ['Keys', false],
      ['Described', true],
      ['Keys', false],
    ] as const) {
      const statements = await treeStatementsOf(document, operation);
      expect([operation, statements.map((text) => sentColumns(text).includes('a.description'))]).toEqual([operation, statements.map(() => described)]);
    }
  });
});
