import {
  coerceInputValue,
  getNamedType,
  GraphQLError,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  TypeInfo,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { echo, type FieldProblem } from '@hindsight/domain';
import { CALENDAR_DATE_SCALAR_NAME, calendarDateProblem } from './calendar-date.scalar';
import { DATE_TIME_SCALAR_NAME, dateTimeProblem } from './date-time.scalar';

/** JSON arguments (model specs) nested deeper than this are refused before anything walks them. */
export const MAX_JSON_DEPTH = 32;
const MAX_PROBLEMS = 20;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text value cannot be stored, or null. Postgres refuses NUL; a lone surrogate is not Unicode. */
export function textProblem(text: string): string | null {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return `contains a NUL character (U+0000) at offset ${nul}; text must not contain NUL`;
  const lone = LONE_SURROGATE.exec(text);
  if (lone) return `contains a lone UTF-16 surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) at offset ${lone.index}; text must be valid Unicode`;
  return null;
}

/**
 * Every argument of the operation, literal or variable, checked before anything executes: each
 * value must coerce to its declared type, every string (including JSON keys and values) must be
 * storable text, every DateTime a real instant, every Date a real day, and JSON nested at most MAX_JSON_DEPTH levels.
 * Problems name the argument path (`input.title`, `filter.startedFrom`, `spec.stations[0]`).
 *
 * One walk over the arguments instead of a check in each resolver: a new mutation is covered the
 * day it is added. Hand-written because graphql-js's own coercion reports variables by variable
 * name and does not look inside strings.
 */
export function findInputProblems(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, reason: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ field, reason });
  };

  let root = '';
  const walkJson = (value: unknown, field: string, depth: number): void => {
    if (depth > MAX_JSON_DEPTH) return add(root, `is nested more than ${MAX_JSON_DEPTH} levels deep (at ${field.slice(0, 120)}…)`);
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) add(field, problem);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walkJson(v, `${field}[${i}]`, depth + 1));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const problem = textProblem(k);
        if (problem) add(`${field}.${echo(k).slice(1, -1)}`, `key ${problem}`);
        walkJson(v, `${field}.${k}`, depth + 1);
      }
    }
  };

  /** A value already coerced to its type's shape: look inside its strings. */
  const walkValue = (value: unknown, type: GraphQLInputType, field: string): void => {
    if (value === null || value === undefined) return;
    const t = isNonNullType(type) ? type.ofType : type;
    if (isListType(t)) {
      if (Array.isArray(value)) value.forEach((v, i) => walkValue(v, t.ofType, `${field}[${i}]`));
      else walkValue(value, t.ofType, field);
      return;
    }
    if (isInputObjectType(t)) {
      if (typeof value !== 'object') return;
      const fields = t.getFields();
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const f = fields[k];
        if (f) walkValue(v, f.type, `${field}.${k}`);
      }
      return;
    }
    const name = getNamedType(t).name;
    if (name === 'String' || name === 'ID') {
      if (typeof value === 'string') {
        const problem = textProblem(value);
        if (problem) add(field, problem);
      }
    } else if (name === 'JSON') {
      root = field;
      walkJson(value, field, 0);
    }
  };

  const walkNode = (node: ValueNode, type: GraphQLInputType, field: string): void => {
    const t = isNonNullType(type) ? type.ofType : type;
    if (node.kind === Kind.VARIABLE) {
      const raw = variables[node.name.value];
      if (raw === undefined) return;
      const before = problems.length;
      coerceInputValue(raw, type, (path, _invalid, error) => {
        const at = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
        const original = error.originalError as { details?: { problems?: FieldProblem[] } } | undefined;
        add(`${field}${at}`, original?.details?.problems?.[0]?.reason ?? error.message);
      });
      if (problems.length === before) walkValue(raw, type, field);
      return;
    }
    if (node.kind === Kind.NULL) return;
    if (isListType(t)) {
      if (node.kind === Kind.LIST) node.values.forEach((v, i) => walkNode(v, t.ofType, `${field}[${i}]`));
      else walkNode(node, t.ofType, field);
      return;
    }
    if (isInputObjectType(t)) {
      if (node.kind !== Kind.OBJECT) return;
      const fields = t.getFields();
      for (const f of node.fields) {
        const def = fields[f.name.value];
        if (def) walkNode(f.value, def.type, `${field}.${f.name.value}`);
      }
      return;
    }
    const name = getNamedType(t).name;
    if (name === 'JSON') {
      root = field;
      return walkJson(valueFromASTUntyped(node, variables), field, 0);
    }
    if (node.kind !== Kind.STRING) return;
    if (name === DATE_TIME_SCALAR_NAME || name === CALENDAR_DATE_SCALAR_NAME) {
      const problem = name === DATE_TIME_SCALAR_NAME ? dateTimeProblem(node.value) : calendarDateProblem(node.value);
      if (problem) add(field, problem);
      return;
    }
    const problem = textProblem(node.value);
    if (problem) add(field, problem);
  };

  for (const argument of operationArguments(schema, document, operation)) walkNode(argument.value, argument.type, argument.name);
  return problems;
}

/** One argument of an operation (or of a fragment it may spread), with its declared type. */
interface OperationArgument {
  name: string;
  value: ValueNode;
  type: GraphQLInputType;
}

/**
 * The arguments an operation's document holds, found by one walk with the schema's type
 * information. Apollo keeps each distinct query text parsed once, so the same operation node comes
 * back for a repeated operation and its arguments are looked up instead of walked again; the
 * values of its variables are still checked on every request.
 */
const argumentsOf = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; args: OperationArgument[] }>();

function operationArguments(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): OperationArgument[] {
  const known = argumentsOf.get(operation);
  if (known && known.schema === schema) return known.args;
  const args: OperationArgument[] = [];
  const definitions = [operation, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)];
  for (const definition of definitions) {
    const typeInfo = new TypeInfo(schema);
    visit(
      definition,
      visitWithTypeInfo(typeInfo, {
        Argument(node) {
          const argument = typeInfo.getArgument();
          if (argument) args.push({ name: node.name.value, value: node.value, type: argument.type });
          return false;
        },
      }),
    );
  }
  argumentsOf.set(operation, { schema, args });
  return args;
}

interface ResolvedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation?: OperationDefinitionNode | null;
  request: { variables?: Record<string, unknown> };
}

/** Refuses an operation whose arguments fail findInputProblems, before it executes: nothing is written. */
export function inputGuardPlugin() {
  return {
    async requestDidStart() {
      return {
        // Typed structurally, as explorer.plugin.ts is: Apollo's CJS and ESM typings clash.
        async didResolveOperation({ schema, document, operation, request }: ResolvedOperation) {
          if (!operation) return;
          const problems = findInputProblems(schema, document, operation, request.variables ?? {});
          if (problems.length === 0) return;
          throw new GraphQLError(problems.map((p) => `${p.field}: ${p.reason}`).join('; '), {
            extensions: { code: 'BAD_USER_INPUT', field: problems[0]!.field, problems, http: { status: 400 } },
          });
        },
      };
    },
  };
}
