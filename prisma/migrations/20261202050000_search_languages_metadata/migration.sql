-- The source's own words beside the English text (for sources not in English), searchable.
ALTER TABLE "Incident" ADD COLUMN "sourceOriginalText" TEXT;

-- The vocabulary: every distinct word of SearchWord, for trigram lookups that do not visit
-- one row per incident holding a word.
CREATE TABLE "SearchLexicon" (
    "word" TEXT NOT NULL,

    CONSTRAINT "SearchLexicon_pkey" PRIMARY KEY ("word")
);
CREATE INDEX "SearchLexicon_word_trgm_idx" ON "SearchLexicon" USING GIN ("word" gin_trgm_ops);
INSERT INTO "SearchLexicon" ("word") SELECT DISTINCT "word" FROM "SearchWord";
