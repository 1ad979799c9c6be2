import { createHash } from 'node:crypto';
import { Prisma } from '@hindsight/db';
import { foldText } from '@hindsight/domain';
import { cjkBigrams, STEMMED_LANGUAGES } from './search-language';

type Db = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** Words shorter than this are never widened by trigram similarity: "ori" must not find "origin". */
const MIN_FUZZY_LENGTH = 5;
const MAX_ALTERNATIVES = 5;
/** Close words looked at before checking which of them a published incident holds. */
const CANDIDATES = 20;

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
 * read this query differently from english and simple: a document's original text is stemmed in
 * its language (search-document.ts), so the query is stemmed the same way, but only in the
 * languages that are there. A configuration whose reading equals one already kept adds nothing
 * but a branch that the planner counts again in its estimate (which then turned phrase searches
 * into sequential scans), so it is left out. A query with a quoted phrase is read in english and
 * simple only: a phrase under another language's stemmer mixes lexemes of different sections of
 * a document, whose candidates then almost all fail the phrase check (on the synthetic corpus,
 * a phrase went from 0.1 s to over a second). One statement: a loose scan of the
 * `sourceLanguage` index, one probe per distinct language, whatever the corpus size.
 */
async function languageConfigs(db: Db, text: string): Promise<LanguageReading[]> {
  if (text.includes('"')) return [];
  const words = queryWords(text);
  // english and simple first, so a language's reading is dropped when it equals theirs.
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
      ARRAY(SELECT w FROM unnest(${words.map((w) => w.word)}::text[]) AS w
            WHERE to_tsvector(config::regconfig, w) = ''::tsvector AND to_tsvector('english', w) <> ''::tsvector) AS dropped
    FROM configs ORDER BY ord, config`;
  const seen = new Set<string>();
  const kept: LanguageReading[] = [];
  for (const { config, reading, dropped } of rows) {
    const known = seen.has(reading);
    seen.add(reading);
    if (config === 'english' || config === 'simple' || known || reading === '') continue;
    const negated = new Set(words.filter((w) => w.negated).map((w) => w.word));
    kept.push({ config, required: dropped.map((word) => ({ word, negated: negated.has(word) })) });
  }
  return kept;
}

/**
 * A language's reading of the query, and the words it reads as stopwords where english does not
 * ("war" in German, "die" in German, "son" in French): its branch must still require each of them
 * (or, after `-`, exclude it) in the simple configuration, or an English query would be widened
 * in that language ("war room" would find every incident holding "room").
 */
interface LanguageReading {
  config: string;
  required: { word: string; negated: boolean }[];
}

/** The words of a query without quoted phrases, each marked when it follows `-`; the `or` operator left out. */
function queryWords(text: string): { word: string; negated: boolean }[] {
  const words = new Map<string, boolean>();
  for (const token of text.split(/\s+/)) {
    if (token === 'or') continue;
    const negated = token.startsWith('-');
    for (const w of token.split(/[^\p{L}\p{N}]+/u)) if (w && w.length <= 60) words.set(w, negated || (words.get(w) ?? false));
  }
  return [...words].map(([word, negated]) => ({ word, negated }));
}

/** A word or phrase under every configuration of the query, OR-ed. */
const underAll = (configs: readonly string[], text: string, parse: 'plainto_tsquery' | 'websearch_to_tsquery') =>
  Prisma.sql`(${Prisma.join(configs.map((c) => Prisma.sql`${Prisma.raw(parse)}(${c}::regconfig, ${text})`), ' || ')})`;

/**
 * The known words closest to `q.w` (the word of the enclosing statement), nearest first by edit
 * distance (at most `maxDistance`) then trigram similarity, each held by a published incident:
 * one `word` column, at most `limit` rows. The candidates are the lexicon's trigram-similar words
 * (its `pg_trgm` index) and the word with two neighbouring letters swapped, the commonest typo,
 * which in a word of five or six letters leaves too few trigrams in common to pass the similarity
 * threshold ("reigon" → "region", "gihtub" → "github"); both are index lookups.
 */
export function closeKnownWords(maxDistance: Prisma.Sql, limit: number): Prisma.Sql {
  return Prisma.sql`SELECT c.word FROM (
      SELECT k.word, levenshtein(k.word, q.w) AS d, similarity(k.word, q.w) AS sim FROM (
        SELECT l."word" AS word FROM "SearchLexicon" l WHERE l."word" % q.w
        UNION SELECT l."word" FROM "SearchLexicon" l
          WHERE l."word" = ANY(ARRAY(SELECT overlay(q.w PLACING substr(q.w, n + 1, 1) || substr(q.w, n, 1) FROM n FOR 2) FROM generate_series(1, length(q.w) - 1) AS n))
      ) k
      WHERE k.word <> q.w AND levenshtein(k.word, q.w) <= ${maxDistance}
      ORDER BY d, sim DESC, k.word LIMIT ${CANDIDATES}) c
    -- One index probe per candidate (LIMIT 1 keeps it a nested loop, not a join over all of SearchWord).
    CROSS JOIN LATERAL (SELECT 1 FROM "SearchWord" s JOIN "Incident" i ON i."id" = s."incidentId" AND i."status" = 'published'
                        WHERE s."word" = c.word LIMIT 1) AS published
    ORDER BY c.d, c.sim DESC, c.word LIMIT ${limit}`;
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
  const widened =
    words.length === 0
      ? []
      : await db.$queryRaw<{ word: string; alternatives: string[] }[]>`
        SELECT q.w AS word, ARRAY(${closeKnownWords(Prisma.sql`3`, MAX_ALTERNATIVES)}) AS alternatives
        FROM unnest(${words}::text[]) AS q(w)
        WHERE NOT EXISTS (SELECT 1 FROM "SearchWord" s JOIN "Incident" i ON i."id" = s."incidentId" AND i."status" = 'published'
                          WHERE s."word" = q.w)`;
  const languages = await languageConfigs(db, text);
  const configs = ['english', 'simple', ...languages.map((l) => l.config)];
  let tsquery = Prisma.sql`(${Prisma.join(
    [
      underAll(['english', 'simple'], text, 'websearch_to_tsquery'),
      // Parenthesised: tsquery's && and || are operators of one precedence, read left to right.
      ...languages.map(
        ({ config, required }) =>
          Prisma.sql`(${Prisma.join([Prisma.sql`websearch_to_tsquery(${config}::regconfig, ${text})`, ...required.map((r) => Prisma.sql`${Prisma.raw(r.negated ? '!!' : '')}plainto_tsquery('simple', ${r.word})`)], ' && ')})`,
      ),
    ],
    ' || ',
  )})`;
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
  return { text, tsquery, widened: widened.filter((w) => w.alternatives.length > 0), fingerprint, configs };
}
