-- Outgoing notifications read the audit trail as their outbox. Each event records the id of the
-- transaction that wrote it, so a reader can take exactly the events of transactions that have
-- finished (txid below the oldest still running) and never skip one that commits late.
ALTER TABLE "AuditEvent" ADD COLUMN "txid" xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX "AuditEvent_txid_id_idx" ON "AuditEvent" ("txid", "id");

-- How far each reader of the trail has got.
CREATE TABLE "NotificationCursor" (
    "name" TEXT NOT NULL,
    "txid" xid8 NOT NULL,
    "eventId" BIGINT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "NotificationCursor_pkey" PRIMARY KEY ("name")
);

-- Follow-ups already announced as overdue for a due date: a new due date can become overdue again.
CREATE TABLE "OverdueNotice" (
    "actionableId" UUID NOT NULL,
    "dueDate" DATE NOT NULL,
    "notifiedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OverdueNotice_pkey" PRIMARY KEY ("actionableId", "dueDate"),
    CONSTRAINT "OverdueNotice_actionableId_fkey" FOREIGN KEY ("actionableId") REFERENCES "Actionable"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
