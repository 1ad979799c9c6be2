import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Actionable } from '../incidents/types/incident.types';
import { Node } from '../node/node.interface';

export const ModelRunStatusEnum = { QUEUED: 'queued', RUNNING: 'running', SUCCEEDED: 'succeeded', FAILED: 'failed' } as const;
registerEnumType(ModelRunStatusEnum, { name: 'ModelRunStatus' });

export const FixOutcomeEnum = { PREVENTED: 'PREVENTED', DELAYED: 'DELAYED', REDUCED: 'REDUCED', NOT_PREVENTED: 'NOT_PREVENTED', NO_FAILURE: 'NO_FAILURE' } as const;
registerEnumType(FixOutcomeEnum, {
  name: 'FixOutcome',
  description: "A fix scenario's run against the model's failure criterion, compared with the run it is judged against.",
  valuesMap: {
    PREVENTED: { description: 'The run never meets the failure criterion.' },
    DELAYED: { description: 'It meets it, later than the baseline (see delaySeconds).' },
    REDUCED: { description: 'It meets it as early, but for a shorter time or less far past the threshold.' },
    NOT_PREVENTED: { description: 'It meets it as early, and no shorter or shallower.' },
    NO_FAILURE: { description: 'The baseline run with the same values does not meet it either: nothing to prevent.' },
  },
});

export const CheckKindEnum = { REPRODUCES: 'reproduces', FITTED: 'fitted', CONSTRUCTION: 'construction' } as const;
registerEnumType(CheckKindEnum, {
  name: 'CheckKind',
  valuesMap: {
    REPRODUCES: { description: 'Reproduces a figure of the source the model was not fitted to: the only kind that is evidence.' },
    FITTED: { description: 'A parameter was chosen so that it passes.' },
    CONSTRUCTION: { description: "Holds by the arithmetic of the model's inputs." },
  },
});

export const ThresholdOpEnum = { BELOW: 'below', ABOVE: 'above' } as const;
registerEnumType(ThresholdOpEnum, { name: 'ThresholdOp', description: 'Which side of the threshold the metric is on while the failure holds.' });

export const ProvenanceKindEnum = { SOURCE: 'source', DERIVED: 'derived', ASSUMPTION: 'assumption' } as const;
registerEnumType(ProvenanceKindEnum, { name: 'ProvenanceKind' });

@ObjectType({ description: "A passage of the incident's source document and where it stands in it." })
export class SourceQuote {
  @Field() quote!: string;
  @Field() place!: string;
}

@ObjectType({ description: "Where a parameter's default comes from: a figure of the source, a derivation from such figures, or an assumption." })
export class ParameterProvenance {
  @Field(() => ProvenanceKindEnum) kind!: string;
  @Field(() => String, { nullable: true, description: 'SOURCE: the words of the source.' }) quote!: string | null;
  @Field(() => String, { nullable: true, description: 'SOURCE: where in the source.' }) place!: string | null;
  @Field(() => String, { nullable: true, description: 'DERIVED: the formula.' }) formula!: string | null;
  @Field(() => [SourceQuote], { description: 'DERIVED: the source figures the formula uses.' }) from!: SourceQuote[];
  @Field(() => String, { nullable: true, description: 'ASSUMPTION: why this value.' }) why!: string | null;
}

@ObjectType({ description: "A run against its model's failure criterion, read on the series the charts draw." })
export class FailureEvaluation {
  @Field({ description: 'The criterion in words.' }) criterion!: string;
  @Field() metric!: string;
  @Field() unit!: string;
  @Field() met!: boolean;
  @Field(() => Float, { nullable: true, description: 'Simulated seconds at which the first qualifying stretch starts.' }) onset!: number | null;
  @Field(() => Float, { description: 'Seconds the criterion holds, over every qualifying stretch.' }) duration!: number;
  @Field(() => Float, { nullable: true, description: 'Worst value of the metric while it holds.' }) worst!: number | null;
  @Field(() => Float, { description: 'How far the worst value is past the threshold.' }) magnitude!: number;
}

@ObjectType({ description: "Would this scenario's change have prevented the failure? Judged by the failure criterion, not by the scenario's checks." })
export class FixVerdict {
  @Field(() => FixOutcomeEnum) outcome!: string;
  @Field({ description: 'Why, in words, with the figures it rests on.' }) reason!: string;
  @Field(() => Float, { nullable: true, description: 'DELAYED: seconds later than the baseline.' }) delaySeconds!: number | null;
  @Field(() => FailureEvaluation) run!: FailureEvaluation;
  @Field(() => FailureEvaluation, { description: 'The run judged against.' }) baseline!: FailureEvaluation;
  @Field({ name: 'baselineScenarioKey', description: 'Key of the scenario of the baseline run, usually as-happened.' }) baselineScenario!: string;
}

@ObjectType({ description: 'A what-if value a scenario did not apply, because the scenario sets that parameter itself (its fix).' })
export class ParameterConflict {
  @Field() parameter!: string;
  @Field(() => Float) requested!: number;
  @Field(() => Float, { description: "The scenario's own value, which was used." }) applied!: number;
}

@ObjectType({ description: 'A parameter of a model, with its unit, range and default.' })
export class ModelParameter {
  @Field() name!: string;
  @Field() unit!: string;
  @Field(() => Float) default!: number;
  @Field(() => Float) min!: number;
  @Field(() => Float) max!: number;
  @Field() description!: string;
  @Field({ description: 'Only whole numbers are accepted.' }) integer!: boolean;
  @Field(() => ParameterProvenance, { nullable: true, description: 'Where the default comes from; null when the spec does not say.' }) provenance!: ParameterProvenance | null;
}

@ObjectType()
export class ParameterValue {
  @Field() name!: string;
  @Field(() => Float) value!: number;
}

@InputType()
export class ParameterValueInput {
  @Field() name!: string;
  @Field(() => Float) value!: number;
}

@ObjectType()
export class ModelSummaryFigure {
  @Field() name!: string;
  @Field() label!: string;
  @Field(() => Float, { nullable: true }) value!: number | null;
  @Field() unit!: string;
}

@ObjectType({ description: "A named comparison of the model's output with a figure from the postmortem." })
export class ModelCheck {
  @Field() name!: string;
  @Field() description!: string;
  @Field({ name: 'scenarioKey', description: 'Key of the scenario the check was evaluated on.' }) scenario!: string;
  @Field({ description: 'The expectation in words, e.g. "≈ 51,660 sessions (±2 %)".' }) expectedText!: string;
  @Field(() => Float, { nullable: true }) observed!: number | null;
  @Field() unit!: string;
  @Field(() => Float, { nullable: true }) tolerance!: number | null;
  @Field() pass!: boolean;
  @Field({ description: 'Why it passed, or what was observed instead and what the model leaves out.' }) explanation!: string;
  @Field(() => CheckKindEnum, { nullable: true, description: 'What passing means; only REPRODUCES is evidence. Null when the spec does not say.' }) kind!: string | null;
  @Field(() => SourceQuote, { nullable: true, description: 'The source figure reproduced or fitted to.' }) source!: SourceQuote | null;
}

@ObjectType({ description: 'One probe over simulated time; values align with ModelRun.time.' })
export class ModelSeries {
  @Field() key!: string;
  @Field() label!: string;
  @Field() metric!: string;
  @Field() unit!: string;
  @Field(() => [Float], { nullable: 'items' }) values!: (number | null)[];
}

@ObjectType({ description: 'A trigger or intervention of the scenario, on the simulated time axis.' })
export class ModelRunEvent {
  @Field() key!: string;
  @Field(() => Float, { name: 'time', description: 'Seconds of simulated time, on the axis of ModelRun.time.' }) at!: number;
  @Field() kind!: string;
  @Field() label!: string;
}

@ObjectType({ description: 'One execution of a model scenario. Identical inputs share one run.', implements: () => [Node] })
export class ModelRun extends Node {
  @Field(() => ModelRunStatusEnum) status!: string;
  @Field() scenarioKey!: string;
  @Field(() => Int) seed!: number;
  @Field() engineVersion!: string;
  @Field() queuedAt!: Date;
  @Field(() => Date, { nullable: true }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true }) finishedAt!: Date | null;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => Int, { nullable: true }) simulatedEvents!: number | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'Why the run failed, as a code. EVENT_BUDGET_EXCEEDED, MODEL_RESULT_TOO_LARGE and spec errors are the answer for these inputs; WALL_TIME_EXCEEDED, WORKER_FAILED, MODEL_RUN_OUT_OF_MEMORY, RUN_INTERRUPTED and LEASE_EXPIRED depend on the machine, and the same inputs run again when asked again.',
  })
  errorCode!: string | null;
  @Field(() => Int, { description: 'Times the run was started: a run whose process died is started again, a bounded number of times.' }) attempts!: number;
}

@ObjectType({ description: "A scenario of an incident's model: as it happened, or with one fix switched on.", implements: () => [Node] })
export class ModelScenario extends Node {
  @Field() key!: string;
  @Field() title!: string;
  @Field() description!: string;
  @Field(() => String, { nullable: true, description: 'The actionable whose fix this scenario switches on.' }) actionableKey!: string | null;
  @Field(() => Actionable, { nullable: true }) actionable?: Actionable | null;
}

@ObjectType({ description: "The executable model of an incident's failure." })
export class IncidentModel {
  @Field() key!: string;
  @Field() version!: string;
  @Field() title!: string;
  @Field() description!: string;
}

@ObjectType({ description: "What makes a model's run an outage." })
export class FailureCriterion {
  @Field() description!: string;
  @Field() metric!: string;
  @Field(() => ThresholdOpEnum) op!: string;
  @Field(() => Float, { description: 'Seconds the condition must hold.' }) sustain!: number;
  @Field(() => SourceQuote, { description: "The source's statement that the failure happened." }) source!: SourceQuote;
}

@ObjectType()
export class ScenarioComparison {
  @Field(() => ModelScenario) scenario!: ModelScenario;
  @Field(() => ModelRun) run!: ModelRun;
  @Field(() => [ParameterConflict], { description: 'What-if values this scenario kept its own value for instead of applying.' }) conflicts!: ParameterConflict[];
}

@ObjectType()
export class ScenarioFigure {
  @Field() scenarioKey!: string;
  @Field(() => Float, { nullable: true }) value!: number | null;
}

@ObjectType({ description: 'One summary figure across the scenarios.' })
export class ComparedFigure {
  @Field() name!: string;
  @Field() label!: string;
  @Field() unit!: string;
  @Field(() => [ScenarioFigure]) values!: ScenarioFigure[];
}

@ObjectType({ description: 'The as-happened run beside each fix, with the same parameters and seed.' })
export class ModelComparison {
  @Field(() => [ScenarioComparison]) scenarios!: ScenarioComparison[];
  @Field(() => [ComparedFigure]) figures!: ComparedFigure[];
}

@ObjectType({ implements: () => [Node] })
export class ModelSpecVersion extends Node {
  @Field() key!: string;
  @Field() version!: string;
  @Field() title!: string;
  @Field() checksum!: string;
  @Field() createdAt!: Date;
}
