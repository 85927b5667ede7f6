-- CreateTable
CREATE TABLE "change_record" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "baseline_run_id" TEXT,
    "counts" JSONB NOT NULL,
    "coverage" JSONB NOT NULL,
    "template_changes" JSONB NOT NULL DEFAULT '[]',
    "noise" JSONB NOT NULL,
    "digest" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_record_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_entry" (
    "id" TEXT NOT NULL,
    "change_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "reviewed" BOOLEAN NOT NULL DEFAULT false,
    "reviewed_at" TIMESTAMP(3),

    CONSTRAINT "change_entry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "change_record_run_id_key" ON "change_record"("run_id");

-- CreateIndex
CREATE INDEX "change_record_project_id_created_at_idx" ON "change_record"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "change_entry_change_id_url_idx" ON "change_entry"("change_id", "url");

-- AddForeignKey
ALTER TABLE "change_record" ADD CONSTRAINT "change_record_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "change_entry" ADD CONSTRAINT "change_entry_change_id_fkey" FOREIGN KEY ("change_id") REFERENCES "change_record"("id") ON DELETE CASCADE ON UPDATE CASCADE;

