-- Whether an invitation's code went out by mail (issue 12): accepting proves the address only then.
-- AlterTable
ALTER TABLE "invite" ADD COLUMN     "mailed_at" TIMESTAMP(3);
