import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../common/json.scalar';
import { Incident } from '../incidents/types/incident.types';
import { IncidentModel, ModelRun, ModelSpecVersion, ParameterValueInput } from './model.types';

@InputType()
export class RunModelInput {
  @Field({ description: 'Slug of the incident.' }) incident!: string;
  @Field({ defaultValue: 'as-happened' }) scenario!: string;
  @Field(() => [ParameterValueInput], { nullable: true }) parameters?: ParameterValueInput[] | null;
  @Field(() => Int, { nullable: true }) seed?: number | null;
}

@ObjectType()
export class RunModelPayload {
  @Field(() => ModelRun) run!: ModelRun;
}

@InputType()
export class CreateModelSpecInput {
  @Field(() => JSONScalar) spec!: unknown;
}

@ObjectType()
export class CreateModelSpecPayload {
  @Field(() => ModelSpecVersion) modelSpec!: ModelSpecVersion;
}

@InputType()
export class AttachModelInput {
  @Field({ description: 'Slug of the incident.' }) incident!: string;
  @Field({ description: 'Key of the stored model spec.' }) model!: string;
  @Field(() => String, { nullable: true, description: 'The latest version when omitted.' }) version?: string | null;
  @Field(() => [ParameterValueInput], { nullable: true }) defaultParameters?: ParameterValueInput[] | null;
}

@ObjectType()
export class AttachModelPayload {
  @Field(() => IncidentModel) model!: IncidentModel;
  @Field(() => Incident, { description: 'The incident the model is now attached to.' }) incident!: Incident;
}
