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

-- Every entry written, removed or changed moves the totals in the same transaction, whoever writes it.
CREATE FUNCTION credit_balance_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE credit_balance
       SET total = total - OLD.credits,
           granted = granted - CASE WHEN OLD.kind = 'grant' THEN OLD.credits ELSE 0 END,
           used = used + CASE WHEN OLD.kind = 'charge' THEN OLD.credits ELSE 0 END
     WHERE workspace_id = OLD.workspace_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO credit_balance AS b (workspace_id, total, granted, used, welcomed)
    VALUES (NEW.workspace_id, NEW.credits,
            CASE WHEN NEW.kind = 'grant' THEN NEW.credits ELSE 0 END,
            CASE WHEN NEW.kind = 'charge' THEN 0 - NEW.credits ELSE 0 END,
            NEW.reference = 'welcome')
    ON CONFLICT (workspace_id) DO UPDATE
       SET total = b.total + EXCLUDED.total,
           granted = b.granted + EXCLUDED.granted,
           used = b.used + EXCLUDED.used,
           welcomed = b.welcomed OR EXCLUDED.welcomed;
    RETURN NEW;
  END IF;
  RETURN OLD;
END $$;

CREATE TRIGGER ledger_entry_balance
AFTER INSERT OR UPDATE OR DELETE ON "ledger_entry"
FOR EACH ROW EXECUTE FUNCTION credit_balance_follow();
