import { Field, Float, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { FixOutcomeEnum, ModelCheck, ParameterValueInput } from './model.types';

export enum ExplorationStatusEnum {
  COMPLETE = 'COMPLETE',
  PENDING = 'PENDING',
}
registerEnumType(ExplorationStatusEnum, {
  name: 'ExplorationStatus',
  description: 'COMPLETE, or PENDING while queue workers still run some of its runs: ask again (finished runs are stored and not run twice).',
});

@InputType({ isAbstract: true })
class ExplorationBaseInput {
  @Field({ description: 'Incident slug.' }) incident!: string;
  @Field({ defaultValue: 'as-happened' }) scenario!: string;
  @Field(() => [ParameterValueInput], { nullable: true, description: 'What-if values shared by every run (a scenario keeps its own).' }) parameters?: ParameterValueInput[] | null;
  @Field(() => Int, { nullable: true, description: 'The (first) seed; default the installation seed.' }) seed?: number | null;
}

@InputType()
export class RunModelEnsembleInput extends ExplorationBaseInput {
  @Field(() => Int, { description: 'Runs, with seeds seed, seed + 1, … (at most the engine limit, 200).' }) seeds!: number;
}

@InputType()
export class SweepAxisInput {
  @Field() parameter!: string;
  @Field(() => Float) from!: number;
  @Field(() => Float) to!: number;
  @Field(() => Int, { description: 'Evenly spaced values from `from` to `to`.' }) count!: number;
}

@InputType()
export class RunModelSweepInput extends ExplorationBaseInput {
  @Field(() => [SweepAxisInput], { description: 'One or two parameters (at most 400 runs in all).' }) axes!: SweepAxisInput[];
}

export enum BoundaryFigureOpEnum {
  ABOVE = 'above',
  BELOW = 'below',
}
registerEnumType(BoundaryFigureOpEnum, { name: 'BoundaryFigureOp', description: 'Which side of the value a figure must be on (strictly) for the target to hold.' });

@InputType({ description: 'A summary figure of the run crossing a value, e.g. peak-queue ABOVE 500.' })
export class BoundaryFigureInput {
  @Field({ description: "Name of one of the model's figures (ModelRun.summary)." }) name!: string;
  @Field(() => BoundaryFigureOpEnum) op!: BoundaryFigureOpEnum;
  @Field(() => Float, { description: "In the figure's unit; a ratio as a share (0.05 for 5 %)." }) value!: number;
}

@InputType()
export class FindModelBoundaryInput extends ExplorationBaseInput {
  @Field() parameter!: string;
  @Field(() => Float) from!: number;
  @Field(() => Float) to!: number;
  @Field(() => Float, { nullable: true, description: 'Bracket width to stop at (default a thousandth of the range; 1 for whole-number parameters).' }) tolerance?: number | null;
  @Field(() => String, { nullable: true, description: "Name of a check evaluated on the scenario: bisect on whether it passes instead of on the model's failure criterion." }) check?: string | null;
  @Field(() => BoundaryFigureInput, { nullable: true, description: "Bisect on a summary figure being above or below a value instead of on the model's failure criterion; not with `check`." })
  figure?: BoundaryFigureInput | null;
}

@ObjectType({ description: 'A value over the runs of an ensemble.' })
export class EnsembleQuantiles {
  @Field(() => Float, { nullable: true }) mean!: number | null;
  @Field(() => Float, { nullable: true, description: 'Standard deviation over the runs.' }) sd!: number | null;
  @Field(() => Float, { nullable: true }) min!: number | null;
  @Field(() => Float, { nullable: true }) max!: number | null;
  @Field(() => Float, { nullable: true }) p10!: number | null;
  @Field(() => Float, { nullable: true }) p50!: number | null;
  @Field(() => Float, { nullable: true }) p90!: number | null;
  @Field(() => Int, { description: 'Runs in which the value is defined.' }) n!: number;
}

@ObjectType()
export class EnsembleFigure extends EnsembleQuantiles {
  @Field() name!: string;
  @Field() label!: string;
  @Field() unit!: string;
}

@ObjectType({ description: 'A probe over the runs of an ensemble, per output point: the mean and the 10th, 50th and 90th percentile.' })
export class EnsembleSeries {
  @Field() key!: string;
  @Field() label!: string;
  @Field() metric!: string;
  @Field() unit!: string;
  @Field(() => [Float], { nullable: 'items' }) mean!: (number | null)[];
  @Field(() => [Float], { nullable: 'items' }) p10!: (number | null)[];
  @Field(() => [Float], { nullable: 'items' }) p50!: (number | null)[];
  @Field(() => [Float], { nullable: 'items' }) p90!: (number | null)[];
}

@ObjectType()
export class EnsembleFailure {
  @Field() criterion!: string;
  @Field(() => Int, { description: 'Runs meeting the failure criterion.' }) met!: number;
  @Field(() => Int) runs!: number;
  @Field(() => Float, { description: 'met / runs.' }) probability!: number;
  @Field(() => EnsembleQuantiles, { description: 'Onset (s) over the runs that meet it.' }) onset!: EnsembleQuantiles;
  @Field(() => EnsembleQuantiles, { description: 'Seconds the criterion holds, over all runs.' }) duration!: EnsembleQuantiles;
}

@ObjectType()
export class EnsembleVerdictCount {
  @Field(() => FixOutcomeEnum) outcome!: string;
  @Field(() => Int) runs!: number;
}

@ObjectType()
export class EnsembleCheckSkipped {
  @Field() name!: string;
  @Field() reason!: string;
}

@ObjectType({ description: 'One scenario run with consecutive seeds, summarised.' })
export class ModelEnsemble {
  @Field({ description: 'Hash of the runs’ own input hashes.' }) inputHash!: string;
  @Field({ name: 'scenarioKey' }) scenario!: string;
  @Field(() => [Int], { description: 'At most 200.' }) seeds!: number[];
  @Field(() => [Float]) time!: number[];
  @Field(() => [EnsembleSeries], { description: 'One per probe of the model (at most 200).' }) series!: EnsembleSeries[];
  @Field(() => [EnsembleFigure]) summary!: EnsembleFigure[];
  @Field(() => EnsembleFailure, { nullable: true }) failure!: EnsembleFailure | null;
  @Field(() => [EnsembleVerdictCount], { nullable: true, description: 'For a fix scenario: runs per verdict, each judged against its baseline with the same seed.' }) verdicts!: EnsembleVerdictCount[] | null;
  @Field(() => [ModelCheck], { description: 'The spec’s ensemble checks for this scenario.' }) checks!: ModelCheck[];
  @Field(() => [EnsembleCheckSkipped], { description: 'Ensemble checks that need more runs than this ensemble has.' }) notEvaluated!: EnsembleCheckSkipped[];
  @Field({ description: 'The ensemble in words.' }) text!: string;
}

@ObjectType()
export class RunModelEnsemblePayload {
  @Field(() => ExplorationStatusEnum) status!: string;
  @Field(() => Int) runsFinished!: number;
  @Field(() => ModelEnsemble, { nullable: true, description: 'Null while PENDING.' }) ensemble!: ModelEnsemble | null;
}

@ObjectType()
export class SweepAxis {
  @Field() parameter!: string;
  @Field() unit!: string;
  @Field(() => [Float]) values!: number[];
}

@ObjectType()
export class SweepFigureValue {
  @Field() name!: string;
  @Field(() => Float, { nullable: true }) value!: number | null;
}

@ObjectType()
export class SweepParameterValue {
  @Field() parameter!: string;
  @Field(() => Float) value!: number;
}

@ObjectType()
export class SweepPoint {
  @Field(() => [SweepParameterValue]) values!: SweepParameterValue[];
  @Field(() => Boolean, { nullable: true, description: 'Whether the run meets the failure criterion; null without one or when the run failed.' }) failureMet!: boolean | null;
  @Field(() => Float, { nullable: true }) onset!: number | null;
  @Field(() => Float, { nullable: true }) duration!: number | null;
  @Field(() => FixOutcomeEnum, { nullable: true }) verdict!: string | null;
  @Field(() => [SweepFigureValue]) figures!: SweepFigureValue[];
  @Field(() => String, { nullable: true, description: 'Error code of a run that could not complete (e.g. EVENT_BUDGET_EXCEEDED).' }) errorCode!: string | null;
}

@ObjectType({ description: 'A scenario run at every point of a grid over one or two parameters (at most 400 points).' })
export class ModelSweep {
  @Field({ name: 'scenarioKey' }) scenario!: string;
  @Field(() => Int) seed!: number;
  @Field(() => [SweepAxis]) axes!: SweepAxis[];
  @Field(() => String, { name: 'criterion', nullable: true, description: "The model's failure criterion in words; null when it states none." }) failureCriterion!: string | null;
  @Field(() => [SweepPoint]) points!: SweepPoint[];
  @Field() text!: string;
}

@ObjectType()
export class RunModelSweepPayload {
  @Field(() => ExplorationStatusEnum) status!: string;
  @Field(() => Int) runsFinished!: number;
  @Field(() => ModelSweep, { nullable: true }) sweep!: ModelSweep | null;
}

export enum BoundaryTargetEnum {
  FAILURE = 'failure',
  CHECK = 'check',
  FIGURE = 'figure',
}
registerEnumType(BoundaryTargetEnum, { name: 'BoundaryTarget', description: "What a boundary search bisects on: the model's failure criterion, a named check passing, or a figure beyond a value." });

@ObjectType({ description: 'The figure a FIGURE boundary search bisects on, and the value it must cross.' })
export class BoundaryFigureTarget {
  @Field() name!: string;
  @Field() label!: string;
  @Field() unit!: string;
  @Field(() => BoundaryFigureOpEnum) op!: BoundaryFigureOpEnum;
  @Field(() => Float) value!: number;
}

@ObjectType()
export class BoundaryProbe {
  @Field(() => Float) value!: number;
  @Field() failureMet!: boolean;
  @Field(() => Boolean, { nullable: true, description: 'With a CHECK target: whether the check passed on this run; otherwise null.' }) checkPassed!: boolean | null;
  @Field(() => Float, { nullable: true, description: "With a FIGURE target: the figure's value on this run (null when undefined, which is never beyond the value; the text then says where it is undefined); otherwise null." })
  figureValue!: number | null;
}

@ObjectType({ description: 'Where, between two values of one parameter, the failure criterion (or a named check, or a figure crossing a value) flips (bisection; assumes one flip).' })
export class ModelBoundary {
  @Field({ name: 'scenarioKey' }) scenario!: string;
  @Field() parameter!: string;
  @Field() unit!: string;
  @Field(() => BoundaryTargetEnum) target!: BoundaryTargetEnum;
  @Field(() => String, { nullable: true, description: 'The check bisected on; null for the failure criterion or a figure.' }) checkName!: string | null;
  @Field(() => BoundaryFigureTarget, { nullable: true, description: 'The figure bisected on (FIGURE); otherwise null.' }) figure!: BoundaryFigureTarget | null;
  @Field({ description: 'At `from`: the failure criterion is met, (CHECK) the check passes, or (FIGURE) the figure is beyond the value.' }) metAtFrom!: boolean;
  @Field({ description: 'At `to`: the failure criterion is met, (CHECK) the check passes, or (FIGURE) the figure is beyond the value.' }) metAtTo!: boolean;
  @Field(() => Float, { nullable: true, description: 'Highest value probed on the `from` side of the flip; null when both ends agree.' }) below!: number | null;
  @Field(() => Float, { nullable: true, description: 'Lowest value probed on the `to` side.' }) above!: number | null;
  @Field(() => [BoundaryProbe], { description: 'Every run of the search in order (at most 40).' }) probes!: BoundaryProbe[];
  @Field({ description: 'The answer in words.' }) text!: string;
}

@ObjectType()
export class FindModelBoundaryPayload {
  @Field(() => ExplorationStatusEnum) status!: string;
  @Field(() => Int) runsFinished!: number;
  @Field(() => ModelBoundary, { nullable: true }) boundary!: ModelBoundary | null;
}
