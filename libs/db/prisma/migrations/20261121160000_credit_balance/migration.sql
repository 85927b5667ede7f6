-- CreateTable
CREATE TABLE "credit_balance" (
    "workspace_id" TEXT NOT NULL,
    "total" BIGINT NOT NULL DEFAULT 0,
    "granted" BIGINT NOT NULL DEFAULT 0,
    "used" BIGINT NOT NULL DEFAULT 0,
    "welcomed" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "credit_balance_pkey" PRIMARY KEY ("workspace_id")
);


-- The totals of what is already in the ledger.
INSERT INTO "credit_balance" (workspace_id, total, granted, used, welcomed)
SELECT workspace_id,
       SUM(credits),
       COALESCE(SUM(credits) FILTER (WHERE kind = 'grant'), 0),
       COALESCE(0 - SUM(credits) FILTER (WHERE kind = 'charge'), 0),
       BOOL_OR(reference = 'welcome')
  FROM "ledger_entry"
 GROUP BY workspace_id;

-- Every statement that writes, removes or changes entries moves the totals once, after its rows
-- are in, in the same transaction, whoever writes it. Statement-level (transition tables): a
-- row-level trigger would lock the balance row between two entries of one statement, and two
-- statements writing the same reference could then wait on each other (a deadlock).
CREATE FUNCTION credit_balance_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE credit_balance b
       SET total = b.total - d.total, granted = b.granted - d.granted, used = b.used - d.used
      FROM (SELECT workspace_id,
                   SUM(credits) AS total,
                   COALESCE(SUM(credits) FILTER (WHERE kind = 'grant'), 0) AS granted,
                   COALESCE(0 - SUM(credits) FILTER (WHERE kind = 'charge'), 0) AS used
              FROM old_rows GROUP BY workspace_id) d
     WHERE b.workspace_id = d.workspace_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    -- In workspace order, so two statements touching the same workspaces lock them alike.
    INSERT INTO credit_balance AS b (workspace_id, total, granted, used, welcomed)
    SELECT workspace_id,
           SUM(credits),
           COALESCE(SUM(credits) FILTER (WHERE kind = 'grant'), 0),
           COALESCE(0 - SUM(credits) FILTER (WHERE kind = 'charge'), 0),
           BOOL_OR(reference = 'welcome')
      FROM new_rows GROUP BY workspace_id ORDER BY workspace_id
    ON CONFLICT (workspace_id) DO UPDATE
       SET total = b.total + EXCLUDED.total,
           granted = b.granted + EXCLUDED.granted,
           used = b.used + EXCLUDED.used,
           welcomed = b.welcomed OR EXCLUDED.welcomed;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_entry_balance_insert AFTER INSERT ON "ledger_entry"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credit_balance_follow();
CREATE TRIGGER ledger_entry_balance_update AFTER UPDATE ON "ledger_entry"
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credit_balance_follow();
CREATE TRIGGER ledger_entry_balance_delete AFTER DELETE ON "ledger_entry"
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credit_balance_follow();
