-- Read requests find their access token in the entity cache
-- (api/entities/entity_cache.ts). A token row that changes (revoked) or goes
-- sends its id on the same channel; its user's changes already send the
-- account id (users_entity_cache, migration 0005), which evicts the user's
-- tokens too.
CREATE FUNCTION rookery_notify_token() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', 't' || OLD.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER oauth_access_tokens_entity_cache AFTER UPDATE OR DELETE ON oauth_access_tokens
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_token();
