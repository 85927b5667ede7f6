-- A batch scrape's URLs go on the work stream a window at a time (docs/architecture.md, Messages):
-- how many went on so far, and how many may wait unsettled at once. Jobs written before keep 0:
-- every URL of theirs went on at once.
ALTER TABLE "job" ADD COLUMN "dispatched" INTEGER NOT NULL DEFAULT 0,
                  ADD COLUMN "dispatch_window" INTEGER NOT NULL DEFAULT 0;
