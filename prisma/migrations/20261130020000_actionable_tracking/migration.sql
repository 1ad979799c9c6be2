-- CreateEnum
CREATE TYPE "ActionablePriority" AS ENUM ('p0', 'p1', 'p2', 'p3');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('viewer', 'editor', 'admin');

-- CreateEnum
CREATE TYPE "AuditEntity" AS ENUM ('incident', 'timeline_event', 'causal_factor', 'causal_link', 'actionable', 'api_token');

-- CreateEnum
CREATE TYPE "AuditAction" AS ENUM ('create', 'update', 'delete');

-- AlterTable
ALTER TABLE "Actionable" ADD COLUMN     "closedAt" TIMESTAMPTZ(3),
ADD COLUMN     "closedBy" TEXT,
ADD COLUMN     "priority" "ActionablePriority",
ADD COLUMN     "wontDoReason" TEXT;

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "actorTokenId" UUID,
    "incidentId" UUID,
    "actionableId" UUID,
    "entity" "AuditEntity" NOT NULL,
    "entityKey" TEXT NOT NULL,
    "action" "AuditAction" NOT NULL,
    "field" TEXT,
    "from" JSONB,
    "to" JSONB,
    "note" TEXT,
    "version" INTEGER,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEvent_incidentId_id_idx" ON "AuditEvent"("incidentId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_actionableId_id_idx" ON "AuditEvent"("actionableId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_name_key" ON "ApiToken"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- Not expressible in schema.prisma: the audit trail is append-only in the database itself, not
-- only through the API. Lifting it takes DDL (dropping or disabling the trigger), which the
-- application never issues; a migration doing so would show up in review.
CREATE FUNCTION "AuditEvent_refuse_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'AuditEvent is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "AuditEvent_append_only_row"
    BEFORE UPDATE OR DELETE ON "AuditEvent"
    FOR EACH ROW EXECUTE FUNCTION "AuditEvent_refuse_change"();

CREATE TRIGGER "AuditEvent_append_only_truncate"
    BEFORE TRUNCATE ON "AuditEvent"
    FOR EACH STATEMENT EXECUTE FUNCTION "AuditEvent_refuse_change"();
