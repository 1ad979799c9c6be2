-- CreateEnum
CREATE TYPE "ModelRunStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "ModelSpec" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "checksum" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ModelSpec_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IncidentModel" (
    "incidentId" UUID NOT NULL,
    "specId" UUID NOT NULL,
    "defaultParameters" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IncidentModel_pkey" PRIMARY KEY ("incidentId")
);

-- CreateTable
CREATE TABLE "Scenario" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "actionableKey" TEXT,

    CONSTRAINT "Scenario_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ModelRun" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "specId" UUID NOT NULL,
    "scenarioKey" TEXT NOT NULL,
    "inputHash" TEXT NOT NULL,
    "parameters" JSONB NOT NULL,
    "seed" INTEGER NOT NULL,
    "engineVersion" TEXT NOT NULL,
    "specVersion" TEXT NOT NULL,
    "status" "ModelRunStatus" NOT NULL DEFAULT 'queued',
    "queuedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "durationMs" INTEGER,
    "simulatedEvents" INTEGER,
    "summary" JSONB,
    "series" JSONB,
    "checks" JSONB,
    "error" TEXT,

    CONSTRAINT "ModelRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ModelSpec_checksum_idx" ON "ModelSpec"("checksum");

-- CreateIndex
CREATE UNIQUE INDEX "ModelSpec_key_version_key" ON "ModelSpec"("key", "version");

-- CreateIndex
CREATE INDEX "IncidentModel_specId_idx" ON "IncidentModel"("specId");

-- CreateIndex
CREATE INDEX "Scenario_incidentId_actionableKey_idx" ON "Scenario"("incidentId", "actionableKey");

-- CreateIndex
CREATE UNIQUE INDEX "Scenario_incidentId_key_key" ON "Scenario"("incidentId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "ModelRun_inputHash_key" ON "ModelRun"("inputHash");

-- CreateIndex
CREATE INDEX "ModelRun_incidentId_scenarioKey_queuedAt_idx" ON "ModelRun"("incidentId", "scenarioKey", "queuedAt");

-- CreateIndex
CREATE INDEX "ModelRun_status_queuedAt_idx" ON "ModelRun"("status", "queuedAt");

-- AddForeignKey
ALTER TABLE "IncidentModel" ADD CONSTRAINT "IncidentModel_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IncidentModel" ADD CONSTRAINT "IncidentModel_specId_fkey" FOREIGN KEY ("specId") REFERENCES "ModelSpec"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Scenario" ADD CONSTRAINT "Scenario_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "IncidentModel"("incidentId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ModelRun" ADD CONSTRAINT "ModelRun_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ModelRun" ADD CONSTRAINT "ModelRun_specId_fkey" FOREIGN KEY ("specId") REFERENCES "ModelSpec"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
