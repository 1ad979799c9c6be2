import { buildSchema, execute, parse, type GraphQLResolveInfo } from 'graphql';
import { fieldsSelectedOn, perSelection } from './selection';

/**
 * `fieldsSelectedOn` finds every field of an object type an operation selects, wherever it is:
 * directly, through named and inline fragments, on an interface or a union the type belongs to.
 * `perSelection` works a field's value out once per operation, so a fragment's field shared by
 * two operations of one document is worked out for each.
 */
describe('fields an operation selects on a type', () => {
  const schema = buildSchema(`
    interface Named { name: String }
    type Item implements Named { name: String, size: Int, colour: String, owner: Person }
    type Person implements Named { name: String, items: [Item!]! }
    union Thing = Item | Person
    type Query { items: [Item!]!, person: Person, things: [Thing!]!, named: [Named!]! }
  `);
  const item = { name: 'cup', size: 2, colour: 'red' };
  const person = { name: 'Ada', items: [item] };
  const rootValue = { items: [item], person, things: [{ __typename: 'Item', ...item }], named: [{ __typename: 'Item', ...item }] };

  /** Runs an operation of a parsed document, recording what `fieldsSelectedOn(info, 'Item')` answered at the root field `field`. */
  function itemFieldsAt(document: ReturnType<typeof parse>, field: string, operationName?: string): string[] {
    let seen: string[] | null = null;
    const fieldResolver = (source: Record<string, unknown>, _args: unknown, _context: unknown, info: GraphQLResolveInfo) => {
      if (info.fieldName === field && info.parentType.name === 'Query') seen = [...fieldsSelectedOn(info, 'Item')].sort();
      return source[info.fieldName];
    };
    const typeResolver = (value: { __typename?: string }) => value.__typename ?? 'Item';
    const result = execute({ schema, document, rootValue, operationName, fieldResolver, typeResolver }) as { errors?: unknown };
    expect(result.errors).toBeUndefined();
    return seen ?? [];
  }

  it('finds the fields selected directly, through fragments, interfaces and unions, and under another root field', () => {
    const doc = parse(`{
      items { name }
      person { items { ...F } }
      things { ... on Item { colour } ... on Person { name } }
      named { ... on Named { __typename } }
    }
    fragment F on Item { owner { name } }`);
    // Item's own fields, the interface's __typename; Person's name is Person's, not Item's.
    expect(itemFieldsAt(doc, 'items')).toEqual(['__typename', 'colour', 'name', 'owner']);
  });

  it('finds a field selected on an interface the type implements', () => {
    expect(itemFieldsAt(parse(`{ items { size } named { name } }`), 'items')).toEqual(['name', 'size']);
    expect(itemFieldsAt(parse(`{ items { size } person { name } }`), 'items')).toEqual(['size']);
  });

  it('works a field out per operation when a fragment serves two operations of one document', () => {
    const doc = parse(`
      query A { ...Shared }
      query B { ...Shared person { items { colour } } }
      fragment Shared on Query { items { name } }`);
    const derived: string[][] = [];
    const sizes = perSelection((_selection, info) => [...fieldsSelectedOn(info, 'Item')].sort());
    const run = (operationName: string) =>
      execute({
        schema,
        document: doc,
        rootValue,
        operationName,
        fieldResolver: (source: Record<string, unknown>, _a: unknown, _c: unknown, info: GraphQLResolveInfo) => {
          if (info.fieldName === 'items' && info.parentType.name === 'Query') derived.push(sizes(info));
          return source[info.fieldName];
        },
      });
    run('A');
    run('B');
    run('A');
    expect(derived).toEqual([['name'], ['colour', 'name'], ['name']]);
  });
});
