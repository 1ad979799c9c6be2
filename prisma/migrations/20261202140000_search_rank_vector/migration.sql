-- The part of the search document that relevance ranks: its A and B weights (title; summary,
-- impact, organization, components, patterns, tags and the source's original text). About a
-- seventh of the whole document, kept in the row itself (STORAGE MAIN: Postgres moves it out of
-- the row only when the row would not fit a page otherwise), so ranking a match reads no TOAST
-- chunks; matching still uses the whole document and its GIN index. The writer keeps it with the
-- document (search-document.ts).
ALTER TABLE "Incident" ADD COLUMN "searchRank" tsvector NOT NULL DEFAULT ''::tsvector;
ALTER TABLE "Incident" ALTER COLUMN "searchRank" SET STORAGE MAIN;
UPDATE "Incident" SET "searchRank" = ts_filter("searchDocument", '{a,b}') WHERE "searchDocument" <> ''::tsvector;
