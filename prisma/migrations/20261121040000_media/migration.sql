-- Media (issue 6): an activity's JPG and MP4 (with its HLS/DASH packaging status), and the
-- store prefixes waiting to be deleted.

-- CreateTable
CREATE TABLE "media_objects" (
    "accessory_id" UUID NOT NULL,
    "activity_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "upload_id" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "uploaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "package_status" TEXT,
    "package_files" JSONB,
    "package_error" TEXT,
    "package_attempts" INTEGER NOT NULL DEFAULT 0,
    "package_started_at" TIMESTAMPTZ(3),

    CONSTRAINT "media_objects_pkey" PRIMARY KEY ("accessory_id","activity_id","kind"),
    CONSTRAINT "media_objects_kind_check" CHECK ("kind" IN ('image', 'mp4')),
    CONSTRAINT "media_objects_package_status_check"
        CHECK ("package_status" IN ('queued', 'running', 'ready', 'failed'))
);

-- CreateTable
CREATE TABLE "media_garbage" (
    "id" BIGSERIAL NOT NULL,
    "prefix" TEXT NOT NULL,
    "delete_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "media_garbage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "media_objects_package_status_idx" ON "media_objects"("package_status");

-- CreateIndex
CREATE INDEX "media_garbage_delete_after_idx" ON "media_garbage"("delete_after");

-- AddForeignKey
ALTER TABLE "media_objects" ADD CONSTRAINT "media_objects_accessory_id_activity_id_fkey" FOREIGN KEY ("accessory_id", "activity_id") REFERENCES "activities"("accessory_id", "activity_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Whatever removes a media row (its activity's retention purge, its account's deletion, any
-- cascade) or replaces its upload queues the stored objects for deletion in the same
-- transaction. A replaced upload stays readable for a while: responses already streaming it
-- finish.
CREATE FUNCTION "media_objects_collect"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO "media_garbage" ("prefix")
            VALUES (OLD."accessory_id" || '/' || OLD."activity_id" || '/' || OLD."upload_id" || '/');
        -- Older uploads of the same media waiting out their grace period go now as well.
        UPDATE "media_garbage" SET "delete_after" = CURRENT_TIMESTAMP
            WHERE "prefix" LIKE OLD."accessory_id" || '/' || OLD."activity_id" || '/%'
              AND "delete_after" > CURRENT_TIMESTAMP;
        RETURN OLD;
    END IF;
    IF NEW."upload_id" <> OLD."upload_id" THEN
        INSERT INTO "media_garbage" ("prefix", "delete_after")
            VALUES (OLD."accessory_id" || '/' || OLD."activity_id" || '/' || OLD."upload_id" || '/',
                    CURRENT_TIMESTAMP + interval '10 minutes');
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER "media_objects_collect"
    AFTER DELETE OR UPDATE OF "upload_id" ON "media_objects"
    FOR EACH ROW EXECUTE FUNCTION "media_objects_collect"();
