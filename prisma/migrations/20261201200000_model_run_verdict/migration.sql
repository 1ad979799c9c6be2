-- A run's standing against its model's failure criterion, and a fix scenario's verdict.
ALTER TABLE "ModelRun" ADD COLUMN "failure" JSONB,
ADD COLUMN "verdict" JSONB;
