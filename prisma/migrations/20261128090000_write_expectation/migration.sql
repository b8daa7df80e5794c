-- A write may decide on rows it read without locking them (a checkout prices its cart from one read) and lock and
-- change them only in its final statement. That statement checks, under the locks, that what it decided on still
-- holds; when it does not, this raises a serialization failure (SQLSTATE 40001), the transaction rolls back, and the
-- tool call runs again on fresh rows (docs/performance.md, "Writes"). Expand-only: the previous release never calls it.
CREATE FUNCTION agent_api_expect(holds boolean, what text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF holds IS NOT TRUE THEN
    RAISE EXCEPTION 'changed while this write ran: %', what USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN true;
END
$$;
