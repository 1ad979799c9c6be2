import { Field, Float, InputType, ObjectType, registerEnumType } from '@nestjs/graphql';
import { JSONScalar } from '../common/json.scalar';
import { Actionable, Incident } from '../incidents/types/incident.types';
import { CheckKindEnum, IncidentModel, ModelSpecVersion, ParameterProvenance, ParameterValueInput } from './model.types';

export enum ParameterSourceEnum {
  TEXT = 'text',
  TIMELINE = 'timeline',
  ASSUMPTION = 'assumption',
  DEFAULT = 'default',
  PERSON = 'person',
}
registerEnumType(ParameterSourceEnum, {
  name: 'ParameterSource',
  description: "Where a suggested parameter's value comes from.",
  valuesMap: {
    TEXT: { description: "A figure in the incident's text." },
    TIMELINE: { description: 'A duration between two timeline events.' },
    ASSUMPTION: { description: 'Not in the incident: worked out from the other values (the reason says how).' },
    DEFAULT: { description: "Not in the incident: the template's default (the reason says why)." },
    PERSON: { description: 'Set by the person reviewing the draft.' },
  },
});

export const SuggestionReasonSourceEnum = { PATTERN: 'pattern', FACTOR: 'factor', COMPONENT: 'component', TEXT: 'text', ACTIONABLE: 'actionable' } as const;
registerEnumType(SuggestionReasonSourceEnum, { name: 'SuggestionReasonSource', description: "The part of the incident a template's ranking reason comes from." });

@ObjectType('ModelTemplate', { description: 'A failure-pattern template: a parameterised model of one class of failure.' })
export class ModelTemplateInfo {
  @Field() key!: string;
  @Field() title!: string;
  @Field({ description: 'The class of failure it models.' }) failureClass!: string;
  @Field({ description: 'Markdown: what it models and leaves out, and the closed form it is checked against.' }) docs!: string;
  @Field(() => [String], { description: 'Remedy kinds its fix scenarios model.' }) remedies!: string[];
}

@ObjectType({ description: 'One reason a template was ranked for an incident.' })
export class SuggestionReason {
  @Field(() => SuggestionReasonSourceEnum) from!: string;
  @Field() detail!: string;
  @Field(() => Float) weight!: number;
}

@ObjectType({ description: 'The figure of the incident a parameter was read from.' })
export class SuggestedFigure {
  @Field({ description: 'The figure as written.' }) raw!: string;
  @Field({ description: 'The sentence it stands in.' }) quote!: string;
  @Field({ description: 'Where the sentence stands: timeline event, causal factor, narrative paragraph, summary or impact.' }) place!: string;
  @Field({ description: "The anchor of that place on the incident's page (`timeline-<key>`, `factor-<key>`, `narrative`)." }) anchor!: string;
}

@ObjectType({ description: 'A parameter of a draft model: its value, unit, range and where the value comes from.' })
export class SuggestedParameter {
  @Field() name!: string;
  @Field(() => Float) value!: number;
  @Field() unit!: string;
  @Field(() => Float) min!: number;
  @Field(() => Float) max!: number;
  @Field() description!: string;
  @Field(() => ParameterSourceEnum) from!: string;
  @Field(() => ParameterProvenance) provenance!: ParameterProvenance;
  @Field(() => SuggestedFigure, { nullable: true }) figure!: SuggestedFigure | null;
  @Field(() => [String], { description: 'Figures that looked like this parameter but were refused (out of range), with why.' }) refused!: string[];
}

@ObjectType({ description: "An actionable matched to a fix scenario of the draft by the kind of remedy it describes." })
export class SuggestedActionableMatch {
  @Field() actionableKey!: string;
  @Field(() => Actionable) actionable?: Actionable;
  /** Not in the schema: the incident whose actionable this is, for resolving `actionable`. */
  incidentId!: string;
  @Field({ description: 'The remedy kind (`add-timeout`, `retry-budget`, `raise-cap`, …).' }) remedy!: string;
  @Field({ description: "The actionable's words that name the remedy." }) evidence!: string;
  @Field({ description: 'The fix of the template it is modelled by.' }) fixKey!: string;
  @Field({ description: 'The scenario of the draft that stands for it.' }) scenarioKey!: string;
}

@ObjectType({ description: 'An actionable the draft has no fix scenario for.' })
export class UnmatchedActionable {
  @Field() actionableKey!: string;
  @Field(() => Actionable) actionable?: Actionable;
  /** Not in the schema: the incident whose actionable this is, for resolving `actionable`. */
  incidentId!: string;
  @Field(() => [String], { description: 'Remedy kinds read from it (none for measuring, monitoring or process work).' }) remedies!: string[];
}

@ObjectType({ description: "A check of the draft model and what it rests on." })
export class SuggestedCheck {
  @Field() name!: string;
  @Field() description!: string;
  @Field(() => CheckKindEnum, { nullable: true, description: 'What passing would mean; null when the draft does not say.' }) kind!: string | null;
}

@ObjectType({ description: 'A draft model for an incident from one template. Nothing is stored until a person attaches it.' })
export class ModelSuggestion {
  @Field(() => ModelTemplateInfo) template!: ModelTemplateInfo;
  @Field(() => Float) score!: number;
  @Field(() => [SuggestionReason]) reasons!: SuggestionReason[];
  @Field(() => [SuggestedParameter]) parameters!: SuggestedParameter[];
  @Field(() => [SuggestedActionableMatch]) matches!: SuggestedActionableMatch[];
  @Field(() => [UnmatchedActionable]) unmatched!: UnmatchedActionable[];
  @Field(() => [SuggestedCheck]) checks!: SuggestedCheck[];
  @Field({ name: 'criterion', description: 'The failure criterion in words.' }) failureCriterion!: string;
  @Field(() => JSONScalar, { description: 'The draft engine spec, as `createModelSpec` takes it.' }) spec!: unknown;
}

@ObjectType({ description: 'Draft models for one incident, best first.' })
export class ModelSuggestions {
  @Field(() => Incident) incident!: unknown;
  @Field(() => [ModelSuggestion], { description: 'Best first.' }) suggestions!: ModelSuggestion[];
}

@InputType()
export class AttachSuggestedModelInput {
  @Field({ description: "The incident's slug." }) incident!: string;
  @Field({ description: 'The template the draft was made from.' }) template!: string;
  @Field(() => [ParameterValueInput], { nullable: true, description: 'Values the person changed; the rest are read from the incident again as the draft showed them.' }) parameters?: ParameterValueInput[] | null;
  @Field(() => String, {
    nullable: true,
    description: 'The model version the person saw attached (`key@version`), or null when there was none; another attach in between is a CONFLICT.',
  })
  expectedModel?: string | null;
}

@ObjectType()
export class AttachSuggestedModelPayload {
  @Field(() => ModelSpecVersion, { description: 'The spec version created (or the identical one already stored).' }) specVersion!: ModelSpecVersion;
  @Field(() => IncidentModel) model!: unknown;
  @Field(() => Incident, { description: 'The incident the model is now attached to.' }) incident!: unknown;
}
