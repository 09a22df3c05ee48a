-- Key rotation with overlap (docs/decisions.md, "Key rotation"): while a rotation's window is
-- open, a registration keeps its previous key (sealed like auth_key) and until when it signs
-- with it too. Deliveries carry a copy, like auth_key, so that every attempt (a retry queued
-- before the rotation included) is signed with the keys in effect when it is sent.
ALTER TABLE "notification_registrations"
    ADD COLUMN "previous_auth_key" TEXT,
    ADD COLUMN "previous_key_until" TIMESTAMPTZ(3);

ALTER TABLE "deliveries"
    ADD COLUMN "previous_auth_key" TEXT,
    ADD COLUMN "previous_key_until" TIMESTAMPTZ(3);
