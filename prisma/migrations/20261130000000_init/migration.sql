-- CreateEnum
CREATE TYPE "TimePrecision" AS ENUM ('second', 'minute', 'ten_minutes', 'hour', 'day', 'approximate', 'none');

-- CreateEnum
CREATE TYPE "TimelineEventKind" AS ENUM ('trigger', 'detection', 'escalation', 'mitigation', 'recovery', 'observation');

-- CreateEnum
CREATE TYPE "FactorRole" AS ENUM ('trigger', 'condition', 'amplifier', 'latent', 'mitigating');

-- CreateEnum
CREATE TYPE "CausalLinkKind" AS ENUM ('causes', 'amplifies', 'enables');

-- CreateEnum
CREATE TYPE "ActionableStatus" AS ENUM ('open', 'in_progress', 'done', 'wont_do');

-- CreateEnum
CREATE TYPE "ReferenceKind" AS ENUM ('phabricator', 'github_pull', 'github_issue', 'jira', 'url');

-- CreateEnum
CREATE TYPE "IncidentStatus" AS ENUM ('draft', 'published');

-- CreateTable
CREATE TABLE "Incident" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "slug" TEXT NOT NULL,
    "status" "IncidentStatus" NOT NULL DEFAULT 'published',
    "title" TEXT NOT NULL,
    "organization" TEXT NOT NULL,
    "components" TEXT[],
    "summary" TEXT NOT NULL,
    "narrative" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "sourceTitle" TEXT NOT NULL,
    "sourceUrl" TEXT,
    "sourceLanguage" TEXT NOT NULL,
    "startedAt" TIMESTAMPTZ(3),
    "startedPrecision" "TimePrecision" NOT NULL DEFAULT 'none',
    "detectedAt" TIMESTAMPTZ(3),
    "detectedPrecision" "TimePrecision" NOT NULL DEFAULT 'none',
    "mitigatedAt" TIMESTAMPTZ(3),
    "mitigatedPrecision" "TimePrecision" NOT NULL DEFAULT 'none',
    "resolvedAt" TIMESTAMPTZ(3),
    "resolvedPrecision" "TimePrecision" NOT NULL DEFAULT 'none',
    "searchText" TEXT NOT NULL DEFAULT '',
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Incident_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IncidentSlugAlias" (
    "slug" TEXT NOT NULL,
    "incidentId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IncidentSlugAlias_pkey" PRIMARY KEY ("slug")
);

-- CreateTable
CREATE TABLE "TimelineEvent" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3),
    "precision" "TimePrecision" NOT NULL,
    "asWritten" TEXT,
    "kind" "TimelineEventKind" NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "TimelineEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CausalFactor" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "role" "FactorRole" NOT NULL,
    "component" TEXT NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "CausalFactor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CausalLink" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "fromId" UUID NOT NULL,
    "toId" UUID NOT NULL,
    "kind" "CausalLinkKind" NOT NULL,

    CONSTRAINT "CausalLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Actionable" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "incidentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "owner" TEXT,
    "status" "ActionableStatus" NOT NULL DEFAULT 'open',
    "dueDate" DATE,
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Actionable_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExternalReference" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "actionableId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" "ReferenceKind" NOT NULL,
    "ref" TEXT NOT NULL,
    "url" TEXT,

    CONSTRAINT "ExternalReference_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ActionableFactor" (
    "actionableId" UUID NOT NULL,
    "factorId" UUID NOT NULL,

    CONSTRAINT "ActionableFactor_pkey" PRIMARY KEY ("actionableId","factorId")
);

-- CreateTable
CREATE TABLE "Pattern" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,

    CONSTRAINT "Pattern_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IncidentPattern" (
    "incidentId" UUID NOT NULL,
    "patternId" UUID NOT NULL,

    CONSTRAINT "IncidentPattern_pkey" PRIMARY KEY ("incidentId","patternId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Incident_slug_key" ON "Incident"("slug");

-- CreateIndex
CREATE INDEX "Incident_startedAt_idx" ON "Incident"("startedAt");

-- CreateIndex
CREATE INDEX "Incident_organization_idx" ON "Incident"("organization");

-- CreateIndex
CREATE INDEX "IncidentSlugAlias_incidentId_idx" ON "IncidentSlugAlias"("incidentId");

-- CreateIndex
CREATE INDEX "TimelineEvent_incidentId_position_idx" ON "TimelineEvent"("incidentId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "TimelineEvent_incidentId_key_key" ON "TimelineEvent"("incidentId", "key");

-- CreateIndex
CREATE INDEX "CausalFactor_incidentId_position_idx" ON "CausalFactor"("incidentId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "CausalFactor_incidentId_key_key" ON "CausalFactor"("incidentId", "key");

-- CreateIndex
CREATE INDEX "CausalLink_incidentId_idx" ON "CausalLink"("incidentId");

-- CreateIndex
CREATE INDEX "CausalLink_toId_idx" ON "CausalLink"("toId");

-- CreateIndex
CREATE UNIQUE INDEX "CausalLink_fromId_toId_kind_key" ON "CausalLink"("fromId", "toId", "kind");

-- CreateIndex
CREATE INDEX "Actionable_incidentId_position_idx" ON "Actionable"("incidentId", "position");

-- CreateIndex
CREATE INDEX "Actionable_status_dueDate_idx" ON "Actionable"("status", "dueDate");

-- CreateIndex
CREATE INDEX "Actionable_owner_idx" ON "Actionable"("owner");

-- CreateIndex
CREATE UNIQUE INDEX "Actionable_incidentId_key_key" ON "Actionable"("incidentId", "key");

-- CreateIndex
CREATE INDEX "ExternalReference_actionableId_position_idx" ON "ExternalReference"("actionableId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "ExternalReference_actionableId_ref_key" ON "ExternalReference"("actionableId", "ref");

-- CreateIndex
CREATE INDEX "ActionableFactor_factorId_idx" ON "ActionableFactor"("factorId");

-- CreateIndex
CREATE UNIQUE INDEX "Pattern_key_key" ON "Pattern"("key");

-- CreateIndex
CREATE INDEX "IncidentPattern_patternId_idx" ON "IncidentPattern"("patternId");

-- AddForeignKey
ALTER TABLE "IncidentSlugAlias" ADD CONSTRAINT "IncidentSlugAlias_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TimelineEvent" ADD CONSTRAINT "TimelineEvent_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CausalFactor" ADD CONSTRAINT "CausalFactor_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CausalLink" ADD CONSTRAINT "CausalLink_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CausalLink" ADD CONSTRAINT "CausalLink_fromId_fkey" FOREIGN KEY ("fromId") REFERENCES "CausalFactor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CausalLink" ADD CONSTRAINT "CausalLink_toId_fkey" FOREIGN KEY ("toId") REFERENCES "CausalFactor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Actionable" ADD CONSTRAINT "Actionable_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExternalReference" ADD CONSTRAINT "ExternalReference_actionableId_fkey" FOREIGN KEY ("actionableId") REFERENCES "Actionable"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ActionableFactor" ADD CONSTRAINT "ActionableFactor_actionableId_fkey" FOREIGN KEY ("actionableId") REFERENCES "Actionable"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ActionableFactor" ADD CONSTRAINT "ActionableFactor_factorId_fkey" FOREIGN KEY ("factorId") REFERENCES "CausalFactor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IncidentPattern" ADD CONSTRAINT "IncidentPattern_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IncidentPattern" ADD CONSTRAINT "IncidentPattern_patternId_fkey" FOREIGN KEY ("patternId") REFERENCES "Pattern"("id") ON DELETE CASCADE ON UPDATE CASCADE;
