-- Quoted phrases answered through an index of word pairs. A phrase such as "degradation after
-- feature" makes the search document's GIN index return every incident holding its words, and
-- each of those is then checked against its whole document (about 9 KB, in TOAST): thousands of
-- documents for a phrase whose words are common but seldom side by side.
--
-- search_pairs(document) is every pair of lexemes standing one or two positions apart in the
-- stored document, written as one token: the two lexemes joined by as many spaces as their
-- distance ('partial outag', 'degrad  featur'). The parser never puts a space inside a lexeme,
-- so the tokens cannot be confused with each other or with a lexeme. It is read from the stored
-- vector itself, so its positions are the very ones a phrase check reads (including the english
-- and simple halves of each section, and positions capped at 16383). A token longer than a lexeme
-- may be (2047 bytes) is left out, and the query leaves out the same tokens.
--
-- A phrase step `a <-> b` or `a <2> b` of a query then requires the token of its pair, a
-- condition every match meets; the pairs index answers such an AND of tokens without reading the
-- table, and the document's own check stays the exact one. The index is over the expression, not
-- a stored column: a document's pairs average 26 KB on the synthetic corpus (2.6 GB for 100,000
-- incidents before compression), and Postgres keeps the index in the very statement that writes
-- the document it derives from, so it is never stale. Computing a document's pairs takes a few
-- milliseconds, so the query is written so that they are never computed to recheck a match (see
-- `searchMatch`, libs/incidents/src/search-query.ts); the function's declared cost (50,000
-- operator costs, about 125 page reads) tells the planner so, lest it prefer a plan that
-- computes the pairs of each row another index returns; and the index's statistics target is
-- 0: ANALYZE would otherwise compute the pairs of every sampled row.
--
-- A tsvector holds at most 1 MB of lexeme text, and a document's pairs can pass that where the
-- document does not (a narrative of 200,000 characters of distinct log-like words gives about
-- 1.4 MB of pairs: every word past position 16383 pairs with the last words before it). Such a
-- document gets a single token instead, one space, which no pair can be; the query builder ORs
-- it into every pairs condition (`SEARCH_PAIRS_OVERFLOW`, libs/incidents/src/search-pairs.ts),
-- so the document stays a candidate of every phrase and its own `@@` decides.
CREATE FUNCTION "search_pairs"(doc tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 50000 AS $$
  WITH w AS MATERIALIZED (SELECT u.lexeme, p FROM unnest(doc) AS u, unnest(u.positions) AS p)
  SELECT CASE
    WHEN a IS NULL THEN ''::tsvector
    -- The pairs as listed, repeats included, are within the limit: the common case, no dedup needed.
    WHEN n <= 1048575 THEN array_to_tsvector(a)
    WHEN (SELECT sum(octet_length(d)) FROM (SELECT DISTINCT unnest(a) AS d) s) <= 1048575 THEN array_to_tsvector(a)
    ELSE array_to_tsvector(ARRAY[' '])
  END
  FROM (SELECT sum(octet_length(t)) AS n, array_agg(t) AS a FROM (
    SELECT a.lexeme || ' ' || b.lexeme AS t FROM w a JOIN w b ON b.p = a.p + 1
    UNION ALL
    SELECT a.lexeme || '  ' || b.lexeme FROM w a JOIN w b ON b.p = a.p + 2) x
    WHERE octet_length(t) <= 2047) pairs
$$;

-- Building the index computes the pairs of every document: minutes at 100,000 incidents.
SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX "Incident_searchPairs_idx" ON "Incident" USING gin ("search_pairs"("searchDocument"));
ALTER INDEX "Incident_searchPairs_idx" ALTER COLUMN 1 SET STATISTICS 0;
