-- An Idempotency-Key is claimed with a transaction-scoped advisory lock. The claim is pipelined ahead of the write's
-- first statement (the write does not wait for its answer), so it cannot answer "not locked" for Node to act on:
-- it raises instead, with a SQLSTATE of its own (AK409), which aborts the transaction; the call then answers 409
-- idempotency_in_progress (docs/performance.md, "Writes"). Expand-only: the previous release never calls it.
CREATE FUNCTION agent_api_claim_key(lock_key text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(lock_key, 0)) THEN
    RAISE EXCEPTION 'a call with this Idempotency-Key is still running' USING ERRCODE = 'AK409';
  END IF;
  RETURN true;
END
$$;
