-- AlterTable
ALTER TABLE "user" ADD COLUMN     "mfa_enabled_at" TIMESTAMP(3),
ADD COLUMN     "mfa_last_step" INTEGER,
ADD COLUMN     "mfa_secret" TEXT;

-- AlterTable
ALTER TABLE "session" ADD COLUMN     "mfa_at" TIMESTAMP(3);

