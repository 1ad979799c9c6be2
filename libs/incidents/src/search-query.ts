import { createHash } from 'node:crypto';
import { Prisma } from '@hindsight/db';
import { foldText } from '@hindsight/domain';
import { cjkBigrams, STEMMED_LANGUAGES } from './search-language';
import { phrasePairsQuery, SEARCH_PAIRS_OVERFLOW } from './search-pairs';

type Db = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** Words shorter than this are never widened by trigram similarity: "ori" must not find "origin". */
const MIN_FUZZY_LENGTH = 5;
const MAX_ALTERNATIVES = 5;
/** Close words looked at before checking which of them a published incident holds. */
const CANDIDATES = 20;
/**
 * Unknown words of one query looked up in the lexicon, the first in the query's order: each costs
 * a trigram search, so without a bound a query of 300 characters could ask for about 50 of them.
 */
export const MAX_UNKNOWN_WORDS = 8;

/** A parsed text search: the tsquery expression to match and rank with, and what it was built from. */
export interface TextSearch {
  /** The folded query as given to `websearch_to_tsquery`. */
  text: string;
  /** SQL expression of type tsquery. */
  tsquery: Prisma.Sql;
  /** Words the index does not hold, each with the known words it was widened to. */
  widened: { word: string; alternatives: string[] }[];
  /** Distinguishes cursors of one search from another's: ranks only compare within a search. */
  fingerprint: string;
  /** The text-search configurations the query is parsed under: english, simple, then the stemming configurations of the stored incidents' languages. */
  configs: string[];
  /**
   * For a quoted phrase: the word pairs every match holds (a tsquery over `search_pairs`
   * tokens, see search-pairs.ts), which the pairs index answers before any document is read;
   * null when the query requires none. Always OR-ed with the token of a document whose pairs did not fit (`SEARCH_PAIRS_OVERFLOW`).
   */
  pairs: string | null;
}

/**
 * Folds case and accents the way the writer does, and turns a `/`-joined identifier such as
 * `pull/604` into the phrase "pull 604", which the search document also holds.
 */
export function normalizeSearchText(raw: string): string {
  const folded = foldText(raw);
  const identifiers = folded.replace(/(^|\s)(-?)([^\s"]*\/[^\s"]*)/g, (_m, space: string, minus: string, token: string) => {
    const words = token.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    return words.length === 0 ? space : `${space}${minus}"${words.join(' ')}"`;
  });
  // A CJK word is searched as the phrase of its bigrams, as the document stores it.
  return cjkBigrams(identifiers, { quote: true }).replace(/ {2,}/g, ' ').trim();
}

/** The words of a query worth widening: not excluded, not the `or` operator, long enough. */
function candidateWords(text: string): string[] {
  const words = new Set<string>();
  for (const token of text.split(/\s+/)) {
    if (token.startsWith('-')) continue;
    for (const w of token.split(/[^\p{L}\p{N}]+/u)) {
      if (w.length >= MIN_FUZZY_LENGTH && w.length <= 60 && w !== 'or') words.add(w);
    }
  }
  return [...words];
}

/**
 * The stemming configurations of the languages stored incidents come from, besides english, that
 * read this query differently from english and simple, each with the tsquery of its branch: a
 * document's original text is stemmed in its language (search-document.ts), so the query is
 * stemmed the same way, but only in the languages that are there. A configuration whose reading
 * equals one already kept adds nothing but a branch that the planner counts again in its estimate
 * (which then turned phrase searches into sequential scans), so it is left out. A query with a
 * quoted phrase is read in english and simple only: a phrase under another language's stemmer
 * mixes lexemes of different sections of a document, whose candidates then almost all fail the
 * phrase check (on the synthetic corpus, a phrase went from 0.1 s to over a second). One
 * statement: a loose scan of the `sourceLanguage` index, one probe per distinct language,
 * whatever the corpus size (and a second, see `keepingStopwords`, only when a language reads one
 * of the query's words as a stopword).
 */
async function languageConfigs(db: Db, text: string): Promise<{ config: string; branch: Prisma.Sql }[]> {
  if (text.includes('"')) return [];
  // english and simple first, so a language's reading is dropped when it equals theirs. The
  // query's words are its tokens as the parser splits them (the simple configuration keeps all).
  const rows = await db.$queryRaw<{ config: string; reading: string; dropped: string[] }[]>`
    WITH RECURSIVE l AS (
      (SELECT "sourceLanguage" AS language FROM "Incident" ORDER BY "sourceLanguage" LIMIT 1)
      UNION ALL
      SELECT (SELECT "sourceLanguage" FROM "Incident" WHERE "sourceLanguage" > l.language ORDER BY "sourceLanguage" LIMIT 1) FROM l WHERE l.language IS NOT NULL
    ), configs AS (
      SELECT 'english' AS config, 0 AS ord UNION ALL SELECT 'simple', 1
      UNION ALL
      SELECT DISTINCT m.config, 2 FROM l JOIN unnest(${STEMMED_LANGUAGES.map((m) => m.language)}::text[], ${STEMMED_LANGUAGES.map((m) => m.config)}::text[]) AS m(language, config)
        ON m.language = lower(split_part(l.language, '-', 1)) WHERE m.config <> 'english'
    )
    SELECT config, websearch_to_tsquery(config::regconfig, ${text})::text AS reading,
      ARRAY(SELECT w FROM unnest(tsvector_to_array(to_tsvector('simple', ${text}))) AS w
            WHERE to_tsvector(config::regconfig, w) = ''::tsvector AND to_tsvector('english', w) <> ''::tsvector ORDER BY w) AS dropped
    FROM configs ORDER BY ord, config`;
  const seen = new Set<string>();
  const kept: { config: string; branch: Prisma.Sql; dropped: string[] }[] = [];
  for (const { config, reading, dropped } of rows) {
    const known = seen.has(reading);
    seen.add(reading);
    if (config === 'english' || config === 'simple' || known || reading === '') continue;
    const branch = dropped.length === 0 ? Prisma.sql`websearch_to_tsquery(${config}::regconfig, ${text})` : keepingStopwords(config, text, dropped);
    if (branch) kept.push({ config, branch, dropped });
  }
  if (!kept.some((k) => k.dropped.length > 0)) return kept;
  // A branch that keeps its stopwords may now read the query as another branch does ("die timeout"
  // in German reads as simple does): those are left out as above, by their final readings.
  const finals = await db.$queryRaw<{ readings: string[] }[]>`
    SELECT ARRAY[websearch_to_tsquery('english', ${text})::text, websearch_to_tsquery('simple', ${text})::text,
                 ${Prisma.join(kept.map((k) => Prisma.sql`(${k.branch})::text`))}] AS readings`;
  const readings = finals[0]!.readings;
  const distinct = new Set(readings.slice(0, 2));
  return kept.filter((_k, i) => {
    const known = distinct.has(readings[i + 2]!);
    distinct.add(readings[i + 2]!);
    return !known;
  });
}

/**
 * The condition that `alias` (an `Incident`) matches a search whose tsquery is `q`: its search
 * document matches, and for a phrase search its word pairs first (see search-pairs.ts). With
 * pairs, the document's match is written as the operator's function, `ts_match_vq`, which no
 * index serves: the planner then reads the pairs index alone and checks each candidate's
 * document once. With both indexable it ANDs the two bitmaps, and since the document's index
 * asks for a recheck of its phrase, every candidate's pairs were computed again from its
 * document (a few ms each; a count timed out at 30 s).
 */
export function searchMatch(alias: 'i' | 'm', search: TextSearch, q: Prisma.Sql): Prisma.Sql {
  const doc = Prisma.raw(`${alias}."searchDocument"`);
  return search.pairs === null ? Prisma.sql`${doc} @@ ${q}` : Prisma.sql`search_pairs(${doc}) @@ ${search.pairs}::tsquery AND ts_match_vq(${doc}, ${q})`;
}

/** Every place `word` stands whole in a text (not inside a longer word), for replacing it. */
export function wholeWord(word: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu');
}

/** Digits no query holds in practice: a language's parser keeps such a number as it is (as the simple configuration does). */
const STOPWORD_MARKER = 8_159_320_647;

/**
 * The branch of a language that takes some of the query's words (`dropped`) for stopwords while
 * english does not ("war" and "die" in German, "son" in French). Read as it is, the branch would
 * drop them, and OR-ed with the others it would widen the query: "war haproxy" would find every
 * incident holding "haproxy", and "-war x" would lose its exclusion. So each such word is replaced
 * in the text by a number the parser keeps, and the number in the parsed query by the word as
 * written: Postgres's own parse keeps the query's operators (`-`, `or`, parentheses), and the
 * other words are still stemmed in the language. Null (the language is left out) when a word
 * cannot be found whole in the text or the text holds a marker already.
 */
function keepingStopwords(config: string, text: string, dropped: readonly string[]): Prisma.Sql | null {
  let marked = text;
  for (const [i, word] of dropped.entries()) {
    const marker = String(STOPWORD_MARKER + i);
    if (text.includes(marker)) return null;
    const next = marked.replace(wholeWord(word), marker);
    if (next === marked) return null;
    marked = next;
  }
  let branch = Prisma.sql`websearch_to_tsquery(${config}::regconfig, ${marked})`;
  for (const [i, word] of dropped.entries()) {
    branch = Prisma.sql`ts_rewrite(${branch}, ${String(STOPWORD_MARKER + i)}::tsquery, plainto_tsquery('simple', ${word}))`;
  }
  return branch;
}

/** A word or phrase under every configuration of the query, OR-ed. */
const underAll = (configs: readonly string[], text: string, parse: 'plainto_tsquery' | 'websearch_to_tsquery') =>
  Prisma.sql`(${Prisma.join(configs.map((c) => Prisma.sql`${Prisma.raw(parse)}(${c}::regconfig, ${text})`), ' || ')})`;

/**
 * Whether a published incident holds `word` (an SQL text expression): the word's rows in
 * `SearchWord`, read in its primary key's order (which starts with the word) until one belongs
 * to a published incident, each incident's status read by its own primary key. The status is a
 * scalar subquery and the rows are ordered on purpose: written as a join, the planner may walk
 * every published incident and probe each for the word (9,756 probes for a word one incident
 * holds, at 100,000 incidents), and written as EXISTS it builds a bitmap of all the word's rows
 * before looking at the first.
 */
const heldByPublished = (word: Prisma.Sql) =>
  Prisma.sql`COALESCE((SELECT true FROM "SearchWord" s WHERE s."word" = ${word} AND (SELECT i."status" FROM "Incident" i WHERE i."id" = s."incidentId") = 'published'
    ORDER BY s."word", s."incidentId" LIMIT 1), false)`;

/**
 * The known words closest to `q.w` (the word of the enclosing statement), nearest first by edit
 * distance (at most `maxDistance`) then trigram similarity, each held by a published incident:
 * one `word` column, at most `limit` rows. The candidates are the lexicon's trigram-similar words
 * (its `pg_trgm` index) and the word with two neighbouring letters swapped, the commonest typo,
 * which in a word of five or six letters leaves too few trigrams in common to pass the similarity
 * threshold ("reigon" → "region", "gihtub" → "github"); both are index lookups. A swap counts as
 * one edit, as in the optimal-string-alignment distance (`levenshtein` counts it as two).
 */
function closeKnownWords(maxDistance: Prisma.Sql, limit: number): Prisma.Sql {
  return Prisma.sql`SELECT c.word FROM (
      SELECT k.word, CASE WHEN k.word = ANY(sw.swaps) THEN 1 ELSE levenshtein(k.word, q.w) END AS d, similarity(k.word, q.w) AS sim
      FROM (SELECT ARRAY(SELECT overlay(q.w PLACING substr(q.w, n + 1, 1) || substr(q.w, n, 1) FROM n FOR 2) FROM generate_series(1, length(q.w) - 1) AS n) AS swaps) sw
      CROSS JOIN LATERAL (
        SELECT l."word" AS word FROM "SearchLexicon" l WHERE l."word" % q.w
        -- A join, so each swap is one probe of the primary key (as = ANY the trigram index was picked: 20 ms).
        UNION SELECT l."word" FROM unnest(sw.swaps) AS x(v) JOIN "SearchLexicon" l ON l."word" = x.v
      ) k
      WHERE k.word <> q.w AND (k.word = ANY(sw.swaps) OR levenshtein(k.word, q.w) <= ${maxDistance})
      ORDER BY d, sim DESC, k.word LIMIT ${CANDIDATES}) c
    WHERE ${heldByPublished(Prisma.sql`c.word`)}
    ORDER BY c.d, c.sim DESC, c.word LIMIT ${limit}`;
}

/**
 * The words of `words` that no published incident holds (the first `MAX_UNKNOWN_WORDS` of them,
 * in the given order; the others are left as they are), each with its closest known words
 * (`closeKnownWords`): the typo widening of a search and the corrections of did-you-mean. One
 * statement.
 */
export async function unknownWordsWithCloseOnes(db: Db, words: readonly string[], maxDistance: Prisma.Sql, limit: number): Promise<{ word: string; alternatives: string[] }[]> {
  if (words.length === 0) return [];
  // The unknown words are found and cut first, so only those kept are looked up.
  return db.$queryRaw<{ word: string; alternatives: string[] }[]>`
    WITH unknown AS MATERIALIZED (
      SELECT u.w, u.n FROM unnest(${[...words]}::text[]) WITH ORDINALITY AS u(w, n)
      WHERE NOT ${heldByPublished(Prisma.sql`u.w`)}
      ORDER BY u.n LIMIT ${MAX_UNKNOWN_WORDS})
    SELECT q.w AS word, ARRAY(${closeKnownWords(maxDistance, limit)}) AS alternatives FROM unknown q ORDER BY q.n`;
}

/**
 * Builds the tsquery for a search: `websearch_to_tsquery` syntax (any order, "quoted phrases",
 * -exclusion, or) under the english (stemmed) and simple configurations, and the stemming
 * configuration of every other language stored incidents come from, with every word the
 * index does not know OR-ed with its closest known words (trigram similarity over the
 * vocabulary, `SearchLexicon`, then edit distance) ("parsiod" → parsoid), each checked to be in
 * a published incident. One statement looks the unknown words up.
 */
export async function buildTextSearch(db: Db, raw: string): Promise<TextSearch> {
  const text = normalizeSearchText(raw);
  const words = candidateWords(text);
  const widened = await unknownWordsWithCloseOnes(db, words, Prisma.sql`3`, MAX_ALTERNATIVES);
  const languages = await languageConfigs(db, text);
  const configs = ['english', 'simple', ...languages.map((l) => l.config)];
  let tsquery = Prisma.sql`(${Prisma.join([underAll(['english', 'simple'], text, 'websearch_to_tsquery'), ...languages.map((l) => l.branch)], ' || ')})`;
  // Each form of an unknown word (one per configuration) is first replaced by a placeholder, then
  // every placeholder by the word's substitute in one rewrite. Rewriting straight to the
  // substitute, form after form, would rewrite the forms inside the substitutes already put in
  // and grow the query geometrically with the number of configurations (past Postgres's stack
  // depth with six). A placeholder holds a space, which no parsed lexeme does.
  widened.forEach(({ word, alternatives }, i) => {
    if (alternatives.length === 0) return;
    const placeholder = Prisma.sql`${`'widened ${i}'`}::tsquery`;
    for (const config of configs) tsquery = Prisma.sql`ts_rewrite(${tsquery}, plainto_tsquery(${config}::regconfig, ${word}), ${placeholder})`;
    const substitute = Prisma.join([word, ...alternatives].map((w) => underAll(configs, w, 'plainto_tsquery')), ' || ');
    tsquery = Prisma.sql`ts_rewrite(${tsquery}, ${placeholder}, (${substitute}))`;
  });
  const fingerprint = createHash('sha256').update(text).digest('base64url').slice(0, 10);
  // The pairs are read off the final query (readings, typo widening and all), so they follow it exactly.
  const required = text.includes('"') ? phrasePairsQuery((await db.$queryRaw<{ q: string }[]>`SELECT (${tsquery})::text AS q`)[0]!.q) : null;
  const pairs = required === null ? null : `( ${required} ) | ${SEARCH_PAIRS_OVERFLOW}`;
  return { text, tsquery, widened: widened.filter((w) => w.alternatives.length > 0), fingerprint, configs, pairs };
}
