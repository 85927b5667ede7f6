-- A workspace's batches share its part of the work stream by the count of its open batches that
-- can hold more than one URL there (dispatch_window > 1). A one-URL job (window 1) takes no share:
-- counted, a workspace's one-URL scrapes queued on a busy replica shrank its real batches' shares
-- to one URL each. The partial index follows the count's predicate.
DROP INDEX IF EXISTS "job_open_batches";
CREATE INDEX "job_open_batches" ON "job" ("workspace_id")
  WHERE "dispatch_window" > 1 AND "status" IN ('queued', 'running');
