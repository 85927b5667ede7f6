-- A leased crawl's URLs are held by one of its lease slots while dispatched (ADR 14: two
-- holders sharing a crawl). Nullable, no default: adding it rewrites nothing.
ALTER TABLE "crawl_url" ADD COLUMN "lease_slot" SMALLINT;
