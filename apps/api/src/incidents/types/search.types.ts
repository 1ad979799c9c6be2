import { Field, Float, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import {
  FACET_KINDS,
  RELATION_KINDS,
  SEARCH_FIELDS,
  SUGGESTION_FIELDS,
  type FacetKind,
  type RelationKind,
  type SearchField,
} from '@hindsight/incidents';
import { Incident } from './incident.types';

const asEnum = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as Record<T, T>;

export const SearchFieldEnum = asEnum(SEARCH_FIELDS);
export const FacetKindEnum = asEnum(FACET_KINDS);
export const SuggestionFieldEnum = asEnum(SUGGESTION_FIELDS);
export const RelationKindEnum = asEnum(RELATION_KINDS);
registerEnumType(SearchFieldEnum, { name: 'SearchField', description: 'A part of an incident record a search can match.' });
registerEnumType(FacetKindEnum, { name: 'FacetKind' });
registerEnumType(SuggestionFieldEnum, { name: 'SuggestionField', description: 'A filter whose values can be suggested as one types.' });
registerEnumType(RelationKindEnum, { name: 'RelationKind', description: 'Why two incidents are related.' });

@ObjectType({ description: 'A piece of an excerpt; `matched` pieces hold a search term.' })
export class HighlightFragment {
  @Field() text!: string;
  @Field() matched!: boolean;
}

@ObjectType({ description: 'Where a search result matched: the field, and an excerpt around its first match with every match marked.' })
export class SearchHighlight {
  @Field(() => SearchFieldEnum) field!: SearchField;
  @Field({ description: 'The excerpt as plain text ("…" where it was cut).' }) excerpt!: string;
  @Field(() => [HighlightFragment], { description: 'The excerpt in pieces, matched or not; joined they make `excerpt`.' }) fragments!: HighlightFragment[];
}

@ObjectType()
export class FacetValue {
  @Field({ description: 'The value to filter by: a pattern key, organization, component, year ("unknown" when no start time is known), actionable status, severity level ("none" when not stated), near miss ("true" or "false") or tag.' }) value!: string;
  @Field() label!: string;
  @Field(() => Int, { description: 'Incidents of the result set with this value (for ACTIONABLE_STATUS: their actionables).' }) count!: number;
}

@ObjectType({ description: 'Counts of one kind over the result set, across pages: over all of it, or over the first `countUpTo` matches found (see `complete`).' })
export class Facet {
  @Field(() => FacetKindEnum) kind!: FacetKind;
  @Field(() => Int, { description: 'Distinct values among the incidents counted.' }) distinctValues!: number;
  @Field(() => [FacetValue], { description: 'Most frequent first.' }) values!: FacetValue[];
  @Field(() => Int, { description: 'Matching incidents these counts were taken over.' }) counted!: number;
  @Field({
    description:
      'False when the result set holds more matches than `countUpTo` and only the first `countUpTo` found were counted: the counts are then those of that part, not a share of the whole. Ask `totalCount` for the exact size of the result set.',
  })
  complete!: boolean;
}

@ObjectType()
export class SearchCorrection {
  @Field() word!: string;
  @Field() replacement!: string;
}

@ObjectType({ description: 'A corrected query for a search that found nothing.' })
export class DidYouMean {
  @Field() text!: string;
  @Field(() => Int, { description: 'What the corrected query finds with the same other filters (counted up to 1000).' }) totalCount!: number;
  @Field(() => [SearchCorrection]) corrections!: { word: string; replacement: string }[];
}

@ObjectType()
export class FilterSuggestion {
  @Field() value!: string;
  @Field(() => Int, { description: 'Published incidents with this value (for OWNER: actionables).' }) count!: number;
}

@ObjectType()
export class RelationReason {
  @Field(() => RelationKindEnum) kind!: RelationKind;
  @Field({ description: 'What is shared: a pattern name, a component, a causal structure in words.' }) detail!: string;
  @Field(() => Float, { description: "This reason's part of the score." }) weight!: number;
}

@ObjectType({ description: 'An incident related to another, with the reasons.' })
export class RelatedIncident {
  @Field(() => Incident) incident!: Incident;
  @Field(() => Float, { description: 'Sum of the reason weights; compare only within one list.' }) score!: number;
  @Field(() => [RelationReason]) reasons!: RelationReason[];
}
