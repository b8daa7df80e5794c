-- The claim also looks for a live record of the key, after it holds the lock. earlierOutcome() read none just before,
-- but a call with the same key may have committed in between and released the lock: this call then got the lock,
-- and without this check its handler ran on the rows the first call left (products.create answered 409 `conflict`
-- for its own slug instead of a replay). Inside this VOLATILE function the look-up is a statement of its own, so it
-- sees what committed before the lock was taken; finding a record raises 40001, the call runs again and replays.
-- Expand-only: the one-argument function stays for the previous release.
CREATE FUNCTION agent_api_claim_key(lock_key text, api_key_id text, idem_key text, live_since timestamptz) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(lock_key, 0)) THEN
    RAISE EXCEPTION 'a call with this Idempotency-Key is still running' USING ERRCODE = 'AK409';
  END IF;
  IF EXISTS (SELECT FROM "IdempotencyRecord" WHERE "apiKeyId" = api_key_id AND key = idem_key AND "createdAt" >= live_since) THEN
    RAISE EXCEPTION 'a call with this Idempotency-Key committed since this one looked' USING ERRCODE = '40001';
  END IF;
  RETURN true;
END
$$;
