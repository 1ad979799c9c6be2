import { Prisma } from '@hindsight/db';
import { foldText, type IncidentDocument } from '@hindsight/domain';
import { cjkBigrams, stemmingConfigFor } from './search-language';

type Tx = Prisma.TransactionClient;

/**
 * The weights relevance ranks (`Incident.searchRank`): title (A) and the short descriptive fields
 * (B). Ranking reads one such vector per match from the row itself (about 1.4 KB on the synthetic
 * corpus, against 9 KB for the whole document, which lives in TOAST); matching still uses the
 * whole document. A match only in factors, actionables, timeline or narrative ranks 0 and is
 * ordered by the tie-break.
 */
export const SEARCH_RANK_WEIGHTS = '{a,b}';

/** Searchable text by weight: A title, B summary/impact/organization/components/patterns/tags, C factors (title, component, text)/actionables/timeline, D the rest. */
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

/** Folds like the query does, and writes CJK runs as bigrams (see search-language.ts). */
export function foldForSearch(parts: readonly string[]): string {
  return cjkBigrams(foldText(parts.join('\n'))).replace(/ {2,}/g, ' ').trim();
}

export function searchSectionsOf(doc: IncidentDocument, patternNames: string[]): SearchSections {
  const fold = foldForSearch;
  return {
    A: fold([doc.title]),
    B: fold([
      doc.summary,
      doc.impact,
      doc.organization ?? '',
      ...doc.components,
      ...patternNames,
      ...doc.patterns.map((p) => p.replace(/-/g, ' ')),
      ...(doc.tags ?? []).map((t) => `${t} ${t.replace(/-/g, ' ')}`),
      // The source's own words (a Vietnamese or Japanese summary) rank with the English summary.
      doc.source.originalText ?? '',
    ]),
    C: fold([
      ...doc.causalFactors.map((f) => `${f.title ?? ''} ${f.component ?? ''} ${f.text}`),
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
  await writeSearchDocuments(tx, [{ incidentId, doc }]);
}

/** `writeSearchDocument` for many incidents at once: the same rows, in five statements whatever their number. */
export async function writeSearchDocuments(tx: Tx, items: { incidentId: string; doc: IncidentDocument }[]): Promise<void> {
  if (items.length === 0) return;
  const documents = await searchDocumentsOf(tx, items);
  await tx.$executeRaw`UPDATE "Incident" i SET ${SET_SEARCH_COLUMNS} FROM ${documents.table} WHERE i."id" = d."id"`;
  await writeSearchWords(tx, documents);
}

/** Search documents ready to write: a derived table `d("id", "doc")`, and their word lists. */
export interface SearchDocuments {
  table: Prisma.Sql;
  words: { ids: string[]; words: (readonly [string, string])[] };
}

/**
 * The search documents of these incidents, for a statement that writes them
 * (`SET_SEARCH_COLUMNS`) and for `writeSearchWords`. The incident writer puts them in the same
 * UPDATE as an edit's own columns: every new version of the row outside a HOT update computes
 * the phrase pairs of its whole document again (`search_pairs`), so an edit that wrote the row
 * twice paid for the old document's pairs too.
 */
export async function searchDocumentsOf(tx: Tx, items: { incidentId: string; doc: IncidentDocument }[]): Promise<SearchDocuments> {
  const keys = [...new Set(items.flatMap((i) => i.doc.patterns))];
  const patterns = keys.length > 0 ? await tx.pattern.findMany({ where: { key: { in: keys } }, select: { key: true, name: true } }) : [];
  const nameOf = new Map(patterns.map((p) => [p.key, p.name]));
  const rows = items.map(({ incidentId, doc }) => {
    // Pattern names in the document's order, so the same document always gives the same vector.
    const sections = searchSectionsOf(doc, doc.patterns.flatMap((k) => (nameOf.has(k) ? [nameOf.get(k)!] : [])));
    // The original-language text is also stemmed in its own language where Postgres can.
    const config = stemmingConfigFor(doc.source.language);
    const original = doc.source.originalText && config && config !== 'english' ? { O: foldForSearch([doc.source.originalText]), cfg: config } : { O: null, cfg: null };
    return { id: incidentId, sections, original };
  });
  const weighted = (column: string, weight: string) => {
    const text = Prisma.raw(`r."${column}"`);
    return Prisma.sql`setweight(to_tsvector('english', ${text}), ${weight}::"char") || setweight(to_tsvector('simple', ${text}), ${weight}::"char")`;
  };
  const table = Prisma.sql`(SELECT r."id", ${weighted('A', 'A')} || ${weighted('B', 'B')} || ${weighted('C', 'C')} || ${weighted('D', 'D')}
            || CASE WHEN r."cfg" IS NULL THEN ''::tsvector ELSE setweight(to_tsvector(r."cfg"::regconfig, r."O"), 'B') END AS doc
          FROM jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ id: r.id, ...r.sections, ...r.original })))}::jsonb)
            AS r("id" uuid, "A" text, "B" text, "C" text, "D" text, "O" text, "cfg" text)) d`;
  return { table, words: { ids: rows.map((r) => r.id), words: rows.flatMap((r) => searchWordsOf(r.sections).map((w) => [w, r.id] as const)) } };
}

/**
 * The SET items that store the documents of `searchDocumentsOf` (its table `d`) in the incident
 * row. The rank vector is the document's A and B weights (see SEARCH_RANK_WEIGHTS), cut from the
 * document itself so the two never disagree.
 */
export const SET_SEARCH_COLUMNS = Prisma.sql`"searchDocument" = d."doc", "searchRank" = ts_filter(d."doc", ${SEARCH_RANK_WEIGHTS}::"char"[])`;

/**
 * Makes the word lists of the documents' incidents what the documents hold, and adds new words
 * to the lexicon. Only the difference is written: an edit changes a few words of an incident's
 * hundreds, and each row written costs its entries in the word index and the trigram index
 * (rewriting the whole list took 5–6 ms of a synthetic incident's edit, against 3–4 ms now).
 */
export async function writeSearchWords(tx: Tx, documents: SearchDocuments): Promise<void> {
  const { ids, words } = documents.words;
  const wordList = words.map((w) => w[0]);
  const incidentList = words.map((w) => w[1]);
  await tx.$executeRaw`DELETE FROM "SearchWord" s WHERE s."incidentId" = ANY(${ids}::uuid[])
    AND NOT EXISTS (SELECT 1 FROM unnest(${wordList}::text[], ${incidentList}::uuid[]) AS x(w, i) WHERE x.w = s."word" AND x.i = s."incidentId")`;
  // The missing words only, found by an anti-join: cheaper than letting ON CONFLICT reject the
  // present ones row by row, for a new incident's whole list above all.
  await tx.$executeRaw`INSERT INTO "SearchWord" ("word", "incidentId")
    SELECT w, i FROM unnest(${wordList}::text[], ${incidentList}::uuid[]) AS x(w, i)
    WHERE NOT EXISTS (SELECT 1 FROM "SearchWord" s WHERE s."word" = x.w AND s."incidentId" = x.i)`;
  // Sorted, so concurrent writers take the lexicon's row locks in the same order.
  const vocabulary = [...new Set(words.map((w) => w[0]))].sort();
  await tx.$executeRaw`INSERT INTO "SearchLexicon" ("word") SELECT w FROM unnest(${vocabulary}::text[]) AS w ON CONFLICT DO NOTHING`;
}
