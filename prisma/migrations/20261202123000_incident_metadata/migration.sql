-- Incident metadata teams and researchers filter and count by: severity on the installation's
-- scale (INCIDENT_SEVERITY_LEVELS; text, so changing the scale needs no migration), the near-miss
-- flag, normalised free tags, and the customer-impact duration with its precision as the source
-- states it.
ALTER TABLE "Incident" ADD COLUMN "severity" TEXT;
ALTER TABLE "Incident" ADD COLUMN "nearMiss" BOOLEAN NOT NULL DEFAULT false;
-- Like "components": a Prisma scalar list (nullable, no default in the database); the writer
-- always sets it, and existing incidents start with none.
ALTER TABLE "Incident" ADD COLUMN "tags" TEXT[];
UPDATE "Incident" SET "tags" = ARRAY[]::TEXT[];
ALTER TABLE "Incident" ADD COLUMN "customerImpactMinutes" INTEGER;
ALTER TABLE "Incident" ADD COLUMN "customerImpactPrecision" "TimePrecision" NOT NULL DEFAULT 'none';

CREATE INDEX "Incident_severity_idx" ON "Incident" ("severity");
CREATE INDEX "Incident_tags_idx" ON "Incident" USING GIN ("tags");
