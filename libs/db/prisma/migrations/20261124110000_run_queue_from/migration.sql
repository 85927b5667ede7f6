-- Where a crawl's queue starts in crawl order (depth, position): no URL of the run is queued
-- before it. The dispatch reads the queue from there instead of from the run's first URL, past
-- the index entries every URL it already handed out left behind until a VACUUM (4.4 ms a step
-- with 90,000 handed out). (0, 0), the start, is always right.
ALTER TABLE "run" ADD COLUMN "queue_from_depth" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "run" ADD COLUMN "queue_from_position" INTEGER NOT NULL DEFAULT 0;
