-- CreateTable
CREATE TABLE "discovery_snapshot" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "summary" JSONB,
    "diff" JSONB,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discovery_snapshot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "discovery_snapshot_job_id_key" ON "discovery_snapshot"("job_id");

-- CreateIndex
CREATE INDEX "discovery_snapshot_project_id_created_at_idx" ON "discovery_snapshot"("project_id", "created_at");

-- AddForeignKey
ALTER TABLE "discovery_snapshot" ADD CONSTRAINT "discovery_snapshot_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

