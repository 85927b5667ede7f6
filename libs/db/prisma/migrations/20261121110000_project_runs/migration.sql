-- CreateIndex
CREATE INDEX "run_project_id_status_idx" ON "run"("project_id", "status");

-- CreateIndex
CREATE INDEX "job_run_id_idx" ON "job"("run_id");

