-- CreateTable
CREATE TABLE "ImportedDocument" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "sourceUrl" TEXT,
    "contentHash" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "report" JSONB NOT NULL,
    "importedBy" TEXT NOT NULL,
    "importedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportedDocument_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ImportedDocument_incidentId_key" ON "ImportedDocument"("incidentId");

-- CreateIndex
CREATE UNIQUE INDEX "ImportedDocument_sourceUrl_key" ON "ImportedDocument"("sourceUrl");

-- CreateIndex
CREATE UNIQUE INDEX "ImportedDocument_contentHash_key" ON "ImportedDocument"("contentHash");

-- AddForeignKey
ALTER TABLE "ImportedDocument" ADD CONSTRAINT "ImportedDocument_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;
