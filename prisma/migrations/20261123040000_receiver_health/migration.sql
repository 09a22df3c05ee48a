-- Media-ready events and receiver health (issue 15).

-- When the activity_media_ready event of the activity's clip was recorded: set once, in the
-- transaction that made the clip ready (finished activity, packaging settled), so it is sent once.
ALTER TABLE "media_objects" ADD COLUMN "ready_event_at" TIMESTAMPTZ(3);

-- A receiver's rate limit (deliveries per second; null: none) with the earliest time its next
-- delivery may start (shared by every instance), and its health: since when every
-- attempt at it failed (null: its last attempt succeeded, or none was made yet), and whether it
-- was disabled for that, when and why.
ALTER TABLE "notification_registrations"
    ADD COLUMN "max_per_second" INTEGER,
    ADD COLUMN "next_send_at" TIMESTAMPTZ(3),
    ADD COLUMN "failing_since" TIMESTAMPTZ(3),
    ADD COLUMN "disabled_at" TIMESTAMPTZ(3),
    ADD COLUMN "disabled_reason" TEXT,
    ADD CONSTRAINT "notification_registrations_max_per_second_check"
        CHECK ("max_per_second" IS NULL OR "max_per_second" >= 1);
