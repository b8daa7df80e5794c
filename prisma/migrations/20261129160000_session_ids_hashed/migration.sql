-- The authorization server's browser sessions are stored like its tokens (src/oauth/adapter.ts): the row id is
-- `Session:` and the base64url SHA-256 of the session cookie's value, the payload keeps no `jti`, and an interaction
-- no longer copies the session's cookie value. Re-keys the rows written before, so sessions in flight survive the
-- upgrade. Tokens and codes have been stored this way from the start and are left as they are. A previous-release
-- instance still running looks a re-keyed session up by its plain id and misses: that browser's authorization starts
-- again (sessions live 10 minutes); no token is affected.
UPDATE "OAuthRecord"
   SET "id" = 'Session:' || rtrim(translate(encode(sha256(convert_to(substr("id", length('Session:') + 1), 'UTF8')), 'base64'), '+/', '-_'), '='),
       "payload" = "payload" - 'jti'
 WHERE "id" LIKE 'Session:%';

UPDATE "OAuthRecord" SET "payload" = "payload" #- '{session,cookie}' WHERE "id" LIKE 'Interaction:%';
