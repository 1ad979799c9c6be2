-- The languages incidents come from, read by a text search to stem the query in each of them
-- (one index probe per distinct language).
CREATE INDEX "Incident_sourceLanguage_idx" ON "Incident"("sourceLanguage");
