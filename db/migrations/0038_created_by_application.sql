-- users.created_by_application_id (migration 0026) names the app an account
-- signed up with through the API; only that app may resend its confirmation
-- (POST /api/v1/emails/confirmations). Accounts made before 0026 have none.
-- Fill it in only where it is certain: the API's registration issues the
-- app's token in the transaction that creates the user, so the two rows share
-- that transaction's now() to the microsecond. A web or command-line account
-- never got a token in its own transaction; a token authorized later has a
-- later time. Anything else stays null, which no app may speak for.
UPDATE "users" AS u
SET "created_by_application_id" = t."application_id"
FROM "oauth_access_tokens" AS t
WHERE u."created_by_application_id" IS NULL
  AND t."user_id" = u."id"
  AND t."application_id" IS NOT NULL
  AND t."created_at" = u."created_at"
  AND NOT EXISTS (
    SELECT 1 FROM "oauth_access_tokens" AS other
    WHERE other."user_id" = u."id"
      AND other."created_at" = u."created_at"
      AND other."application_id" IS DISTINCT FROM t."application_id"
  );
