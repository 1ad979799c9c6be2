import type { DocumentBlock, HeadingBlock } from './document-block.types';
import type { SectionKind } from './importer.types';
import { classifyHeading, cleanHeading, type SectionClassification } from './section.classifier';
import { findTimeInHeading, parseLeadingTime } from './time-expression.parser';

export interface DocumentSection {
  /** Null for the text before the first heading. */
  heading: HeadingBlock | null;
  /** Heading text without markup. */
  title: string;
  level: number;
  own: SectionClassification;
  kind: SectionKind;
  confidence: number;
  parent: DocumentSection | null;
  /** Title of the section the kind was inherited from. */
  inheritedFrom: string | null;
  /** The kind comes from the section this one follows (more action items after "Action items"). */
  continues?: boolean;
  /** One entry of a timeline told as dated headings ("Update (2025-09-09 11:05 UTC)"): the heading holds the time, the body the text. */
  datedEntry?: boolean;
  blocks: DocumentBlock[];
}

/**
 * Groups blocks under their headings and works out what each section is about. A subsection
 * with a heading of no known meaning (`### RESTBase` under `## Action items`, `### 2016-05-05`
 * under `## Timeline`) takes the kind of the section it sits in.
 */
export function buildSections(blocks: readonly DocumentBlock[]): DocumentSection[] {
  const preamble: DocumentSection = {
    heading: null,
    title: '',
    level: 0,
    own: { kind: 'other', confidence: 0 },
    kind: 'other',
    confidence: 0,
    parent: null,
    inheritedFrom: null,
    blocks: [],
  };
  const sections: DocumentSection[] = [preamble];
  const open: DocumentSection[] = [];
  for (const block of blocks) {
    if (block.type !== 'heading') {
      sections[sections.length - 1].blocks.push(block);
      continue;
    }
    while (open.length > 0 && open[open.length - 1].level >= block.level) open.pop();
    const parent = open.at(-1) ?? null;
    // A heading that starts with a time or a date ("#### 10:39 — follow-up review") is an entry
    // of the section around it, whatever words follow.
    const dated = parent !== null && parseLeadingTime(cleanHeading(block.text)) !== null;
    const own = dated ? { kind: 'other' as const, confidence: 0 } : classifyHeading(block.text);
    let kind = own.kind;
    let confidence = own.confidence;
    let inheritedFrom: string | null = null;
    if (parent && parent.kind !== 'other' && (own.confidence < 0.5 || own.kind === parent.kind)) {
      if (own.kind !== parent.kind) {
        kind = parent.kind;
        confidence = Math.round(parent.confidence * 0.9 * 100) / 100;
        inheritedFrom = parent.title;
      }
    }
    const section: DocumentSection = { heading: block, title: cleanHeading(block.text), level: block.level, own, kind, confidence, parent, inheritedFrom, blocks: [] };
    sections.push(section);
    open.push(section);
  }
  return sections;
}

/** The section and all the sections nested in it, in document order. */
export function withDescendants(section: DocumentSection, all: readonly DocumentSection[]): DocumentSection[] {
  return all.filter((s) => {
    for (let p: DocumentSection | null = s; p; p = p.parent) if (p === section) return true;
    return false;
  });
}

/**
 * Headings that carry a date and a time, two or more under the same parent, with no section kind
 * of their own, are a timeline told as one heading per entry: the updates of a status notice,
 * a diary of an outage.
 */
export function markDatedEntries(sections: DocumentSection[], dayFirst: boolean): void {
  const dated = sections.filter((s) => s.heading && s.kind === 'other' && findTimeInHeading(cleanHeading(s.heading.text), { dayFirst }) !== null);
  const byParent = new Map<DocumentSection | null, DocumentSection[]>();
  for (const s of dated) byParent.set(s.parent, [...(byParent.get(s.parent) ?? []), s]);
  for (const group of byParent.values()) {
    if (group.length < 2) continue;
    for (const s of group) {
      s.kind = 'timeline';
      s.confidence = 0.6;
      s.datedEntry = true;
    }
  }
}
