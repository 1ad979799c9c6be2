-- Indexes matching the list orders exactly (the sort expression, then the id tie-breaker), so a
-- keyset page reads its rows in order and stops at the page size instead of sorting every match.
-- The expression indexes cannot be written in schema.prisma; test/read-path-indexes.spec.ts
-- checks that they exist and that the list queries use them.
CREATE INDEX "Incident_published_started_idx" ON "Incident" ((COALESCE("startedAt", '-infinity'::timestamptz)), "id") WHERE "status" = 'published';
CREATE INDEX "Incident_published_title_idx" ON "Incident" ((lower("title")), "id") WHERE "status" = 'published';
CREATE INDEX "Incident_updatedAt_id_idx" ON "Incident" ("updatedAt", "id");
CREATE INDEX "Actionable_due_idx" ON "Actionable" ((COALESCE("dueDate", 'infinity'::date)), "id");
CREATE INDEX "Actionable_updatedAt_id_idx" ON "Actionable" ("updatedAt", "id");
CREATE INDEX "Actionable_createdAt_id_idx" ON "Actionable" ("createdAt", "id");
CREATE INDEX "Actionable_owner_lower_idx" ON "Actionable" ((lower("owner")));
