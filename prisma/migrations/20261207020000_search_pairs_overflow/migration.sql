-- A tsvector holds at most 1 MB of lexeme text, and a document's word pairs can pass that where
-- the document itself does not: a 200,000-character narrative of distinct log-like words
-- ("replica1000001 replica1000002 …") gives about 1.4 MB of pairs, since every word past position
-- 16383 is paired with the last words before it, and `search_pairs` then failed with "string is
-- too long for tsvector", so the write of that incident failed.
--
-- Such a document now gets a single token, one space, in place of its pairs. No pair can be that
-- token (a pair is two lexemes with a space or two between them), and the query builder ORs it
-- into every pairs condition (`SEARCH_PAIRS_OVERFLOW`, libs/incidents/src/search-pairs.ts), so the
-- document stays a candidate of every phrase and its own `@@` check decides, as before.
--
-- Every document whose pairs fit gets exactly the vector it got before, and no document whose
-- pairs do not fit could have been written, so the index built by 20261207010000 stays valid and
-- is not rebuilt.
CREATE OR REPLACE FUNCTION "search_pairs"(doc tsvector) RETURNS tsvector
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
