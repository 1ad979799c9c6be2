import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

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
 * `derive(selectionOf(info))`, worked out once per field of a parsed document. Apollo keeps one
 * parse per distinct query text, so a repeated query brings back the same field node, and what
 * a field selected depends on nothing else (not on variables: fields under @skip/@include count
 * as selected). A field selected twice under one name (two nodes) is worked out every time.
 * `derive`'s result is shared by every request of that document: it must not be changed.
 */
export function perSelection<T>(derive: (selection: Selection) => T): (info: GraphQLResolveInfo) => T {
  const known = new WeakMap<FieldNode, T>();
  return (info) => {
    const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
    if (node === null) return derive(selectionOf(info));
    let value = known.get(node);
    if (value === undefined) {
      value = derive(selectionOf(info));
      known.set(node, value);
    }
    return value;
  };
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
