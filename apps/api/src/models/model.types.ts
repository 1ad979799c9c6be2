import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Actionable } from '../incidents/types/incident.types';

export const ModelRunStatusEnum = { QUEUED: 'queued', RUNNING: 'running', SUCCEEDED: 'succeeded', FAILED: 'failed' } as const;
registerEnumType(ModelRunStatusEnum, { name: 'ModelRunStatus' });

@ObjectType({ description: 'A parameter of a model, with its unit, range and default.' })
export class ModelParameter {
  @Field() name!: string;
  @Field() unit!: string;
  @Field(() => Float) default!: number;
  @Field(() => Float) min!: number;
  @Field(() => Float) max!: number;
  @Field() description!: string;
  @Field({ description: 'Only whole numbers are accepted.' }) integer!: boolean;
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
  @Field({ description: 'The scenario the check was evaluated on.' }) scenario!: string;
  @Field({ description: 'The expectation in words, e.g. "≈ 51,660 sessions (±2 %)".' }) expectedText!: string;
  @Field(() => Float, { nullable: true }) observed!: number | null;
  @Field() unit!: string;
  @Field(() => Float, { nullable: true }) tolerance!: number | null;
  @Field() pass!: boolean;
  @Field({ description: 'Why it passed, or what was observed instead and what the model leaves out.' }) explanation!: string;
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
  @Field(() => Float, { description: 'Seconds of simulated time.' }) at!: number;
  @Field() kind!: string;
  @Field() label!: string;
}

@ObjectType({ description: 'One execution of a model scenario. Identical inputs share one run.' })
export class ModelRun {
  @Field(() => ID) id!: string;
  @Field(() => ModelRunStatusEnum) status!: string;
  @Field() scenarioKey!: string;
  @Field(() => Int) seed!: number;
  @Field() engineVersion!: string;
  @Field() specVersion!: string;
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

@ObjectType()
export class ModelScenario {
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

@ObjectType()
export class ScenarioComparison {
  @Field(() => ModelScenario) scenario!: ModelScenario;
  @Field(() => ModelRun) run!: ModelRun;
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

@ObjectType()
export class ModelSpecVersion {
  @Field(() => ID) id!: string;
  @Field() key!: string;
  @Field() version!: string;
  @Field() title!: string;
  @Field() checksum!: string;
  @Field() createdAt!: Date;
}
