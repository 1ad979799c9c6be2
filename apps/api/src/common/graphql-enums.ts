import { registerEnumType } from '@nestjs/graphql';
import {
  ACTIONABLE_STATUSES,
  CAUSAL_LINK_KINDS,
  FACTOR_ROLES,
  REFERENCE_KINDS,
  TIME_PRECISIONS,
  TIMELINE_EVENT_KINDS,
} from '@hindsight/domain';
import { ACTIONABLE_ORDERS, INCIDENT_ORDERS } from '@hindsight/incidents';

/** GraphQL shows enum values in UPPER_CASE; resolvers and the database keep the domain's words. */
function graphqlEnum<T extends string>(values: readonly T[]): Record<string, T> {
  return Object.fromEntries(values.map((v) => [v.toUpperCase(), v]));
}

export const TimePrecisionEnum = graphqlEnum(TIME_PRECISIONS);
export const TimelineEventKindEnum = graphqlEnum(TIMELINE_EVENT_KINDS);
export const FactorRoleEnum = graphqlEnum(FACTOR_ROLES);
export const CausalLinkKindEnum = graphqlEnum(CAUSAL_LINK_KINDS);
export const ActionableStatusEnum = graphqlEnum(ACTIONABLE_STATUSES);
export const ReferenceKindEnum = graphqlEnum(REFERENCE_KINDS);
export const IncidentOrderEnum = graphqlEnum(INCIDENT_ORDERS);
export const ActionableOrderEnum = graphqlEnum(ACTIONABLE_ORDERS);
export const IncidentStatusEnum = graphqlEnum(['draft', 'published'] as const);

registerEnumType(TimePrecisionEnum, {
  name: 'TimePrecision',
  description: 'How precisely the source gave a time: TEN_MINUTES for "02:3X", APPROXIMATE for "(ca.) 03:20", NONE when only the order is known.',
});
registerEnumType(TimelineEventKindEnum, { name: 'TimelineEventKind' });
registerEnumType(FactorRoleEnum, { name: 'FactorRole' });
registerEnumType(CausalLinkKindEnum, { name: 'CausalLinkKind' });
registerEnumType(ActionableStatusEnum, { name: 'ActionableStatus' });
registerEnumType(ReferenceKindEnum, { name: 'ReferenceKind' });
registerEnumType(IncidentOrderEnum, {
  name: 'IncidentOrder',
  valuesMap: {
    RELEVANCE: {
      description:
        'Search results by how well the title and the short fields (summary, impact, organization, components, patterns, tags, original text) match, ' +
        'ranked over the first 300 matches found; results matching only in factors, follow-ups, timeline, narrative, source title or references rank after those and tie with each other, in a fixed order. ' +
        'Paging ends after those 300: when totalCount is larger, the other matches are reached with another order. Needs filter.text.',
    },
  },
});
registerEnumType(ActionableOrderEnum, { name: 'ActionableOrder' });
registerEnumType(IncidentStatusEnum, { name: 'IncidentStatus', description: 'Drafts (from imports) are visible to editors only until published.' });
