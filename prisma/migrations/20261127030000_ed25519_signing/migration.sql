-- Asymmetric signatures (docs/decisions.md, "Asymmetric signatures"): a registration that signs
-- with ed25519 keeps its private key (PKCS#8, sealed like auth_key) and publishes the public one
-- (`whpk_` + base64 of its 32 bytes); during a rotation's overlap the previous private key signs
-- too. NULL signing_key: HMAC-SHA256 (v1) only. Deliveries carry copies, like auth_key.
ALTER TABLE "notification_registrations"
    ADD COLUMN "signing_key" TEXT,
    ADD COLUMN "public_key" TEXT,
    ADD COLUMN "previous_signing_key" TEXT;

ALTER TABLE "deliveries"
    ADD COLUMN "signing_key" TEXT,
    ADD COLUMN "previous_signing_key" TEXT;
