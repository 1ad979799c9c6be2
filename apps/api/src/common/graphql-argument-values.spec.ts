import { buildSchema, graphql, Kind } from 'graphql';
import type * as graphqlValues from 'graphql/execution/values';
import { NO_ARGUMENTS } from './graphql-argument-values';

describe('arguments of fields that define none', () => {
  const schema = buildSchema(`
    type Query { plain: Item, items: [Item!]!, counted(n: Int = 3): Int }
    type Item { name: String, tagged(prefix: String!): String }
  `);
  const seen: { field: string; args: Record<string, unknown> }[] = [];
  // graphql-js's default resolver calls a function-valued property with the field's arguments first.
  const record =
    (field: string, value: unknown) =>
    (args: Record<string, unknown>) => {
      seen.push({ field, args });
      return typeof value === 'function' ? (value as (a: Record<string, unknown>) => unknown)(args) : value;
    };
  const item = { name: record('name', 'a'), tagged: record('tagged', (a: Record<string, unknown>) => `${String(a.prefix)}a`) };
  const rootValue = { plain: record('plain', item), items: record('items', [item, item]), counted: record('counted', (a: Record<string, unknown>) => a.n) };

  beforeEach(() => (seen.length = 0));

  it('gives every field without arguments the one shared, frozen, empty plain object', async () => {
    const result = await graphql({ schema, rootValue, source: '{ plain { name } items { name } }' });
    expect(result).toEqual({ data: { plain: { name: 'a' }, items: [{ name: 'a' }, { name: 'a' }] } });
    expect(seen.map((s) => s.field)).toEqual(['plain', 'name', 'items', 'name', 'name']);
    for (const { args } of seen) {
      expect(args).toBe(NO_ARGUMENTS);
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      expect(Object.keys(args)).toEqual([]);
      expect(Object.isFrozen(args)).toBe(true);
    }
  });

  it('coerces the arguments of fields that define some as graphql-js does: defaults, literals and variables', async () => {
    const result = await graphql({ schema, rootValue, source: 'query($p: String!) { a: counted b: counted(n: 5) plain { tagged(prefix: $p) } }', variableValues: { p: 'x-' } });
    expect(result).toEqual({ data: { a: 3, b: 5, plain: { tagged: 'x-a' } } });
    expect(seen.filter((s) => s.field !== 'plain').map((s) => ({ field: s.field, args: { ...s.args } }))).toEqual([
      { field: 'counted', args: { n: 3 } },
      { field: 'counted', args: { n: 5 } },
      { field: 'tagged', args: { prefix: 'x-' } },
    ]);
    const tagged = seen.find((s) => s.field === 'tagged')!.args;
    expect(tagged).not.toBe(NO_ARGUMENTS);
    // The same kind of object as the shared one: graphql-js answers a plain object.
    expect(Object.getPrototypeOf(tagged)).toBe(Object.prototype);
  });

  it('still refuses an argument a field does not define, before anything runs', async () => {
    const result = await graphql({ schema, rootValue, source: '{ plain(limit: 1) { name } }' });
    expect(result.errors?.[0]?.message).toMatch(/Unknown argument "limit"/);
    expect(seen).toEqual([]);
  });

  it('is installed by the app module', () => {
    jest.isolateModules(() => {
      const fresh = jest.requireActual<typeof graphqlValues>('graphql/execution/values');
      const original = fresh.getArgumentValues;
      require('../app.module');
      expect(fresh.getArgumentValues).not.toBe(original);
      const def = buildSchema('type Query { plain: Int }').getQueryType()!.getFields().plain!;
      const { NO_ARGUMENTS: shared } = jest.requireActual<{ NO_ARGUMENTS: object }>('./graphql-argument-values');
      expect(fresh.getArgumentValues(def, { kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'plain' } })).toBe(shared);
    });
  });
});
