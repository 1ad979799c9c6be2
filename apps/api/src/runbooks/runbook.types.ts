import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { CitationNotice as CitationNoticeRecord, CitedKind } from '@hindsight/tracking';
import { PageInfo } from '../common/page-info.type';
import { Node } from '../node/node.interface';

export const CitedKindEnum = { INCIDENT: 'incident', CAUSAL_FACTOR: 'causal_factor', ACTIONABLE: 'actionable', PATTERN: 'pattern' } as const satisfies Record<string, CitedKind>;
registerEnumType(CitedKindEnum, { name: 'CitedKind', description: 'What a runbook citation points at.' });

export const CitationChangeEnum = { CLOSED: 'closed', RENAMED: 'renamed', RETITLED: 'retitled' } as const satisfies Record<string, CitationNoticeRecord['change']>;
registerEnumType(CitationChangeEnum, { name: 'CitationChange', description: 'A change that may make a runbook citing the record wrong.' });

@ObjectType({ description: 'A runbook: a page in another tool, by URL, that cites records here.', implements: () => [Node] })
export class Runbook extends Node {
  @Field() url!: string;
  @Field() title!: string;
  @Field({ description: 'Who first registered a citation of it.' }) createdBy!: string;
  @Field() createdAt!: Date;
}

@ObjectType({ description: "One runbook's citation of an incident, causal factor, actionable or pattern.", implements: () => [Node] })
export class RunbookCitation extends Node {
  @Field(() => Runbook) runbook!: Runbook;
  @Field(() => CitedKindEnum) kind!: CitedKind;
  @Field({ description: 'Who registered the citation.' }) citedBy!: string;
  @Field() citedAt!: Date;
}

@ObjectType()
export class RunbookCitationEdge {
  @Field(() => RunbookCitation) node!: RunbookCitation;
  @Field() cursor!: string;
}

@ObjectType({ description: 'The runbooks citing a record, by runbook title.' })
export class RunbookCitationConnection {
  @Field(() => [RunbookCitationEdge]) edges!: RunbookCitationEdge[];
  @Field(() => [RunbookCitation]) nodes!: RunbookCitation[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}

@ObjectType({ description: 'Said to the editor when a change may make runbooks citing the record wrong: which runbooks to check.' })
export class CitationNotice {
  @Field(() => CitationChangeEnum) change!: string;
  @Field(() => CitedKindEnum) kind!: CitedKind;
  @Field(() => ID, { description: 'Global id of the changed record.' }) recordId!: string;
  @Field({ description: 'In words, naming the runbooks.' }) message!: string;
  @Field(() => [Runbook]) runbooks!: Runbook[];
}

@InputType()
export class CiteInRunbookInput {
  @Field({ description: "The runbook's http(s) address; a runbook is known by it." }) url!: string;
  @Field({ description: "The runbook's title (updated when it changed)." }) title!: string;
  @Field(() => ID, { description: 'Global id of the Incident, CausalFactor, Actionable or Pattern the runbook cites.' }) target!: string;
}

@ObjectType()
export class CiteInRunbookPayload {
  @Field(() => RunbookCitation) citation!: RunbookCitation;
  @Field({ description: 'false: the runbook already cited it; nothing changed but the title, if it differed.' }) created!: boolean;
}

@InputType()
export class RemoveRunbookCitationInput {
  @Field(() => ID, { description: 'Global id of the RunbookCitation.' }) citationId!: string;
}

@ObjectType()
export class RemoveRunbookCitationPayload {
  @Field(() => ID, { description: 'Global id of the removed citation.' }) removedCitationId!: string;
  @Field(() => Runbook, { description: 'The runbook, which keeps its other citations.' }) runbook!: Runbook;
}
