import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  getNamedType,
  getNullableType,
  isListType,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { AppError } from '@hindsight/domain';
import type { AppConfig } from '../config/app-config';

/** The limit a refusal names, after the env var that sets it. */
type Measure = 'tokens' | 'aliases' | 'depth' | 'directives' | 'cost';

const SETTING: Record<Measure, string> = {
  tokens: 'GRAPHQL_MAX_TOKENS',
  aliases: 'GRAPHQL_MAX_ALIASES',
  depth: 'GRAPHQL_MAX_DEPTH',
  directives: 'GRAPHQL_MAX_DIRECTIVES',
  cost: 'GRAPHQL_MAX_COST',
};

/** The largest page a connection serves (`first` is capped at 100); the cost of an omitted `first`. */
const MAX_PAGE_SIZE = 100;

/** Fields the cost analysis visits at most (fragments are visited at every spread). */
const MAX_EVALUATED_NODES = 10_000;

/** Costs kept per document, one per (operation name, variables); a client sending endless variable sets only recomputes. */
const MAX_COSTS_PER_DOCUMENT = 64;
/** Longest variables JSON a cost is kept under; longer ones are recomputed every time. */
const MAX_COST_KEY_LENGTH = 2_048;

/** Query texts remembered as within the token limit (the oldest is forgotten first). */
const MAX_COUNTED_SOURCES = 1_000;
/** Longest query text remembered so; longer ones are counted every time. */
const MAX_COUNTED_SOURCE_LENGTH = 16_384;

function tooComplex(measure: Measure, limit: number, found: number | null, explanation: string): AppError {
  const what = found === null ? `more than ${limit}` : String(found);
  const size = measure === 'cost' ? `its cost is ${what}` : measure === 'depth' ? `it is nested ${what} levels deep` : `it has ${what} ${measure}`;
  return new AppError('QUERY_TOO_COMPLEX', `The operation is too large to run: ${size}; the limit is ${limit} (${SETTING[measure]}). ${explanation}`, {
    measure,
    limit,
    ...(found === null ? {} : { [measure]: found }),
  });
}

/**
 * Bounds on the size of one GraphQL operation, all checked before anything runs: tokens before
 * parsing, then aliases, depth and directives (graphql-armor's rules), then the cost over the
 * whole operation (graphql-query-complexity with the estimator below). Introspection counts like
 * any other field.
 */
export class OperationLimits {
  /**
   * The shape and cost of each parsed document, so an operation that repeats is analysed once.
   * Apollo keeps one parsed DocumentNode per distinct query text (its document store, an LRU), so
   * keying on the node object reuses the analysis exactly as long as Apollo reuses the parse; a
   * WeakMap lets both go together. The analysis depends only on the schema (fixed for the
   * server's life), the document, the operation name and the variables.
   */
  private readonly analysed = new WeakMap<DocumentNode, { shape: AppError | null; costs: Map<string, number> }>();

  /**
   * Query texts already counted and found within the token limit. Clients send the same few
   * documents again and again, so looking the text up (hashing it once) replaces lexing it on
   * every request; only texts that passed are kept, so a refusal is always counted afresh.
   */
  private readonly withinTokenLimit = new Set<string>();

  /**
   * @param countLimit what a field's `countUpTo` is when omitted (`LIST_COUNT_LIMIT`): a bounded
   * count costs the matches it may read, like the values of a list.
   */
  constructor(
    private readonly limits: AppConfig['graphql'],
    private readonly countLimit: number,
  ) {}

  /**
   * Counts the document's tokens with graphql's own lexer, stopping one past the limit. (graphql-
   * armor's token limit re-parses the document through a proxied lexer: about 10 ms for a
   * 5,000-token document on this kind of machine, where lexing alone takes under 1 ms, and this
   * runs for every request before anything else.) A syntax error is left to Apollo's parse.
   */
  checkTokens(source: string): AppError | null {
    if (this.withinTokenLimit.has(source)) return null;
    const lexer = new Lexer(new Source(source));
    let tokens = 0;
    try {
      while (lexer.advance().kind !== TokenKind.EOF) {
        if (++tokens > this.limits.maxTokens) return tooComplex('tokens', this.limits.maxTokens, null, 'Send a shorter document.');
      }
    } catch {
      // Not a GraphQL document: Apollo's parse reports where and why.
    }
    if (source.length <= MAX_COUNTED_SOURCE_LENGTH) {
      if (this.withinTokenLimit.size >= MAX_COUNTED_SOURCES) this.withinTokenLimit.delete(this.withinTokenLimit.values().next().value!);
      this.withinTokenLimit.add(source);
    }
    return null;
  }

  /** `checkShape`, then `checkCost` of `cost`: the first refusal, or null; remembered per document (see `analysed`). */
  checkOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined): AppError | null {
    let entry = this.analysed.get(document);
    if (!entry) {
      entry = { shape: this.checkShape(schema, document), costs: new Map() };
      this.analysed.set(document, entry);
    }
    if (entry.shape) return entry.shape;
    const key = `${operationName ?? ''}\u0000${variables === undefined ? '' : JSON.stringify(variables)}`;
    let cost = entry.costs.get(key);
    if (cost === undefined) {
      cost = this.cost(schema, document, operationName, variables);
      if (key.length <= MAX_COST_KEY_LENGTH && entry.costs.size < MAX_COSTS_PER_DOCUMENT) entry.costs.set(key, cost);
    }
    return this.checkCost(cost);
  }

  /** Aliases, depth (introspection's own nesting aside, which the cost bounds) and directives. */
  checkShape(schema: GraphQLSchema, document: DocumentNode): AppError | null {
    let refusal: AppError | null = null;
    const found = (error: GraphQLError): number | null => {
      const match = /found (\d+)/.exec(error.message);
      return match ? Number(match[1]) : null;
    };
    const on = (measure: Measure, limit: number, explanation: string) => [
      (_ctx: ValidationContext | null, error: GraphQLError) => {
        refusal ??= tooComplex(measure, limit, found(error), explanation);
      },
    ];
    const { maxAliases, maxDepth, maxDirectives } = this.limits;
    const rules: ValidationRule[] = [
      maxAliasesRule({ n: maxAliases, propagateOnRejection: false, onReject: on('aliases', maxAliases, 'Ask for each field once, or send several requests.') }),
      maxDepthRule({ n: maxDepth, flattenFragments: true, propagateOnRejection: false, onReject: on('depth', maxDepth, 'Nest fewer levels.') }),
      maxDirectivesRule({ n: maxDirectives, propagateOnRejection: false, onReject: on('directives', maxDirectives, 'Use fewer directives.') }),
    ];
    validate(schema, document, rules);
    return refusal;
  }

  /**
   * The operation's cost: every field counts 1, and a list multiplies its selection by its
   * size, which is its `first`/`last` argument (100 when a connection's `first` is omitted) or,
   * for a list without one, GRAPHQL_ASSUMED_LIST_SIZE. So the cost bounds the number of values
   * an answer can hold, aliases included. A bounded count (`facets(countUpTo)`) adds the matches
   * it may read, so aliases cannot repeat a count of 100,000 matches.
   */
  cost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined): number {
    try {
      return getComplexity({ schema, query: document, operationName, variables, estimators: [(args) => this.estimate(args)], maxQueryNodes: MAX_EVALUATED_NODES });
    } catch (error) {
      // Fragments spread into fragments can make a short document name a huge number of fields.
      if (error instanceof Error && /maximum allowed number of nodes/.test(error.message)) return Number.POSITIVE_INFINITY;
      // Variables that do not fit their types: execution refuses the whole operation with
      // BAD_USER_INPUT before any resolver runs, so there is nothing to bound here.
      if (error instanceof GraphQLError) return 0;
      throw error;
    }
  }

  checkCost(cost: number): AppError | null {
    if (cost <= this.limits.maxCost) return null;
    const refusal = tooComplex(
      'cost',
      this.limits.maxCost,
      Number.isFinite(cost) ? cost : null,
      `Each field counts 1 and a list multiplies its selection by its size (first/last, or ${this.limits.assumedListSize} for a list without them): ask for fewer fields, fewer aliases or smaller pages.`,
    );
    return refusal;
  }

  private estimate({ field, args, childComplexity, type }: ComplexityEstimatorArgs): number {
    const pageArg = [args.first, args.last].find((n): n is number => typeof n === 'number');
    const paginated = field.args.some((a) => a.name === 'first' || a.name === 'last');
    const isList = isListType(getNullableType(field.type));
    let size = 1;
    // A page over the cap is refused by its argument check, naming `first`; it costs the cap here.
    if (paginated) size = Math.max(1, Math.min(pageArg ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE));
    // A connection's `nodes`/`edges` hold the page its field has counted already.
    else if (isList) size = getNamedType(type).name.endsWith('Connection') ? 1 : this.limits.assumedListSize;
    // A bounded count (facets' `countUpTo`) reads up to that many matches: each costs like a value.
    const counted = field.args.some((a) => a.name === 'countUpTo') ? (typeof args.countUpTo === 'number' ? Math.max(0, args.countUpTo) : this.countLimit) : 0;
    return 1 + counted + size * childComplexity;
  }
}
