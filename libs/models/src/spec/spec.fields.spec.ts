import path from 'node:path';
import ts from 'typescript';
import * as Fields from './spec.fields';

/*
 * The validator's field lists are written as records over the keys of the spec types, so a
 * drift fails to compile. This test reads the types themselves with the TypeScript compiler
 * and compares every property with the list the validator accepts, so a drift also fails
 * where the compile-time guard is bypassed (a list widened to string[], a cast).
 */

const TYPES_FILE = path.join(__dirname, 'model-spec.types.ts');

const LISTS: Record<string, readonly string[]> = {
  ModelSpec: Fields.TOP_FIELDS,
  EngineSpec: Fields.ENGINE_FIELDS,
  PoolSpec: Fields.POOL_FIELDS,
  CacheSpec: Fields.CACHE_FIELDS,
  QueueSpec: Fields.QUEUE_FIELDS,
  StationSpec: Fields.STATION_FIELDS,
  DistributionSpec: Fields.DISTRIBUTION_FIELDS,
  SlowdownSpec: Fields.SLOWDOWN_FIELDS,
  LookasideSpec: Fields.LOOKASIDE_FIELDS,
  EmitSpec: Fields.EMIT_FIELDS,
  CallSpec: Fields.CALL_FIELDS,
  ExclusiveCallSpec: Fields.EXCLUSIVE_CALL_FIELDS,
  ClientPolicySpec: Fields.POLICY_FIELDS,
  BackoffSpec: Fields.BACKOFF_FIELDS,
  RetryBudgetSpec: Fields.RETRY_BUDGET_FIELDS,
  SourceSpec: Fields.SOURCE_FIELDS,
  ScenarioSpec: Fields.SCENARIO_FIELDS,
  ProbeSpec: Fields.PROBE_FIELDS,
  FigureSpec: Fields.FIGURE_FIELDS,
  ExpectSpec: Fields.EXPECT_FIELDS,
  ParameterSpec: Fields.PARAMETER_FIELDS,
  SourceQuote: Fields.SOURCE_QUOTE_FIELDS,
  CheckSpec: Fields.CHECK_FIELDS,
  EnsembleCheckSpec: Fields.ENSEMBLE_CHECK_FIELDS,
  FailureCriterionSpec: Fields.FAILURE_FIELDS,
};

function declaredProperties(): Map<string, string[]> {
  const program = ts.createProgram([TYPES_FILE], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(TYPES_FILE)!;
  const out = new Map<string, string[]>();
  ts.forEachChild(file, (node) => {
    if (!ts.isInterfaceDeclaration(node) && !ts.isTypeAliasDeclaration(node)) return;
    const type = checker.getTypeAtLocation(node.name);
    const parts = type.isUnion() ? type.types : [type];
    const names = new Set<string>();
    for (const t of parts) for (const p of checker.getPropertiesOfType(t)) names.add(p.getName());
    out.set(node.name.text, [...names]);
  });
  return out;
}

describe('the validator accepts exactly the fields of the spec types', () => {
  const declared = declaredProperties();

  it.each(Object.keys(LISTS))('%s', (typeName) => {
    const props = declared.get(typeName);
    expect(props).toBeDefined();
    expect([...LISTS[typeName]!].sort()).toEqual([...props!].sort());
  });

  it('covers every object type of the spec with a list', () => {
    // Types that are not blocks of the JSON (value forms, names of kinds) need no field list.
    const notBlocks = new Set(['NumberValue', 'TimeValue', 'ParameterProvenance', 'CheckKind', 'DistributionKind', 'StatName', 'MeasureSpec', 'ControllerEventKind', 'ControllerEventSpec', 'EnsembleStat', 'DurationSpec', 'RetryCondition']);
    const missing = [...declared.keys()].filter((name) => !(name in LISTS) && !notBlocks.has(name));
    expect(missing).toEqual([]);
  });
});
