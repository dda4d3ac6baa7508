-- Counter-only changes of an accounts row (statuses, followers and
-- following counts, the last status's time) are announced on the entity
-- channel as n<id>, other changes as a<id> as before (migration 0005).
-- Every stored status updates its author's counters, so caches of what
-- does not show counts (db/announced_cache.ts: the inbox's senders, the
-- key owners) would lose a busy sender's row at every post; caches that
-- show counts (the entity cache's Account) treat n<id> as a<id>.
CREATE OR REPLACE FUNCTION rookery_notify_account_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND
    to_jsonb(NEW) - '{statuses_count,followers_count,following_count,last_status_at}'::text[] =
    to_jsonb(OLD) - '{statuses_count,followers_count,following_count,last_status_at}'::text[] THEN
    PERFORM pg_notify('rookery_entities', 'n' || OLD.id);
  ELSE
    PERFORM pg_notify('rookery_entities', 'a' || OLD.id);
  END IF;
  RETURN NULL;
END $$;
