import { Field, Float, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { DURATION_GROUPS, DURATION_METRICS, type DurationCheck as DurationCheckRecord, type DurationGroup, type DurationMetric } from '@hindsight/incidents';
import type { TimePrecision } from '@hindsight/domain';
import { TimePrecisionEnum } from '../../common/graphql-enums';

const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;
export const DurationMetricEnum = asEnum(DURATION_METRICS);
export const DurationGroupEnum = asEnum(DURATION_GROUPS);
export const DurationCheckCodeEnum = asEnum(['OUT_OF_ORDER', 'RESOLVED_LONG_AFTER_MITIGATION'] as const);
registerEnumType(DurationMetricEnum, { name: 'DurationMetric', description: 'A duration measured from the start of an incident.' });
registerEnumType(DurationGroupEnum, { name: 'DurationGroup' });
registerEnumType(DurationCheckCodeEnum, { name: 'DurationCheckCode' });

@ObjectType({ description: 'A duration between two key times, as precise as the coarser of them.' })
export class IncidentDuration {
  @Field(() => Float) minutes!: number;
  @Field(() => TimePrecisionEnum) precision!: TimePrecision;
  @Field({ description: 'True unless both key times are known to the second or minute.' }) approximate!: boolean;
}

@ObjectType({ description: 'How long customers were affected.' })
export class CustomerImpact extends IncidentDuration {
  @Field({ description: 'False: as the record states it. True: worked out from the start and mitigation key times, as none was stated.' })
  derived!: boolean;
}

@ObjectType()
export class DurationCheck {
  @Field(() => DurationCheckCodeEnum) code!: DurationCheckRecord['code'];
  @Field() message!: string;
}

@ObjectType({ description: 'Time to detect, mitigate and resolve, each from the start, and the checks of the key times.' })
export class IncidentDurations {
  @Field(() => IncidentDuration, { nullable: true }) toDetect!: IncidentDuration | null;
  @Field(() => IncidentDuration, { nullable: true }) toMitigate!: IncidentDuration | null;
  @Field(() => IncidentDuration, { nullable: true }) toResolve!: IncidentDuration | null;
  @Field(() => [DurationCheck], { description: 'Inconsistencies, flagged rather than corrected.' }) checks!: DurationCheck[];
}

@ObjectType({ description: 'A duration across published incidents with both key times, leaving out durations a consistency check flags.' })
export class DurationDistribution {
  @Field({ description: 'A pattern key, an organization, a year, or "all".' }) group!: string;
  @Field(() => Int, { description: 'Incidents counted in the figures.' }) count!: number;
  @Field(() => Int, { description: 'Of them, resting on a time coarser than a minute.' }) approximateCount!: number;
  @Field(() => Int, {
    description:
      'Incidents of the group with both key times left out of the figures because a check flags them: key times out of order (every duration), or "resolved" long after mitigation (time to resolve).',
  })
  excludedCount!: number;
  @Field(() => Float, { nullable: true, description: 'Minutes; null when every duration of the group is left out (count 0).' }) p50!: number | null;
  @Field(() => Float, { nullable: true, description: 'Minutes; null when every duration of the group is left out (count 0).' }) p90!: number | null;
  @Field(() => Float, { nullable: true, description: 'Minutes; null when every duration of the group is left out (count 0).' }) max!: number | null;
  @Field(() => [Int], { description: 'Incidents under 5 min, 5–15 min, 15–60 min, 1–4 h, 4–24 h, 24 h and more.' }) histogram!: number[];
}

export type { DurationGroup, DurationMetric };
