-- DropIndex
DROP INDEX "page_job_id_position_idx";

-- AlterTable
ALTER TABLE "job" ADD COLUMN     "result" JSONB,
ADD COLUMN     "run_id" TEXT;

-- CreateTable
CREATE TABLE "map_url" (
    "job_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "lastmod" TEXT,
    "changefreq" TEXT,
    "source" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "section" TEXT NOT NULL,

    CONSTRAINT "map_url_pkey" PRIMARY KEY ("job_id","position")
);

-- CreateTable
CREATE TABLE "crawl_url" (
    "run_id" TEXT NOT NULL,
    "url_key" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "found_via" TEXT NOT NULL,
    "first_referer" TEXT,
    "in_sitemap" BOOLEAN NOT NULL DEFAULT false,
    "in_links" INTEGER NOT NULL DEFAULT 0,
    "out_links" INTEGER,
    "not_before" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "dispatched_at" TIMESTAMP(3),
    "done_at" TIMESTAMP(3),
    "verdict" TEXT,
    "error_code" TEXT,
    "http_status" INTEGER,

    CONSTRAINT "crawl_url_pkey" PRIMARY KEY ("run_id","url_key")
);

-- CreateIndex
CREATE INDEX "crawl_url_run_id_state_depth_position_idx" ON "crawl_url"("run_id", "state", "depth", "position");

-- CreateIndex
CREATE INDEX "crawl_url_run_id_done_at_position_idx" ON "crawl_url"("run_id", "done_at", "position");

-- CreateIndex
CREATE UNIQUE INDEX "crawl_url_run_id_position_key" ON "crawl_url"("run_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "page_job_id_position_key" ON "page"("job_id", "position");

-- AddForeignKey
ALTER TABLE "crawl_url" ADD CONSTRAINT "crawl_url_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

