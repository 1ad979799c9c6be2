-- Full-text search: a weighted search document per incident, and the distinct words of every
-- incident for typo-tolerant matching and suggestions (trigram similarity).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

-- AlterTable
ALTER TABLE "Incident" ADD COLUMN "searchDocument" tsvector NOT NULL DEFAULT ''::tsvector;

-- CreateTable
CREATE TABLE "SearchWord" (
    "word" TEXT NOT NULL,
    "incidentId" UUID NOT NULL,

    CONSTRAINT "SearchWord_pkey" PRIMARY KEY ("word","incidentId")
);

-- CreateIndex
CREATE INDEX "Incident_searchDocument_idx" ON "Incident" USING GIN ("searchDocument");

-- CreateIndex
CREATE INDEX "SearchWord_incidentId_idx" ON "SearchWord"("incidentId");

-- CreateIndex
CREATE INDEX "SearchWord_word_trgm_idx" ON "SearchWord" USING GIN ("word" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "SearchWord" ADD CONSTRAINT "SearchWord_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill from the folded text already stored (one weight); the writer stores the weighted
-- document on the next write of each incident (re-seeding or re-importing rewrites every field).
UPDATE "Incident" SET "searchDocument" = setweight(to_tsvector('english', "searchText"), 'D') || setweight(to_tsvector('simple', "searchText"), 'D');
INSERT INTO "SearchWord" ("word", "incidentId")
SELECT DISTINCT w, i."id" FROM "Incident" i, regexp_split_to_table(i."searchText", '[^[:alnum:]]+') AS w
WHERE length(w) >= 3;
