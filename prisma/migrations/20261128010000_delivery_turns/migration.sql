-- Turns between the registrations of a receiver origin (docs/decisions.md, "Notifications"):
-- the claim finds the registrations that have deliveries pending at an origin by a skip scan of
-- this index, and the first due deliveries of each, so that one registration's backlog does not
-- hold its host's other tenants behind it. No lease column is indexed: a claim stays a HOT update.
CREATE INDEX "deliveries_registration_due_idx" ON "deliveries"
    ("origin", "account_id", "client_id", "next_attempt_at", "id") WHERE "state" = 'pending';
