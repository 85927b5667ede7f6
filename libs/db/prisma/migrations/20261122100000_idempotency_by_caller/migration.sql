-- Idempotency records belong to the caller who made them (issue 12): a key or a member, never
-- the whole workspace. Records kept so far were shared by the workspace and may hold secrets in
-- the clear; they are 24-hour answers, so they are dropped rather than guessed an owner.
DELETE FROM "idempotency_record";

-- AlterTable
ALTER TABLE "idempotency_record" DROP CONSTRAINT "idempotency_record_pkey",
ADD COLUMN     "caller" TEXT NOT NULL,
ADD COLUMN     "secrets" TEXT,
ADD CONSTRAINT "idempotency_record_pkey" PRIMARY KEY ("workspace_id", "caller", "key");
