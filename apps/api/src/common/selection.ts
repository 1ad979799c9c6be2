import {
  isAbstractType,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** The fields a query selected below a resolver, by name (aliases merged), fragments expanded. */
export interface Selection {
  has(name: string): boolean;
  /** The selection under a field (empty when the field is not selected). */
  at(...path: string[]): Selection;
}

/**
 * Look-ahead into the selection set, so a resolver fetches only what the query asks for.
 * Fields under @skip/@include count as selected: at worst a little more is fetched, never less.
 * Hand-written (about thirty lines) rather than a dependency: graphql-js exposes everything it needs.
 */
export function selectionOf(info: GraphQLResolveInfo): Selection {
  return build(info.fieldNodes.map((f) => f.selectionSet).filter((s): s is SelectionSetNode => s !== undefined), info.fragments);
}

/**
 * `derive(selectionOf(info), info)`, worked out once per field of a parsed operation. Apollo
 * keeps one parse per distinct query text, so a repeated query brings back the same field node,
 * and what a field selected depends on nothing else (not on variables: fields under
 * @skip/@include count as selected). `derive` may also read the operation (`fieldsSelectedOn`),
 * so a node is known per operation (a fragment's node can serve two operations of one document).
 * A field selected twice under one name (two nodes) is worked out every time. `derive`'s result
 * is shared by every request of that document: it must not be changed.
 */
export function perSelection<T>(derive: (selection: Selection, info: GraphQLResolveInfo) => T): (info: GraphQLResolveInfo) => T {
  const known = new WeakMap<FieldNode, { operation: OperationDefinitionNode; value: T }>();
  return (info) => {
    const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
    if (node === null) return derive(selectionOf(info), info);
    const held = known.get(node);
    if (held !== undefined && held.operation === info.operation) return held.value;
    const value = derive(selectionOf(info), info);
    known.set(node, { operation: info.operation, value });
    return value;
  };
}

/** Per parsed operation: field names by the type they are selected on, and the unions worked out for an object type. */
const selectedOnType = new WeakMap<OperationDefinitionNode, { byParent: Map<string, Set<string>>; byObject: Map<string, ReadonlySet<string>> }>();

/**
 * The names of every field the operation selects on an object type, anywhere in it: through
 * fragments (every fragment of the document counts), on the interfaces and unions the type
 * belongs to, under any alias or directive. A resolver that hands records to that type's fields
 * may leave out what none of these reads. Worked out once per parsed operation.
 */
export function fieldsSelectedOn(info: GraphQLResolveInfo, objectType: string): ReadonlySet<string> {
  let entry = selectedOnType.get(info.operation);
  if (entry === undefined) {
    const byParent = new Map<string, Set<string>>();
    const collect = (root: ASTNode) => {
      const types = new TypeInfo(info.schema);
      visit(
        root,
        visitWithTypeInfo(types, {
          Field(node) {
            const parent = types.getParentType();
            if (!parent) return;
            const names = byParent.get(parent.name) ?? new Set<string>();
            names.add(node.name.value);
            byParent.set(parent.name, names);
          },
        }),
      );
    };
    collect(info.operation);
    for (const fragment of Object.values(info.fragments)) collect(fragment);
    entry = { byParent, byObject: new Map() };
    selectedOnType.set(info.operation, entry);
  }
  let fields = entry.byObject.get(objectType);
  if (fields === undefined) {
    const object = info.schema.getType(objectType);
    if (!isObjectType(object)) throw new Error(`fieldsSelectedOn: the schema has no object type ${objectType}`);
    const union = new Set<string>();
    for (const [parent, names] of entry.byParent) {
      const type = info.schema.getType(parent);
      const applies = parent === objectType || (isAbstractType(type) && info.schema.isSubType(type, object));
      if (applies) for (const n of names) union.add(n);
    }
    fields = union;
    entry.byObject.set(objectType, fields);
  }
  return fields;
}

function build(sets: SelectionSetNode[], fragments: Record<string, FragmentDefinitionNode>): Selection {
  const fields = new Map<string, FieldNode[]>();
  const visit = (set: SelectionSetNode, seen: Set<string>) => {
    for (const s of set.selections) {
      if (s.kind === 'Field') {
        const list = fields.get(s.name.value) ?? [];
        list.push(s);
        fields.set(s.name.value, list);
      } else if (s.kind === 'InlineFragment') {
        visit(s.selectionSet, seen);
      } else if (!seen.has(s.name.value) && fragments[s.name.value]) {
        visit(fragments[s.name.value]!.selectionSet, new Set([...seen, s.name.value]));
      }
    }
  };
  for (const set of sets) visit(set, new Set());
  return {
    has: (name) => fields.has(name),
    at: (...path) => {
      if (path.length === 0) return build(sets, fragments);
      const [head, ...rest] = path;
      const below = (fields.get(head!) ?? []).map((f) => f.selectionSet).filter((x): x is SelectionSetNode => x !== undefined);
      const next = build(below, fragments);
      return rest.length > 0 ? next.at(...rest) : next;
    },
  };
}

/** The selection of a connection's nodes: `nodes { … }` and `edges { node { … } }` together. */
export function nodesOf(selection: Selection): Selection {
  const a = selection.at('nodes');
  const b = selection.at('edges', 'node');
  return { has: (n) => a.has(n) || b.has(n), at: (...p) => merge(a.at(...p), b.at(...p)) };
}

function merge(a: Selection, b: Selection): Selection {
  return { has: (n) => a.has(n) || b.has(n), at: (...p) => merge(a.at(...p), b.at(...p)) };
}
