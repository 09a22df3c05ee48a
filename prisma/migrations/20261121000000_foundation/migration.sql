-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "retention_days" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accessories" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "device_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accessories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activities" (
    "accessory_id" UUID NOT NULL,
    "activity_id" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3),
    "playback_duration" INTEGER,
    "relevance_level" INTEGER NOT NULL,
    "motion_zones" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "object_locations" SMALLINT[] NOT NULL DEFAULT ARRAY[]::SMALLINT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activities_pkey" PRIMARY KEY ("accessory_id","activity_id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "accessory_id" UUID,
    "event_type" TEXT NOT NULL,
    "event_data" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_subject_key" ON "accounts"("subject");

-- CreateIndex
CREATE UNIQUE INDEX "accessories_account_id_device_id_key" ON "accessories"("account_id", "device_id");

-- CreateIndex
CREATE INDEX "events_account_id_id_idx" ON "events"("account_id", "id");

-- CreateIndex
CREATE INDEX "events_occurred_at_idx" ON "events"("occurred_at");

-- AddForeignKey
ALTER TABLE "accessories" ADD CONSTRAINT "accessories_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_accessory_id_fkey" FOREIGN KEY ("accessory_id") REFERENCES "accessories"("id") ON DELETE CASCADE ON UPDATE CASCADE;
