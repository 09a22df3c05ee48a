-- Destinations (docs/api.md, Destinations): a registration's notifications go to a webhook (null,
-- as before) or a broker: {"kind": "mqtt" | "amqp" | "nats", "topic": the topic, routing-key or
-- subject template, "exchange": AMQP's exchange or null, "credentials": the broker's username
-- and password, sealed like the authKey, or null}. The broker's URL is in "url" and its
-- scheme://host:port in "origin", as a webhook's. Deliveries copy it as they copy the key.
ALTER TABLE "notification_registrations" ADD COLUMN "destination" JSONB;
ALTER TABLE "deliveries" ADD COLUMN "destination" JSONB;
