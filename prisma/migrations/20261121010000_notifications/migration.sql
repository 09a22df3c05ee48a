-- Server notifications (issue 3): registrations, the delivery queue (transactional outbox) and the
-- delivery log. See src/notifications/ and docs/decisions.md, "Notifications".

-- One receiver per OAuth client per account. `auth_key` is AES-256-GCM ciphertext
-- (src/notifications/secrets.ts), never the key itself.
CREATE TABLE "notification_registrations" (
    "account_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "auth_key" TEXT NOT NULL,
    "event_types" TEXT[] NOT NULL,
    "user_data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_registrations_pkey" PRIMARY KEY ("account_id","client_id")
);

-- One notification to one receiver. It carries everything needed to send it (a snapshot of the
-- registration's url, encrypted key and userData, and the event's type and data), so it outlives
-- the registration and the account: account_deleted is queued, then the account's rows cascade.
-- No foreign keys for that reason.
CREATE TABLE "deliveries" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "event_id" BIGINT,
    "account_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "event_data" JSONB NOT NULL,
    "user_data" JSONB,
    "url" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "auth_key" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "round_attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "leased_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "deliveries_kind_check" CHECK ("kind" IN ('event', 'test')),
    CONSTRAINT "deliveries_state_check" CHECK ("state" IN ('pending', 'delivered', 'discarded', 'gone', 'dropped'))
) WITH (
    -- A queue: every row is claimed and finished (updated twice) soon after it is inserted.
    -- Room on each page keeps the claim a HOT update (it changes no indexed column), and the
    -- statistics must follow the churn for the claim to walk the due index.
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);

-- Every attempt, as the delivery log shows it.
CREATE TABLE "delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "status" INTEGER,
    "error" TEXT,
    "error_message" TEXT,
    "response_snippet" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- The dispatcher's claim and wake-up queries walk the pending deliveries in due order.
CREATE INDEX "deliveries_due_idx" ON "deliveries"("next_attempt_at", "id") WHERE "state" = 'pending';

-- CreateIndex
CREATE INDEX "deliveries_account_id_client_id_id_idx" ON "deliveries"("account_id", "client_id", "id");

-- CreateIndex
CREATE INDEX "deliveries_created_at_idx" ON "deliveries"("created_at");

-- CreateIndex
CREATE INDEX "delivery_attempts_delivery_id_attempt_idx" ON "delivery_attempts"("delivery_id", "attempt");

-- AddForeignKey
ALTER TABLE "notification_registrations" ADD CONSTRAINT "notification_registrations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
