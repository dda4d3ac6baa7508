-- Background work is recorded as a job row in the command's transaction
-- (actors/outbox/jobs.ts) instead of an outbox intent that the relay turned
-- into a job. Intents of that kind left by an older process become the jobs
-- they asked for; not ready, so the queue's sweep readies them in their order
-- (federation/stores/sql_queue.ts).
INSERT INTO "federation_queue" ("message", "ordering_key", "run_at", "ready")
SELECT j."message", j."ordering_key", now(), false FROM (
	SELECT i."id", 0::bigint AS "n",
		jsonb_build_object('type', 'rookery:job', 'job', 'link_card', 'statusId', i."args"->>0) AS "message",
		'link_card:' || (i."args"->>0) AS "ordering_key"
	FROM "outbox_intents" i WHERE i."method" = 'linkCardRequested'
	UNION ALL
	SELECT i."id", 0::bigint,
		jsonb_build_object('type', 'rookery:job', 'job', 'status_links', 'statusId', i."args"->>0,
			'missing', i."args"->1),
		'status_links:' || (i."args"->>0)
	FROM "outbox_intents" i WHERE i."method" = 'statusLinksRequested'
	UNION ALL
	SELECT i."id", 0::bigint,
		jsonb_build_object('type', 'rookery:job', 'job', 'move_followers', 'originId', i."args"->>0,
			'targetId', i."args"->>1, 'afterId', NULL),
		'move:' || (i."args"->>0)
	FROM "outbox_intents" i WHERE i."method" = 'followersMoved'
	UNION ALL
	SELECT i."id", p."n",
		jsonb_build_object('type', 'rookery:job', 'job', 'web_push', 'notificationId', p."value"),
		NULL
	FROM "outbox_intents" i,
		jsonb_array_elements_text(i."args"->0) WITH ORDINALITY AS p("value", "n")
	WHERE i."method" = 'pushRequested'
) j ORDER BY j."id", j."n";--> statement-breakpoint
DELETE FROM "outbox_intents"
WHERE "method" IN ('linkCardRequested', 'statusLinksRequested', 'followersMoved', 'pushRequested');
