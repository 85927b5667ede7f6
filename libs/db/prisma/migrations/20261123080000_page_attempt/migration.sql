-- Which attempt of a crawl page wrote its row: a redelivered retry whose own row was written
-- answers from it instead of fetching the page again.
ALTER TABLE "page" ADD COLUMN "attempt" INTEGER NOT NULL DEFAULT 0;
