-- Every stored status updates its author's counters (statuses_count,
-- last_status_at), and the entity trigger of migration 0005 then compared
-- the whole row as two to_jsonb copies in plpgsql to tell a counter-only
-- change (n<id>, migration 0058) from any other (a<id>): about half of that
-- UPDATE's cost on PGlite. Now PostgreSQL tells them apart by the columns an
-- UPDATE sets: the counters' own trigger announces n<id> without comparing
-- anything, and the row's trigger (unchanged, still comparing, so an UPDATE
-- that sets other columns to their old values says n<id> as before) fires
-- only for a DELETE or an UPDATE setting some other column. An UPDATE
-- setting both kinds fires both, so n<id> may come twice: every listener
-- takes it as often as it comes. A column added to accounts must be added
-- to accounts_entity_cache's list (tests/db/account_counter_trigger_test.ts
-- checks it); dropping one of them needs the trigger recreated.
CREATE FUNCTION rookery_notify_account_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_entities', 'n' || OLD.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER accounts_entity_cache ON accounts;
--> statement-breakpoint
CREATE TRIGGER accounts_entity_cache
  AFTER DELETE OR UPDATE OF id, username, domain, uri, url, actor_type, display_name, note, fields,
    locked, discoverable, indexable, hide_collections, memorial, attribution_domains, inbox_url,
    shared_inbox_url, outbox_url, followers_url, following_url, featured_url, featured_tags_url,
    public_key_pem, public_key_id, moved_to_account_id, suspended_at, deleted_at, fetched_at,
    created_at, updated_at, last_webfingered_at, silenced_at, sensitized_at, suspension_origin,
    also_known_as, avatar_description, header_description, show_media, show_media_replies,
    show_featured, featured_collections_url, feature_policy, public_keys, avatar_key,
    avatar_remote_url, avatar_file_size, avatar_cached_at, avatar_failed_at, header_key,
    header_remote_url, header_file_size, header_cached_at, header_failed_at
  ON accounts FOR EACH ROW EXECUTE FUNCTION rookery_notify_account_row();
--> statement-breakpoint
CREATE TRIGGER accounts_counters_entity_cache
  AFTER UPDATE OF statuses_count, followers_count, following_count, last_status_at
  ON accounts FOR EACH ROW EXECUTE FUNCTION rookery_notify_account_counters();
