-- A queued message whose handling was cut off (its worker died, or lost its
-- lease) is taken again by another claim; `takeovers` counts those times, so
-- that a message that ends its worker every time is dropped after a few
-- instead of taken forever (federation/stores/sql_queue.ts, MAX_TAKEOVERS).
ALTER TABLE "federation_queue" ADD COLUMN "takeovers" integer DEFAULT 0 NOT NULL;
