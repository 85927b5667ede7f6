-- GET /v1/me/usage counts a workspace's pages per day over the last 30 days.
CREATE INDEX "page_workspace_id_crawled_at_idx" ON "page"("workspace_id", "crawled_at");
