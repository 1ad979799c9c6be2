-- The source's own words beside the English text (for sources not in English), searchable.
ALTER TABLE "Incident" ADD COLUMN "sourceOriginalText" TEXT;
