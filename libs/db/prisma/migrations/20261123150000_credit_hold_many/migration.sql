-- Billing's batch of holds for one workspace as one call: the workspace's lock, the balance read
-- once, holds placed in the order given while what is left pays for them, the placed ones
-- written. It was five round trips (BEGIN, lock, read, insert, COMMIT) before every one-URL
-- scrape and every block of a crawl's credits; as one statement it is one.
-- Answers, per unit in order: 'held' (new or renewed), 'charged' (already charged: nothing
-- held) or 'refused'.
CREATE FUNCTION credit_hold_many(ws TEXT, refs TEXT[], reasons TEXT[], amounts INTEGER[], ttl_ms INTEGER)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
DECLARE
  left_over BIGINT;
  charged TEXT[];
  existing JSONB;
  outcomes TEXT[] := '{}';
  placed_refs TEXT[] := '{}';
  placed_reasons TEXT[] := '{}';
  placed_amounts INTEGER[] := '{}';
  had INTEGER;
  i INTEGER;
  k INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(ws, 0));
  SELECT COALESCE((SELECT total FROM credit_balance WHERE workspace_id = ws), 0)
       - (SELECT COALESCE(SUM(credits), 0) FROM credit_hold WHERE workspace_id = ws AND expires_at > now())
    INTO left_over;
  SELECT COALESCE(array_agg(reference), '{}') INTO charged
    FROM ledger_entry WHERE workspace_id = ws AND reference = ANY(refs);
  SELECT COALESCE(jsonb_object_agg(reference, credits), '{}'::jsonb) INTO existing
    FROM credit_hold WHERE workspace_id = ws AND expires_at > now() AND reference = ANY(refs);
  FOR i IN 1 .. COALESCE(array_length(refs, 1), 0) LOOP
    IF refs[i] = ANY(charged) THEN
      outcomes := outcomes || 'charged'::TEXT;
      CONTINUE;
    END IF;
    had := COALESCE((existing ->> refs[i])::INTEGER, 0);
    -- A renewed hold frees what it held before.
    IF amounts[i] > left_over + had THEN
      outcomes := outcomes || 'refused'::TEXT;
      CONTINUE;
    END IF;
    left_over := left_over - (amounts[i] - had);
    existing := existing || jsonb_build_object(refs[i], amounts[i]);
    -- One row per reference (a statement may not upsert a row twice): the last ask wins.
    k := array_position(placed_refs, refs[i]);
    IF k IS NULL THEN
      placed_refs := placed_refs || refs[i];
      placed_reasons := placed_reasons || reasons[i];
      placed_amounts := placed_amounts || amounts[i];
    ELSE
      placed_reasons[k] := reasons[i];
      placed_amounts[k] := amounts[i];
    END IF;
    outcomes := outcomes || 'held'::TEXT;
  END LOOP;
  IF array_length(placed_refs, 1) > 0 THEN
    INSERT INTO credit_hold (workspace_id, reference, reason, credits, expires_at)
    SELECT ws, t.ref, t.reason, t.credits, now() + make_interval(secs => ttl_ms / 1000.0)
      FROM unnest(placed_refs, placed_reasons, placed_amounts) AS t(ref, reason, credits)
    ON CONFLICT (workspace_id, reference) DO UPDATE
       SET credits = EXCLUDED.credits, expires_at = EXCLUDED.expires_at;
  END IF;
  RETURN outcomes;
END $$;
