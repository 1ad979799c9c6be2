-- Teams of accounts, follow-ups owned by an account or a team, and runbooks citing records.
ALTER TYPE "AuditEntity" ADD VALUE 'team';
ALTER TYPE "AuditEntity" ADD VALUE 'runbook';

CREATE TYPE "CitedKind" AS ENUM ('incident', 'causal_factor', 'actionable', 'pattern');

CREATE TABLE "Team" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "version" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "Team_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "Team_name_key" ON "Team"("name");

CREATE TABLE "TeamMember" (
    "teamId" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "addedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TeamMember_pkey" PRIMARY KEY ("teamId", "accountId"),
    CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TeamMember_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "TeamMember_accountId_idx" ON "TeamMember"("accountId");

-- A follow-up is owned by at most one of: an account, a team, or (imported and older records) free text.
ALTER TABLE "Actionable" ADD COLUMN "ownerAccountId" UUID, ADD COLUMN "ownerTeamId" UUID;
ALTER TABLE "Actionable" ADD CONSTRAINT "Actionable_ownerAccountId_fkey" FOREIGN KEY ("ownerAccountId") REFERENCES "Account"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Actionable" ADD CONSTRAINT "Actionable_ownerTeamId_fkey" FOREIGN KEY ("ownerTeamId") REFERENCES "Team"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Actionable" ADD CONSTRAINT "Actionable_one_owner" CHECK ("ownerAccountId" IS NULL OR "ownerTeamId" IS NULL);
CREATE INDEX "Actionable_ownerAccountId_idx" ON "Actionable"("ownerAccountId");
CREATE INDEX "Actionable_ownerTeamId_idx" ON "Actionable"("ownerTeamId");

CREATE TABLE "Runbook" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "url" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Runbook_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "Runbook_url_key" ON "Runbook"("url");

-- One row per (runbook, cited record). Exactly one target column is set; deleting the target
-- deletes the citation (the audit trail keeps it).
CREATE TABLE "RunbookCitation" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "runbookId" UUID NOT NULL,
    "kind" "CitedKind" NOT NULL,
    "incidentId" UUID,
    "factorId" UUID,
    "actionableId" UUID,
    "patternId" UUID,
    "citedBy" TEXT NOT NULL,
    "citedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunbookCitation_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "RunbookCitation_runbookId_fkey" FOREIGN KEY ("runbookId") REFERENCES "Runbook"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RunbookCitation_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RunbookCitation_factorId_fkey" FOREIGN KEY ("factorId") REFERENCES "CausalFactor"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RunbookCitation_actionableId_fkey" FOREIGN KEY ("actionableId") REFERENCES "Actionable"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RunbookCitation_patternId_fkey" FOREIGN KEY ("patternId") REFERENCES "Pattern"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RunbookCitation_one_target" CHECK (
        num_nonnulls("incidentId", "factorId", "actionableId", "patternId") = 1
        AND ("kind" <> 'incident' OR "incidentId" IS NOT NULL)
        AND ("kind" <> 'causal_factor' OR "factorId" IS NOT NULL)
        AND ("kind" <> 'actionable' OR "actionableId" IS NOT NULL)
        AND ("kind" <> 'pattern' OR "patternId" IS NOT NULL))
);
-- A runbook cites a record once (ids are uuids, so one expression covers the four columns).
CREATE UNIQUE INDEX "RunbookCitation_runbook_target_key" ON "RunbookCitation"("runbookId", (COALESCE("incidentId", "factorId", "actionableId", "patternId")));
CREATE INDEX "RunbookCitation_runbookId_idx" ON "RunbookCitation"("runbookId");
CREATE INDEX "RunbookCitation_incidentId_idx" ON "RunbookCitation"("incidentId");
CREATE INDEX "RunbookCitation_factorId_idx" ON "RunbookCitation"("factorId");
CREATE INDEX "RunbookCitation_actionableId_idx" ON "RunbookCitation"("actionableId");
CREATE INDEX "RunbookCitation_patternId_idx" ON "RunbookCitation"("patternId");
