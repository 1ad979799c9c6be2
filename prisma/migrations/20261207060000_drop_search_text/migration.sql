-- The folded copy of an incident's text served the substring search that the search document
-- replaced; nothing has read it since. Writing it cost an edit one more version of the incident's
-- row, and each such version recomputes the phrase pairs index's entries (search_pairs).
ALTER TABLE "Incident" DROP COLUMN "searchText";
