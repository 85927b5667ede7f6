-- A workspace's open batch scrapes share its part of the work stream (SCRAPE_WORKSPACE_WINDOW):
-- each count of a batch's pages reads how many are open in its workspace. Partial, so that it
-- holds the few open batches and not every one-URL job a workspace ever ran. Prisma's schema
-- language has no partial index: this one lives in the migrations only (schema.prisma says so
-- beside the model).
CREATE INDEX "job_open_batches" ON "job" ("workspace_id")
  WHERE "dispatch_window" > 0 AND "status" IN ('queued', 'running');
