import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { currentSdl } from '../apps/api/src/cli/schema';

/**
 * The rules of the README's "API conventions", checked over the schema the code produces, so a
 * new field that breaks one fails here instead of in a client.
 */
describe('API conventions hold for every type and field', () => {
  let schema: GraphQLSchema;
  let objects: GraphQLObjectType[];
  beforeAll(async () => {
    schema = buildSchema(await currentSdl());
    objects = Object.values(schema.getTypeMap()).filter((t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith('__'));
  });

  const fieldsOf = (t: GraphQLObjectType) => Object.values(t.getFields()) as GraphQLField<unknown, unknown>[];
  const typeName = (f: { type: Parameters<typeof getNamedType>[0] }) => getNamedType(f.type)!.name;
  const everyField = () => objects.flatMap((t) => fieldsOf(t).map((f) => ({ owner: t.name, f })));
  const everyInputField = () =>
    Object.values(schema.getTypeMap())
      .filter(isInputObjectType)
      .flatMap((t) => (Object.values(t.getFields()) as GraphQLInputField[]).map((f) => ({ owner: t.name, f })));

  it('gives every object with an id the Node interface', () => {
    const node = schema.getType('Node');
    expect(isInterfaceType(node)).toBe(true);
    const withId = objects.filter((t) => t.getFields().id);
    expect(withId.length).toBeGreaterThan(10);
    expect(withId.filter((t) => !t.getInterfaces().some((i) => i.name === 'Node')).map((t) => t.name)).toEqual([]);
  });

  it('gives every mutation one `input` of its own input type and a payload of its own', () => {
    const mutations = Object.values(schema.getMutationType()!.getFields());
    expect(mutations.length).toBeGreaterThan(20);
    const wrong = mutations.filter((m) => {
      const name = m.name[0]!.toUpperCase() + m.name.slice(1);
      const [arg, ...rest] = m.args;
      const payload = isNonNullType(m.type) ? m.type.ofType : null;
      return rest.length > 0 || arg?.name !== 'input' || !isNonNullType(arg.type) || typeName(arg) !== `${name}Input` || !isObjectType(payload) || payload.name !== `${name}Payload`;
    });
    expect(wrong.map((m) => m.name)).toEqual([]);
  });

  it('leaves Input and Payload types to mutations: queries take plain arguments', () => {
    const queries = Object.values(schema.getQueryType()!.getFields());
    const mutationShaped = queries.filter((q) => typeName(q).endsWith('Payload') || q.args.some((a) => typeName(a).endsWith('Input') && !typeName(a).endsWith('FilterInput') && typeName(a) !== 'ParameterValueInput'));
    expect(mutationShaped.map((q) => q.name)).toEqual([]);
  });

  it('pages every connection both ways and gives it the Relay fields', () => {
    const connections = objects.filter((t) => t.name.endsWith('Connection'));
    expect(connections.length).toBeGreaterThanOrEqual(7);
    for (const c of connections) expect([c.name, ...['edges', 'nodes', 'pageInfo', 'totalCount'].filter((f) => !c.getFields()[f])]).toEqual([c.name]);
    const returning = everyField().filter(({ f }) => typeName(f).endsWith('Connection'));
    expect(returning.length).toBeGreaterThanOrEqual(8);
    const oneWay = returning.filter(({ f }) => !['first', 'after', 'last', 'before'].every((a) => f.args.some((x) => x.name === a)));
    expect(oneWay.map(({ owner, f }) => `${owner}.${f.name}`)).toEqual([]);
  });

  it('types every instant as DateTime and every due date as Date', () => {
    const all = [...everyField(), ...everyInputField()];
    const instants = all.filter(({ f }) => f.name === 'at' || /[a-z]At$/.test(f.name));
    expect(instants.length).toBeGreaterThan(10);
    expect(instants.filter(({ f }) => typeName(f) !== 'DateTime').map(({ owner, f }) => `${owner}.${f.name}`)).toEqual([]);
    const days = all.filter(({ f }) => /(^d|D)ue(Date|Before)$/.test(f.name));
    expect(days.filter(({ f }) => typeName(f) !== 'Date').map(({ owner, f }) => `${owner}.${f.name}`)).toEqual([]);
  });

  it('returns the entity, never its key, from a field named after an entity, and names keys …Key', () => {
    // A field is named after an entity (a Node type) when its name is the type's (`incident`), or
    // the type's without the `Model` of the model types (`scenario`, `run`).
    const lower = (name: string) => name[0]!.toLowerCase() + name.slice(1);
    const types = new Map<string, GraphQLNamedType>();
    for (const t of objects.filter((o) => o.getInterfaces().some((i) => i.name === 'Node'))) {
      types.set(lower(t.name), t);
      if (/^Model[A-Z]/.test(t.name)) types.set(lower(t.name.slice(5)), t);
    }
    const named = everyField().filter(({ f }) => types.has(f.name) && !isObjectType(getNamedType(f.type)));
    expect(named.map(({ owner, f }) => `${owner}.${f.name}: ${typeName(f)}`)).toEqual([]);
    const keys = everyField().filter(({ f }) => /Key$/.test(f.name));
    expect(keys.length).toBeGreaterThan(3);
    expect(keys.filter(({ f }) => typeName(f) !== 'String' || isListType(f.type)).map(({ owner, f }) => `${owner}.${f.name}`)).toEqual([]);
  });
});
