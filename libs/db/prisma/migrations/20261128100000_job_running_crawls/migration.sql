-- A crawl's step that opens a lease slot reads the lease slots of its workspace's running crawls
-- and runs (one lease of a workspace waits in the work queue at a time: crawl's CrawlLeases). The
-- partial index keeps that read to the running ones, however many crawls the workspace has run.
CREATE INDEX "job_running_crawls" ON "job" ("workspace_id")
  WHERE "kind" IN ('crawl', 'run') AND "status" = 'running';
