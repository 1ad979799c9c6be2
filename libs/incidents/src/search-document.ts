import { Prisma } from '@hindsight/db';
import { foldText, type IncidentDocument } from '@hindsight/domain';

type Tx = Prisma.TransactionClient;

/** Searchable text by weight: A title, B summary/impact/organization/components/patterns, C factors/actionables/timeline, D the rest. */
export interface SearchSections {
  A: string;
  B: string;
  C: string;
  D: string;
}

/**
 * Identifiers such as `https://github.com/org/repo/pull/604` or `T134456` are also written
 * split at punctuation, so `pull/604` (searched as the phrase "pull 604") finds them.
 */
function withSplitForm(ref: string): string {
  const split = ref.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return split === ref ? ref : `${ref} ${split}`;
}

export function searchSectionsOf(doc: IncidentDocument, patternNames: string[]): SearchSections {
  const fold = (parts: string[]) => foldText(parts.join('\n'));
  return {
    A: fold([doc.title]),
    B: fold([doc.summary, doc.impact, doc.organization ?? '', ...doc.components, ...patternNames, ...doc.patterns.map((p) => p.replace(/-/g, ' '))]),
    C: fold([
      ...doc.causalFactors.map((f) => `${f.component ?? ''} ${f.text}`),
      ...doc.actionables.map((a) => `${a.title} ${a.description}`),
      ...doc.timeline.map((e) => e.text),
    ]),
    D: fold([
      doc.narrative,
      doc.source.title,
      ...doc.actionables.flatMap((a) => a.references.map((r) => withSplitForm(r.ref))),
    ]),
  };
}

/** Distinct words of three characters or more, for typo matching and suggestions. */
export function searchWordsOf(sections: SearchSections): string[] {
  const words = new Set<string>();
  for (const text of Object.values(sections)) {
    for (const w of text.split(/[^\p{L}\p{N}]+/u)) if (w.length >= 3 && w.length <= 60) words.add(w);
  }
  return [...words];
}

/**
 * Stores the weighted search document and the word list of one incident, inside the caller's
 * transaction, so a search right after any write (edit, import, publish, seed) sees it.
 * Both the english (stemmed) and the simple (unstemmed, any language) configurations are
 * indexed; accents and case are already folded by `foldText`, the same fold the query gets.
 */
export async function writeSearchDocument(tx: Tx, incidentId: string, doc: IncidentDocument): Promise<void> {
  const patterns = await tx.pattern.findMany({ where: { key: { in: doc.patterns } }, select: { name: true } });
  const s = searchSectionsOf(doc, patterns.map((p) => p.name));
  const weighted = (text: string, weight: string) =>
    Prisma.sql`setweight(to_tsvector('english', ${text}), ${weight}::"char") || setweight(to_tsvector('simple', ${text}), ${weight}::"char")`;
  await tx.$executeRaw`UPDATE "Incident" SET "searchDocument" =
    ${weighted(s.A, 'A')} || ${weighted(s.B, 'B')} || ${weighted(s.C, 'C')} || ${weighted(s.D, 'D')}
    WHERE "id" = ${incidentId}::uuid`;
  await tx.$executeRaw`DELETE FROM "SearchWord" WHERE "incidentId" = ${incidentId}::uuid`;
  await tx.$executeRaw`INSERT INTO "SearchWord" ("word", "incidentId")
    SELECT w, ${incidentId}::uuid FROM unnest(${searchWordsOf(s)}::text[]) AS w`;
}
