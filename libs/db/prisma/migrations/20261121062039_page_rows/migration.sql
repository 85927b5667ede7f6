-- DropIndex
DROP INDEX "page_job_id_idx";

-- AlterTable
ALTER TABLE "job" ADD COLUMN     "secret" TEXT;

-- AlterTable
ALTER TABLE "page" ADD COLUMN     "bodies" BYTEA,
ADD COLUMN     "position" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "screenshot" BYTEA,
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'done',
ALTER COLUMN "verdict" DROP NOT NULL,
ALTER COLUMN "error_code" DROP NOT NULL,
ALTER COLUMN "crawled_at" DROP NOT NULL,
ALTER COLUMN "crawled_at" DROP DEFAULT;

-- CreateIndex
CREATE INDEX "page_job_id_position_idx" ON "page"("job_id", "position");

-- CreateIndex
CREATE INDEX "page_workspace_id_url_crawled_at_idx" ON "page"("workspace_id", "url", "crawled_at");
