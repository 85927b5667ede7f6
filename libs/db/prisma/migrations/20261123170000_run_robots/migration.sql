-- A crawl's robots.txt is kept on its run, written once at the start, instead of inside the job's
-- state, which every settle step reads and writes whole.
ALTER TABLE "run" ADD COLUMN "robots_txt" TEXT;
ALTER TABLE "run" ADD COLUMN "robots_status" INTEGER;
