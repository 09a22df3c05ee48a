-- The W3C trace context of the request that queued a delivery (null while tracing is off), so
-- that its webhook attempts continue that request's trace.
ALTER TABLE deliveries ADD COLUMN traceparent text;
