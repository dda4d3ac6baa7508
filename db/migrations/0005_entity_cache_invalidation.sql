-- Invalidation for the per-process entity cache (api/entities/cache/).
-- Every change to a row a cached Status or Account is built from announces
-- the entity's key on the rookery_entities channel; PostgreSQL delivers it to
-- every process at commit. Triggers, not application code, so that no write
-- path (commands, inbox, jobs, the admin command line, hand-written SQL) can
-- forget to. Keys: s<status id>, a<account id>, c<preview card id>, * (all).
CREATE FUNCTION rookery_notify_status_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', 's' || OLD.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rookery_notify_status_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status_id IS NOT NULL THEN
    PERFORM pg_notify('rookery_entities', 's' || OLD.status_id);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status_id IS NOT NULL THEN
    PERFORM pg_notify('rookery_entities', 's' || NEW.status_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rookery_notify_account_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', 'a' || OLD.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rookery_notify_account_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.account_id IS NOT NULL THEN
    PERFORM pg_notify('rookery_entities', 'a' || OLD.account_id);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.account_id IS NOT NULL THEN
    PERFORM pg_notify('rookery_entities', 'a' || NEW.account_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rookery_notify_card() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', 'c' || OLD.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rookery_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', '*');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER statuses_entity_cache AFTER UPDATE OR DELETE ON statuses
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_row();
--> statement-breakpoint
CREATE TRIGGER polls_entity_cache AFTER INSERT OR UPDATE OR DELETE ON polls
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER media_attachments_entity_cache AFTER INSERT OR UPDATE OR DELETE ON media_attachments
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER mentions_entity_cache AFTER INSERT OR UPDATE OR DELETE ON mentions
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER statuses_tags_entity_cache AFTER INSERT OR UPDATE OR DELETE ON statuses_tags
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER statuses_custom_emojis_entity_cache
  AFTER INSERT OR UPDATE OR DELETE ON statuses_custom_emojis
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER statuses_preview_cards_entity_cache
  AFTER INSERT OR UPDATE OR DELETE ON statuses_preview_cards
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_status_part();
--> statement-breakpoint
CREATE TRIGGER accounts_entity_cache AFTER UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_account_row();
--> statement-breakpoint
CREATE TRIGGER users_entity_cache AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_account_part();
--> statement-breakpoint
CREATE TRIGGER accounts_custom_emojis_entity_cache
  AFTER INSERT OR UPDATE OR DELETE ON accounts_custom_emojis
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_account_part();
--> statement-breakpoint
CREATE TRIGGER preview_cards_entity_cache AFTER UPDATE OR DELETE ON preview_cards
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_card();
--> statement-breakpoint
-- Emoji and applications appear in many entities and change rarely: any
-- change that shows clears every cache. Remote emoji are upserted with each
-- status using them, so only changes to what an entity shows count.
CREATE TRIGGER custom_emojis_entity_cache AFTER UPDATE ON custom_emojis
  FOR EACH ROW WHEN (
    (OLD.shortcode, OLD.domain, OLD.file_path, OLD.static_path, OLD.remote_url, OLD.category,
      OLD.visible_in_picker, OLD.disabled)
    IS DISTINCT FROM
    (NEW.shortcode, NEW.domain, NEW.file_path, NEW.static_path, NEW.remote_url, NEW.category,
      NEW.visible_in_picker, NEW.disabled)
  ) EXECUTE FUNCTION rookery_notify_all();
--> statement-breakpoint
CREATE TRIGGER custom_emojis_removed_entity_cache AFTER DELETE ON custom_emojis
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_all();
--> statement-breakpoint
CREATE TRIGGER oauth_applications_entity_cache AFTER UPDATE OR DELETE ON oauth_applications
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_all();
