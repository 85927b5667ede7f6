-- A frontier row is updated ~10 times while its crawl runs (in-link counts with every settled
-- pull, its hand-out, its settle). Room left on each page lets PostgreSQL write the new version
-- beside the old one without touching the four indexes (a HOT update) when no indexed column
-- changes, as an in-link count does not. Applies to pages written from now on; nothing rewritten.
ALTER TABLE "crawl_url" SET (fillfactor = 70);
