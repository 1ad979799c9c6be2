import { Field, Float, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { DOCUMENT_FORMATS, SECTION_KINDS, type DocumentFormat, type SectionKind } from '@hindsight/postmortem-parser';
import { Incident } from '../incidents/types/incident.types';
import { PageInfo } from '../common/page-info.type';

export const DocumentFormatEnum = Object.fromEntries(DOCUMENT_FORMATS.map((f) => [f.toUpperCase(), f])) as Record<string, DocumentFormat>;
registerEnumType(DocumentFormatEnum, { name: 'DocumentFormat' });

export const SectionKindEnum = Object.fromEntries(SECTION_KINDS.map((k) => [k.toUpperCase(), k])) as Record<string, SectionKind>;
registerEnumType(SectionKindEnum, { name: 'SectionKind', description: 'What a section of a postmortem is about, whatever its heading says.' });

@ObjectType()
export class RecognisedSection {
  @Field() heading!: string;
  @Field(() => Int) line!: number;
  @Field(() => SectionKindEnum) kind!: SectionKind;
  @Field(() => Float, { description: '0 to 1.' }) confidence!: number;
}

@ObjectType()
export class ImportWarning {
  @Field() code!: string;
  @Field() message!: string;
  @Field(() => Int, { nullable: true }) line?: number | null;
}

@ObjectType({ description: 'A line of the document that went into no field of the draft.' })
export class UnusedLine {
  @Field(() => Int) line!: number;
  @Field() text!: string;
}

@ObjectType()
export class SuggestedPattern {
  @Field() key!: string;
  @Field({ description: 'The words that suggested it.' }) evidence!: string;
  @Field(() => Int) line!: number;
}

@ObjectType({ description: 'One decision behind the draft, with its confidence and the source line it came from.' })
export class ImportDecision {
  @Field({ description: 'title, language, postmortem, section, timeline.<key>, actionables.<key>.status, keyTimes.started, …' }) field!: string;
  @Field(() => String, { nullable: true }) value!: string | null;
  @Field(() => Float, { description: '0 to 1.' }) confidence!: number;
  @Field(() => Int, { nullable: true, description: 'Null when the decision rests on the whole document.' }) line!: number | null;
  @Field({ description: 'The rule that decided, in words.' }) basis!: string;
}

@ObjectType({ description: 'Whether the document reads as a postmortem at all.' })
export class PostmortemVerdict {
  @Field() isPostmortem!: boolean;
  @Field(() => Float) confidence!: number;
  @Field(() => [String]) evidence!: string[];
}

@ObjectType({ description: 'What the importer recognised, so a person can fix the draft before publishing.' })
export class ImportReport {
  @Field(() => DocumentFormatEnum) format!: DocumentFormat;
  @Field() formatDetected!: boolean;
  @Field() contentHash!: string;
  @Field() language!: string;
  @Field(() => [RecognisedSection]) sections!: RecognisedSection[];
  @Field(() => [ImportWarning]) warnings!: ImportWarning[];
  @Field(() => [UnusedLine]) unusedLines!: UnusedLine[];
  @Field(() => [SuggestedPattern]) suggestedPatterns!: SuggestedPattern[];
  @Field(() => PostmortemVerdict, { nullable: true, description: 'Null for reports stored before the verdict existed.' }) postmortem!: PostmortemVerdict | null;
  @Field(() => [ImportDecision], { nullable: true, description: 'Null for reports stored before decisions were recorded.' }) decisions!: ImportDecision[] | null;
}

@ObjectType()
export class ImportPostmortemPayload {
  @Field(() => Incident, { description: 'The draft incident (status draft until published).' }) incident!: Incident;
  @Field(() => ImportReport) report!: ImportReport;
  @Field({ description: 'False when an earlier draft of the same document was updated.' }) created!: boolean;
}

@ObjectType()
export class DraftIncident {
  @Field(() => Incident) incident!: Incident;
  @Field(() => ImportReport, { nullable: true }) report!: ImportReport | null;
}

@ObjectType()
export class DraftIncidentEdge {
  @Field() cursor!: string;
  @Field(() => DraftIncident) node!: DraftIncident;
}

@ObjectType({ description: 'A page of the drafts awaiting review, most recently changed first.' })
export class DraftIncidentConnection {
  @Field(() => [DraftIncidentEdge]) edges!: DraftIncidentEdge[];
  @Field(() => [DraftIncident]) nodes!: DraftIncident[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'Drafts in the queue: one count statement, run only when selected.' }) totalCount!: number;
}

@InputType()
export class ImportPostmortemInput {
  @Field({ description: 'The document text (Markdown, MediaWiki wikitext or plain text).' }) document!: string;
  @Field(() => DocumentFormatEnum, { nullable: true, description: 'Detected when omitted.' }) format?: DocumentFormat | null;
  @Field(() => String, { nullable: true, description: 'Where the document lives; re-importing the same URL updates the same draft.' }) sourceUrl?: string | null;
}

@InputType()
export class PublishIncidentInput {
  @Field({ description: 'Slug of the draft.' }) slug!: string;
  @Field(() => Int, { description: "The draft's version you last read; a stale one is CONFLICT and changes nothing." }) expectedVersion!: number;
}

@ObjectType()
export class PublishIncidentPayload {
  @Field(() => Incident, { description: 'The incident, now visible to readers.' }) incident!: Incident;
}
