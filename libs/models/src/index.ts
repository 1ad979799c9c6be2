/**
 * @hindsight/models — the executable failure-model engine. Pure TypeScript and Node
 * built-ins; imports nothing else of the project.
 */
export { ENGINE_VERSION } from './engine-version';

export { runModel, hashRunModelInput, DEFAULT_FLUID_STEP, DEFAULT_POINTS, FAILURE_CHECK, type RunModelInput } from './engine/model.engine';
export { validateSpec, SCENARIO_AS_HAPPENED } from './spec/model-spec.validator';
export { resolveParameters, parameterConflicts } from './spec/parameter.resolver';
export { DECIMAL, displayScale, durationUnit, formatDuration, formatNumber, formatPercent, formatQuantity, formatTickNumber } from './output/number.format';
export { evaluateFailure, judgeFix } from './output/failure.evaluator';
export type * from './spec/model-spec.types';
export { STATION_METRICS, POOL_METRICS, SOURCE_METRICS, EDGE_METRICS, CACHE_METRICS, type MetricInfo } from './engine/metric.catalog';

export * from './errors/model.error';

export { canonicalJson, hashRunInputs, type RunInputs } from './output/run-input.hash';
export type * from './output/model-run.types';

export { ModelRunner, DEFAULT_WORKER_RESOURCE_LIMITS, DEFAULT_MAX_RESULT_BYTES, type ModelRunnerOptions } from './runner/model.runner';
export { adaptiveRunOne, parallelLanes, MIN_PARALLEL_RUN_MS, type AdaptiveRunOne, type LaneInputs } from './runner/run-lanes';
export { runEnsemble, runSweep, findBoundary, sweepValues, describeSweep, describeBoundary, parseBoundaryFigure, boundaryTarget, type BoundaryTarget, type RunOne, type EnsembleOptions, type SweepAxis, type SweepOptions, type SweepPoint, type ModelSweepResult, type BoundaryOptions, type BoundaryFigure, type BoundaryProbe, type ModelBoundaryResult } from './runner/model.exploration';
export { aggregateEnsemble, ensembleSeeds, quantiles, describeEnsemble, type ModelEnsembleResult, type EnsembleSeries, type EnsembleFigure, type EnsembleFailure, type EnsembleRunRow, type EnsembleRun, type Quantiles } from './output/ensemble';
export { SpecLimits } from './spec/spec.limits';
export { renderRunChartsSvg, describeRunText, type RenderChartsOptions } from './chart/run-charts.renderer';
export { main as modelCli, loadModelSpec, findProjectRoot } from './cli/model-cli';

export { SimulationKernel, DEFAULT_RUN_BUDGET, type RunBudget } from './kernel/simulation.kernel';
export { EventQueue } from './kernel/event.queue';
export { RandomStream } from './kernel/random.stream';
