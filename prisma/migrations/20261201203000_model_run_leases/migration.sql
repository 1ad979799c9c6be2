-- AlterTable
ALTER TABLE "ModelRun" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "clientKey" TEXT,
ADD COLUMN     "errorCode" TEXT,
ADD COLUMN     "leaseExpiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "leaseOwner" TEXT;

-- CreateIndex
CREATE INDEX "ModelRun_status_leaseExpiresAt_idx" ON "ModelRun"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "ModelRun_clientKey_queuedAt_idx" ON "ModelRun"("clientKey", "queuedAt");
