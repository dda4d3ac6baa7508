-- Deliveries have slots of their own (federation/stores/delivery_lane.ts):
-- a queued delivery (Fedify's `outbox` message) records its inbox's host, so
-- a worker claims deliveries apart from inbound activities and jobs, and
-- skips the hosts whose deliveries already fill their share of the slots.
-- Other messages leave it null. Deliveries queued before are given theirs.
ALTER TABLE "federation_queue" ADD COLUMN "host" text;--> statement-breakpoint
UPDATE "federation_queue"
SET "host" = lower(substring("message"->>'inbox' from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)'))
WHERE "message"->>'type' = 'outbox';--> statement-breakpoint
CREATE INDEX "federation_queue_delivery_idx" ON "federation_queue" USING btree ("run_at","id") WHERE "ready" AND "host" IS NOT NULL;
